import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A predicate evaluated inside another (`PredicateExpressions.build_evaluate`, what Apple's
/// `#Predicate` writes for `evaluate(_:)`), built by hand because Linux Foundation's macro
/// refuses `evaluate(_:)`: every store filters by the combination, and it evaluates in memory.
@Suite struct NestedPredicateTests {
    static let large = #Predicate<Expense> { $0.amount > 10 }
    static let noted = #Predicate<Expense> { $0.note != nil }

    /// `large.evaluate($0) && (noted.evaluate($0) == wantsNote)`, as the macro would expand it.
    static func combined(wantsNote: Bool) -> Predicate<Expense> {
        Predicate<Expense> { expense in
            PredicateExpressions.build_Conjunction(
                lhs: PredicateExpressions.build_evaluate(PredicateExpressions.build_Arg(large), expense),
                rhs: PredicateExpressions.build_Equal(
                    lhs: PredicateExpressions.build_evaluate(PredicateExpressions.build_Arg(noted), expense),
                    rhs: PredicateExpressions.build_Arg(wantsNote)))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aPredicateEvaluatedInsideAnotherFiltersAsBothTogether(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Expense.self, Category.self])
        let context = store.context()
        let food = Category(name: "Food")
        for (amount, note) in [(5.0, "tea"), (40, "dinner"), (900, "flat"), (12, nil), (3, nil)] as [(Double, String?)] {
            context.insert(Expense(amount: amount, note: note, category: food))
        }
        try context.save()

        let fresh = ModelContext(try store.reopen([Expense.self, Category.self]))
        let byAmount = [SortDescriptor(\Expense.amount)]
        #expect(try fresh.fetch(FetchDescriptor(predicate: Self.combined(wantsNote: true), sortBy: byAmount)).map(\.amount) == [40, 900])
        #expect(try fresh.fetch(FetchDescriptor(predicate: Self.combined(wantsNote: false), sortBy: byAmount)).map(\.amount) == [12])
        #expect(try fresh.fetchCount(FetchDescriptor(predicate: Self.combined(wantsNote: true))) == 2)
        // In memory, the same answers.
        let all = try fresh.fetch(FetchDescriptor<Expense>(sortBy: byAmount))
        #expect(try all.filter { try Self.combined(wantsNote: true).evaluate($0) }.map(\.amount) == [40, 900])

        // Through a relationship: the nested predicate's variable bound to each member.
        let hasLargeNoted = Predicate<Category> { category in
            PredicateExpressions.build_contains(
                PredicateExpressions.build_KeyPath(root: category, keyPath: \.expenses),
                where: { PredicateExpressions.build_evaluate(PredicateExpressions.build_Arg(Self.combined(wantsNote: true)), $0) })
        }
        #expect(try fresh.fetch(FetchDescriptor(predicate: hasLargeNoted)).map(\.name) == ["Food"])
    }

    @Test func encodingANestedPredicateSaysWhyItCannot() {
        #expect(throws: EncodingError.self) {
            try JSONEncoder().encode(PredicateExpressions.build_evaluate(PredicateExpressions.build_Arg(Self.large), PredicateExpressions.Variable<Expense>()))
        }
    }
}
