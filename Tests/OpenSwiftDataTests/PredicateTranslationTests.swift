import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// The first cut of predicate translation: comparisons, boolean logic, nil tests and to-one key
/// paths. Every result is checked against Foundation's own `Predicate.evaluate` over the same
/// models, and representative predicates against the SQL they become.
@Suite struct PredicateTranslationTests {
    /// A small data set with edge cases: nil notes, empty strings, an uncategorised expense, a
    /// category without expenses.
    static func seeded(_ kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind, [Expense.self])
        let context = store.context()
        let food = Category(name: "Food")
        let travel = Category(name: "Travel")
        context.insert(Category(name: "Empty"))
        let day: TimeInterval = 86_400
        let rows: [(Double, String?, Category?, TimeInterval)] = [
            (12.5, "Lunch", food, 0), (400, nil, food, day), (900, "Dinner", food, 2 * day),
            (35, "Taxi", travel, 3 * day), (0, "", nil, 4 * day), (-5, "Refund", travel, 5 * day),
            (120, "O'Hare parking", travel, 6 * day), (7, "ข้าวผัด", nil, 7 * day),
        ]
        for (amount, note, category, offset) in rows {
            context.insert(Expense(amount: amount, date: Date(timeIntervalSinceReferenceDate: 800_000_000 + offset), note: note, category: category))
        }
        try context.save()
        return store
    }

    /// Fetches with the predicate and checks the result equals evaluating it over every model.
    private func check(_ store: TestStore, _ predicate: Predicate<Expense>, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let context = store.context()
        let all = try context.fetch(FetchDescriptor<Expense>())
        let expected = try all.filter { try predicate.evaluate($0) }.map(\.persistentModelID)
        let fetched = try context.fetch(FetchDescriptor<Expense>(predicate: predicate)).map(\.persistentModelID)
        #expect(Set(fetched) == Set(expected), sourceLocation: sourceLocation)
        #expect(fetched.count == expected.count, sourceLocation: sourceLocation)
    }

    @Test(arguments: StoreKind.allCases)
    func fetchMatchesEvaluate(_ kind: StoreKind) throws {
        let store = try Self.seeded(kind)
        let limit = 100.0
        let start = Date(timeIntervalSinceReferenceDate: 800_000_000 + 86_400)
        let end = Date(timeIntervalSinceReferenceDate: 800_000_000 + 5 * 86_400)
        let name = "Food"
        let missing: String? = nil
        try check(store, #Predicate { $0.amount > limit })
        try check(store, #Predicate { $0.amount >= 400 })
        try check(store, #Predicate { $0.amount < 0 })
        try check(store, #Predicate { $0.amount <= 12.5 })
        try check(store, #Predicate { $0.amount == 900 })
        try check(store, #Predicate { $0.amount != 900 })
        try check(store, #Predicate { $0.date >= start && $0.date < end })
        try check(store, #Predicate { $0.amount > 100 || $0.amount < 10 })
        try check(store, #Predicate { !($0.amount > 100) })
        try check(store, #Predicate { $0.note == nil })
        try check(store, #Predicate { $0.note != nil })
        try check(store, #Predicate { $0.note == "" })
        try check(store, #Predicate { $0.note == "O'Hare parking" })
        try check(store, #Predicate { $0.note == missing })
        try check(store, #Predicate { $0.note != "Lunch" })
        try check(store, #Predicate { $0.category == nil })
        try check(store, #Predicate { $0.category != nil })
        try check(store, #Predicate { $0.category?.name == name })
        try check(store, #Predicate { $0.category?.name != name })
        try check(store, #Predicate { $0.category?.name == "Travel" && $0.amount > 0 })
        try check(store, #Predicate { ($0.note ?? "none") == "none" })
        try check(store, #Predicate { _ in true })
        try check(store, #Predicate { _ in false })
        try check(store, #Predicate { $0.amount > 10 && true })
    }

    @Test func identifierComparisonsCompareKeys() throws {
        let store = try Self.seeded(.memory)
        let context = store.context()
        let food = try #require(try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.name == "Food" })).first)
        let id = food.persistentModelID
        let byModel = try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.category?.persistentModelID == id }))
        #expect(byModel.count == 3)
        #expect(byModel.allSatisfy { $0.category === food })
        let byID = try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.persistentModelID == id }))
        #expect(byID.count == 1)
        #expect(byID.first === food)
        // An identifier of another entity never matches, even when the keys coincide.
        #expect(try context.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.persistentModelID == id })).isEmpty)
    }

    @Test func untranslatableExpressionsThrowNamingTheNodeAndKeyPath() throws {
        let store = try TestStore(.memory, [QPerson.self, QTeam.self, QSponsor.self, Sample2.self])
        let context = store.context()
        func failure<T: PersistentModel>(_ predicate: Predicate<T>) -> SwiftDataError? {
            do {
                _ = try context.fetch(FetchDescriptor<T>(predicate: predicate))
                return nil
            } catch let error as SwiftDataError {
                return error
            } catch {
                return nil
            }
        }
        // A to-many relationship has no order in the store.
        let first = failure(#Predicate<QTeam> { $0.members.first?.name == "Ann" })
        #expect(first == .unsupportedPredicate)
        #expect(first?.message.contains("QTeam.members") == true)
        // Dictionary keys must be constants.
        let key = failure(#Predicate<QPerson> { $0.attributes[$0.name] == 1 })
        #expect(key?.message.contains("DictionaryKeySubscript") == true)
        // Arrays of UUIDs are JSON strings, not the stored UUID bytes: refused, not guessed.
        let uuids = failure(#Predicate<Sample2> { $0.ids.contains(where: { $0 == $0 }) })
        #expect(uuids?.message.contains("Sample2.ids") == true)
        // Decimal arithmetic would lose digits in SQL.
        let decimal = failure(#Predicate<QSponsor> { $0.budget * 2 > 10 })
        #expect(decimal?.message.contains("Arithmetic") == true)
    }

}
