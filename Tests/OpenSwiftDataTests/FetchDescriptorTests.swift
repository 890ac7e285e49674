import Foundation
import Testing
@testable import OpenSwiftData

/// FetchDescriptor in full: partial loading, prefetching, identifiers, batches, enumeration,
/// deleting by predicate, and sorting that agrees with Swift.
@Suite struct FetchDescriptorTests {
    private func expenses(_ kind: StoreKind, count: Int = 30) throws -> TestStore {
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

    @Test(arguments: StoreKind.sqlite)
    func propertiesToFetchLoadTheRestOnAccess(_ kind: StoreKind) throws {
        let store = try expenses(kind)
        let context = store.context()
        var descriptor = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])
        descriptor.propertiesToFetch = [\.amount]
        var results: [Expense] = []
        let fetchSQL = try store.sql { results = try context.fetch(descriptor) }
        #expect(fetchSQL.count == 1)
        #expect(fetchSQL[0].text.hasPrefix("SELECT t0.\"Z_PK\", t0.\"amount\" FROM \"Expense\""))
        #expect(results.map(\.amount) == (0..<30).map(Double.init))
        var note: String?
        let faultSQL = store.sql { note = results[3].note }
        #expect(note == "note 3")
        #expect(faultSQL.count == 1)
        let restSQL = store.sql { _ = results[3].date }
        #expect(restSQL.isEmpty)  // the rest of the row came with the fault
        #expect(results[3].category?.name == "Food")
    }

    @Test(arguments: StoreKind.sqlite)
    func prefetchingRunsOneQueryPerRelationship(_ kind: StoreKind) throws {
        let store = try expenses(kind)
        let context = store.context()
        var byCategory = FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])
        byCategory.relationshipKeyPathsForPrefetching = [\.expenses]
        var categories: [Category] = []
        let fetchSQL = try store.sql { categories = try context.fetch(byCategory) }
        #expect(fetchSQL.count == 2)
        var counts: [Int] = []
        let walkSQL = store.sql { counts = categories.map { $0.expenses.count } }
        #expect(walkSQL.isEmpty)
        #expect(counts == [10, 10, 10])

        let other = store.context()
        var withCategory = FetchDescriptor<Expense>()
        withCategory.relationshipKeyPathsForPrefetching = [\.category]
        var expenses: [Expense] = []
        let toOneSQL = try store.sql { expenses = try other.fetch(withCategory) }
        #expect(toOneSQL.count == 2)
        let resolveSQL = store.sql { _ = expenses.map { $0.category?.name } }
        #expect(resolveSQL.isEmpty)
    }

    @Test func prefetchingManyToMany() throws {
        let store = try DifferentialPredicateTests.fixture(.memory)
        let context = store.context()
        var descriptor = FetchDescriptor<QTeam>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.sponsors, \.members]
        var teams: [QTeam] = []
        let fetchSQL = try store.sql { teams = try context.fetch(descriptor) }
        #expect(fetchSQL.count == 3)
        var sponsors: [[String]] = []
        let walkSQL = store.sql { sponsors = teams.map { $0.sponsors.map(\.name).sorted() } }
        #expect(walkSQL.isEmpty)
        #expect(sponsors == [[], ["Acme", "O'Neil & Sons"], [], ["Acme"]])
    }

    @Test(arguments: StoreKind.allCases)
    func identifiersMatchTheModels(_ kind: StoreKind) throws {
        let store = try expenses(kind)
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

    @Test(arguments: StoreKind.sqlite)
    func batchedFetchLoadsBatchesOnDemand(_ kind: StoreKind) throws {
        let store = try expenses(kind)
        let context = store.context()
        let descriptor = FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount, order: .reverse)])
        var results: FetchResultsCollection<Expense>?
        let keysSQL = try store.sql { results = try context.fetch(descriptor, batchSize: 8) }
        #expect(keysSQL.count == 1)  // only the keys
        let batched = try #require(results)
        #expect(batched.count == 30)
        var amounts: [Double] = []
        let walkSQL = store.sql { amounts = batched.map(\.amount) }
        #expect(amounts == (0..<30).reversed().map(Double.init))
        #expect(walkSQL.count == 4)  // 30 rows in batches of 8
        #expect(batched[29].amount == 0)

        context.insert(Expense(amount: 1))
        #expect(throws: SwiftDataError.includePendingChangesWithBatchSize) { try context.fetch(descriptor, batchSize: 8) }
        var stored = descriptor
        stored.includePendingChanges = false
        #expect(try context.fetch(stored, batchSize: 8).count == 30)
    }

    @Test(arguments: StoreKind.sqlite)
    func enumerateWalksInBatchesAndLetsModelsGo(_ kind: StoreKind) throws {
        let store = try expenses(kind)
        let context = store.context()
        var seen: [Double] = []
        weak var firstOfFirstBatch: Expense?
        var releasedWhenSecondBatchStarted = false
        try context.enumerate(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]), batchSize: 10) { expense in
            if seen.isEmpty { firstOfFirstBatch = expense }
            if seen.count == 10 { releasedWhenSecondBatchStarted = firstOfFirstBatch == nil }
            seen.append(expense.amount)
        }
        #expect(seen == (0..<30).map(Double.init))
        #expect(releasedWhenSecondBatchStarted)

        // The default batch size is 5,000: one batch here.
        let defaultSQL = try store.sql { try context.enumerate(FetchDescriptor<Expense>()) { _ in } }
        #expect(defaultSQL.count == 2)

        // Changing models without saving is refused unless allowed.
        #expect(throws: SwiftDataError.unsavedChangesDuringEnumeration) {
            try context.enumerate(FetchDescriptor<Expense>(), batchSize: 10) { $0.amount += 1 }
        }
        context.rollback()
        try context.enumerate(FetchDescriptor<Expense>(), batchSize: 10, allowEscapingMutations: true) { $0.amount += 1 }
        try context.save()
        #expect(try store.context().fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).first?.amount == 1)
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

/// `delete(model:where:)` runs in the store when the delete rules allow it.
@Suite struct BatchDeleteTests {
    @Test(arguments: StoreKind.sqlite)
    func deletesRowsWithOneStatementAndAppliesNullify(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        for amount in 1...20 { context.insert(Expense(amount: Double(amount), category: amount.isMultiple(of: 2) ? food : travel)) }
        try context.save()

        let other = store.context()
        let loaded = try other.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount == 20 }))
        try other.delete(model: Expense.self, where: #Predicate { $0.amount > 15 })
        #expect(other.hasChanges)
        #expect(loaded.first?.isDeleted == true)  // a registered match is deleted in memory at once
        #expect(try other.fetchCount(FetchDescriptor<Expense>()) == 15)  // pending deletes already apply
        let statements = try store.sql { try other.save() }
        #expect(statements.starting(with: "DELETE FROM \"Expense\"").count == 2)  // the registered one, then the batch
        #expect(statements.filter { $0.text.contains("SELECT t0.\"Z_PK\" FROM \"Expense\"") }.count >= 1)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 15)

        // Deleting categories in the store nullifies their expenses' references.
        try other.delete(model: Category.self, where: #Predicate { $0.name == "Food" })
        try other.save()
        let fresh = store.context()
        #expect(try fresh.fetch(FetchDescriptor<Category>()).map(\.name) == ["Travel"])
        #expect(try fresh.fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.category == nil })) == 7)

        // Rollback cancels a pending batch.
        try other.delete(model: Expense.self)
        other.rollback()
        try other.save()
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 15)
    }

    @Test(arguments: StoreKind.sqlite)
    func deletingEveryRowRunsOneUnconditionalStatementAndReportsEachIdentifier(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        for amount in 1...12 { context.insert(Expense(amount: Double(amount), category: food)) }
        try context.save()
        let saved = Set(try context.fetch(FetchDescriptor<Expense>()).map(\.persistentModelID))

        let other = store.context()
        try other.delete(model: Expense.self)
        let posted = NotificationBox()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: other, queue: nil) { posted.append($0) }
        defer { NotificationCenter.default.removeObserver(observer) }
        let statements = try store.sql { try other.save() }
        #expect(statements.filter { $0.text == "DELETE FROM \"Expense\"" }.count == 1)
        let reported = posted.items.first?.userInfo?[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier]
        #expect(Set(reported ?? []) == saved)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try store.context().fetch(FetchDescriptor<Category>()).map(\.name) == ["Food"])
    }
}
