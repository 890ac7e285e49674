import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// `ModelContext.explain(_:)`: the statement a fetch or an aggregate runs, the engine's plan, the
/// indexes it uses, what it reads in full, and the `#Index` that would serve it — on SQLite and
/// PostgreSQL, with enough rows that PostgreSQL's planner prefers an index where one serves.
@Suite struct ExplainTests {
    static var kinds: [StoreKind] { StoreKind.builtIn }

    /// 2,000 purchases in 4 shops over 50 days, amounts 0…999 (each twice), made by 20 buyers.
    private func filled(_ kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind, [Purchase.self, Buyer.self])
        let context = store.context()
        let buyers = (0..<20).map { Buyer(name: "buyer \($0)") }
        for index in 0..<2_000 {
            context.insert(Purchase(shop: ["A", "B", "C", "D"][index % 4], day: index % 50, amount: index % 1_000,
                                    note: "note \(index)", buyer: buyers[index % 20]))
        }
        try context.save()
        return store
    }

    @Test(arguments: kinds)
    func anIndexedPredicateUsesItsIndex(_ kind: StoreKind) throws {
        let store = try filled(kind)
        let explanation = try store.context().explain(FetchDescriptor<Purchase>(predicate: #Predicate { $0.amount == 7 }))
        #expect(explanation.indexesUsed.map(\.propertyNames).contains(["amount"]), "\(explanation)")
        #expect(explanation.indexesUsed.allSatisfy { $0.entityName == "Purchase" })
        #expect(explanation.fullScans.isEmpty, "\(explanation)")
        #expect(explanation.suggestedIndexes.isEmpty)
        #expect(explanation.engine == (kind.isPostgres ? "postgresql" : "sqlite"))
        #expect(explanation.description.contains("Indexes used: Z_Purchase_INDEX1 (Purchase.amount)"), "\(explanation)")
    }

    @Test(arguments: kinds)
    func aCompositeIndexServesEqualityThenRange(_ kind: StoreKind) throws {
        let store = try filled(kind)
        let explanation = try store.context().explain(FetchDescriptor<Purchase>(predicate: #Predicate { $0.shop == "B" && $0.day > 47 }))
        #expect(explanation.indexesUsed.map(\.propertyNames) == [["shop", "day"]], "\(explanation)")
        #expect(!explanation.readsEveryRow, "\(explanation)")
    }

    @Test(arguments: kinds)
    func anUnindexedPredicateReadsEveryRowAndSuggestsAnIndex(_ kind: StoreKind) throws {
        let store = try filled(kind)
        let explanation = try store.context().explain(FetchDescriptor<Purchase>(predicate: #Predicate { $0.note == "note 12" && $0.day >= 3 }))
        #expect(explanation.fullScans == ["Purchase"], "\(explanation)")
        #expect(explanation.indexesUsed.isEmpty, "\(explanation)")
        // Equalities first, then one range: the index that finds these rows directly.
        #expect(explanation.suggestedIndexes.map(\.description) == ["#Index<Purchase>([\\.note, \\.day])"], "\(explanation)")
        #expect(explanation.description.contains("Suggested: #Index<Purchase>([\\.note, \\.day])"))
        // Parameters stay placeholders: the value is not in the explanation.
        #expect(!explanation.description.contains("note 12"))
    }

    @Test(arguments: kinds)
    func aSortWithoutAnIndexIsFlaggedAndItsIndexSuggested(_ kind: StoreKind) throws {
        let store = try filled(kind)
        var descriptor = FetchDescriptor<Purchase>(sortBy: [SortDescriptor(\.day), SortDescriptor(\.amount)])
        descriptor.fetchLimit = 10
        let explanation = try store.context().explain(descriptor)
        #expect(explanation.sortsWithoutIndex, "\(explanation)")
        #expect(explanation.suggestedIndexes.map(\.propertyNames) == [["day", "amount"]], "\(explanation)")
    }

    @Test(arguments: kinds)
    func analyzeRunsTheQueryAndCountsItsRows(_ kind: StoreKind) throws {
        let store = try filled(kind)
        let descriptor = FetchDescriptor<Purchase>(predicate: #Predicate { $0.shop == "C" && $0.day < 10 })
        let context = store.context()
        let explanation = try context.explain(descriptor, analyze: true)
        let analysis = try #require(explanation.analysis)
        #expect(analysis.rows == (try context.fetchCount(descriptor)))
        #expect(analysis.rows == 100)
        #expect(analysis.duration >= .zero)
        #expect(explanation.description.contains("Ran: 100 rows in "), "\(explanation)")
        // Without analyze, nothing runs.
        #expect(try context.explain(descriptor).analysis == nil)
    }

    @Test(arguments: kinds)
    func anAggregateIsExplainedWithItsGrouping(_ kind: StoreKind) throws {
        let store = try filled(kind)
        let context = store.context()
        let explanation = try context.explain(FetchDescriptor<Purchase>(predicate: #Predicate { $0.amount == 3 }),
                                              aggregate: .sum(\.amount).grouped(by: \.buyer))
        #expect(explanation.operation == "sum of amount grouped by buyer")
        #expect(explanation.indexesUsed.map(\.propertyNames).contains(["amount"]), "\(explanation)")
        #expect(try context.explain(FetchDescriptor<Purchase>(), aggregate: .count).operation == "count")
    }

    @Test(arguments: kinds)
    func aPredicateThroughARelationshipNamesBothEntities(_ kind: StoreKind) throws {
        let store = try filled(kind)
        let explanation = try store.context().explain(FetchDescriptor<Purchase>(predicate: #Predicate { $0.buyer?.name == "buyer 3" }))
        let entities = Set(explanation.steps.compactMap(\.entityName))
        #expect(entities.isSubset(of: ["Purchase", "Buyer"]) && entities.contains("Purchase"), "\(explanation)")
        // Buyer's name has no index: where the plan reads buyers in full, it suggests one.
        if explanation.fullScans.contains("Buyer") {
            #expect(explanation.suggestedIndexes.contains { $0.entityName == "Buyer" && $0.propertyNames == ["name"] }, "\(explanation)")
        }
    }

    @Test func aCustomStoreHasNoPlanToExplain() throws {
        let store = try TestStore(.json, [Purchase.self, Buyer.self])
        #expect(throws: SwiftDataError.storeUnavailable) {
            try store.context().explain(FetchDescriptor<Purchase>())
        }
    }

    /// A plan is logged: PostgreSQL writes the values it ran with into it, quoted or as bare
    /// numbers (a generic plan's constants, a literal); every one becomes `?`, and the digits
    /// of names stay.
    @Test func aPostgreSQLPlansValuesAreLeftOut() {
        let condition = #"((t0.amount > 12) AND (t0.day = -42) AND (t0.note = 'it''s 7'::text) AND (t0.price > 1.5e3) AND (t0."Z_PK" = ANY ('{1,2}'::bigint[])))"#
        #expect(PostgresQueryPlans.withoutValues(condition) == #"((t0.amount > ?) AND (t0.day = ?) AND (t0.note = ?::text) AND (t0.price > ?) AND (t0."Z_PK" = ANY (?::bigint[])))"#)
        #expect(PostgresQueryPlans.withoutValues(#"Index Scan using "Z_Purchase_INDEX1" on t2"#) == #"Index Scan using "Z_Purchase_INDEX1" on t2"#)
    }
}
