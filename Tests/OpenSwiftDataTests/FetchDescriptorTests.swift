import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// FetchDescriptor in full: partial loading, prefetching, identifiers, batches, enumeration,
/// deleting by predicate, and sorting that agrees with Swift.
@Suite struct FetchDescriptorTests {
    static func expenses(_ kind: StoreKind, count: Int = 30) throws -> TestStore {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let categories = ["Food", "Travel", "Bills"].map(Category.init(name:))
        for index in 0..<count {
            context.insert(Expense(amount: Double(index), date: Date(timeIntervalSinceReferenceDate: Double(index * 100)),
                                   note: "note \(index)", category: categories[index % 3]))
        }
        try context.save()
        return store
    }

    @Test(arguments: StoreKind.allCases)
    func identifiersMatchTheModels(_ kind: StoreKind) throws {
        let store = try Self.expenses(kind)
        let context = store.context()
        let descriptor = FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 20 }, sortBy: [SortDescriptor(\.amount, order: .reverse)])
        let identifiers = try context.fetchIdentifiers(descriptor)
        #expect(identifiers == (try context.fetch(descriptor)).map(\.persistentModelID))
        #expect(identifiers.count == 9)
        #expect(try context.fetchIdentifiers(descriptor, batchSize: 4).count == 9)

        context.insert(Expense(amount: 99))
        #expect(throws: SwiftDataError.sortingPendingChangesWithIdentifiers) { try context.fetchIdentifiers(descriptor) }
        let unsorted = try context.fetchIdentifiers(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 20 }))
        #expect(unsorted.count == 10)
        #expect(unsorted.contains { $0.isTemporary })
    }

    @Test(arguments: StoreKind.allCases)
    func deleteWherePredicateAppliesDeleteRules(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Classroom.self])
        let context = store.context()
        for name in ["A", "B", "C"] {
            let room = Classroom(name: name, teacher: "T")
            room.studentList.append(Student(name: "\(name)1", gender: "F", score: 1))
            context.insert(room)
        }
        try context.save()
        try context.delete(model: Classroom.self, where: #Predicate { $0.name != "B" })
        #expect(context.deletedModelsArray.count == 2)
        try context.save()
        let fresh = store.context()
        #expect(try fresh.fetch(FetchDescriptor<Classroom>()).map(\.name) == ["B"])
        #expect(try fresh.fetch(FetchDescriptor<Student>()).map(\.name) == ["B1"])  // cascaded
        try fresh.delete(model: Classroom.self)
        try fresh.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Student>()) == 0)
    }

    @Test(arguments: StoreKind.allCases)
    func sortingAgreesWithSwift(_ kind: StoreKind) throws {
        let store = try DifferentialPredicateTests.fixture(kind)
        let context = store.context()
        let descriptors: [[SortDescriptor<QPerson>]] = [
            [SortDescriptor(\.name)],
            [SortDescriptor(\.name, order: .reverse)],
            [SortDescriptor(\.nickname), SortDescriptor(\.name)],
            [SortDescriptor(\.nickname, order: .reverse), SortDescriptor(\.age)],
            [SortDescriptor(\.score), SortDescriptor(\.height, order: .reverse)],
            [SortDescriptor(\.joined), SortDescriptor(\.birthday)],
            [SortDescriptor(\.team?.name), SortDescriptor(\.name)],
            [SortDescriptor(\.mentor?.team?.name, order: .reverse), SortDescriptor(\.age), SortDescriptor(\.name)],
            [SortDescriptor(\.name, comparator: .lexical)],
        ]
        let all = try context.fetch(FetchDescriptor<QPerson>())
        for sort in descriptors {
            let fetched = try context.fetch(FetchDescriptor<QPerson>(sortBy: sort)).map(\.name)
            let swift = all.sorted(using: sort).map(\.name)
            #expect(fetched == swift, "\(sort)")
        }
        // With unsaved changes, the merged results are sorted the same way.
        context.insert(QPerson(name: "Émile", nickname: nil, age: 30, height: 1.7, score: nil, isActive: true, birthday: .now,
                               joined: nil, rank: .regular, mood: nil, tags: [], scores: [], attributes: [:], team: nil))
        var page = FetchDescriptor<QPerson>(sortBy: [SortDescriptor(\.name)])
        page.fetchLimit = 5
        page.fetchOffset = 3
        let merged = try context.fetch(page).map(\.name)
        let expected = Array(try context.fetch(FetchDescriptor<QPerson>()).sorted(using: [SortDescriptor(\.name)]).map(\.name)[3..<8])
        #expect(merged == expected)
    }
}
