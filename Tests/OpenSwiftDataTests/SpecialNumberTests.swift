import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// A model holding floating-point and decimal values of every optionality.
@Model
final class Measurement {
    var label: String
    var value: Double
    var optionalValue: Double?
    var single: Float
    var optionalSingle: Float?
    var amount: Decimal
    var optionalAmount: Decimal?

    init(label: String, value: Double, optionalValue: Double? = nil, single: Float = 0, optionalSingle: Float? = nil,
         amount: Decimal = 0, optionalAmount: Decimal? = nil) {
        self.label = label
        self.value = value
        self.optionalValue = optionalValue
        self.single = single
        self.optionalSingle = optionalSingle
        self.amount = amount
        self.optionalAmount = optionalAmount
    }
}

/// NaN, infinities, negative zero and extreme magnitudes round-trip; NaN takes part in predicates
/// as Swift says (every ordering comparison with it is false); one NaN row never makes the entity
/// unreadable.
@Suite struct SpecialNumberTests {
    @Test(arguments: StoreKind.allCases)
    func nanRoundTripsInEveryOptionality(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Measurement.self])
        let context = store.context()
        context.insert(Measurement(label: "nan", value: .nan, optionalValue: .nan, single: .nan, optionalSingle: .nan,
                                   amount: .nan, optionalAmount: .nan))
        context.insert(Measurement(label: "nil", value: 1, optionalValue: nil, optionalSingle: nil, optionalAmount: nil))
        try context.save()

        let loaded = try store.context().fetch(FetchDescriptor<Measurement>(sortBy: [SortDescriptor(\.label)]))
        #expect(loaded.map(\.label) == ["nan", "nil"])
        let nan = loaded[0], none = loaded[1]
        #expect(nan.value.isNaN)
        #expect(nan.optionalValue?.isNaN == true)
        #expect(nan.single.isNaN)
        #expect(nan.optionalSingle?.isNaN == true)
        #expect(nan.amount.isNaN)
        #expect(nan.optionalAmount?.isNaN == true)
        #expect(none.optionalValue == nil)
        #expect(none.optionalSingle == nil)
        #expect(none.optionalAmount == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func signsInfinitiesAndExtremesRoundTrip(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Measurement.self])
        let values: [Double] = [-0.0, 0, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                .leastNonzeroMagnitude, .ulpOfOne, 12, -12.5]
        let context = store.context()
        for (index, value) in values.enumerated() {
            context.insert(Measurement(label: String(format: "%02d", index), value: value, optionalValue: value,
                                       single: Float(value), amount: Decimal(string: "-123456789012345678901234567.89") ?? 0))
        }
        try context.save()
        let loaded = try store.context().fetch(FetchDescriptor<Measurement>(sortBy: [SortDescriptor(\.label)]))
        #expect(loaded.map(\.value).map(\.bitPattern) == values.map(\.bitPattern))
        #expect(loaded.map { $0.optionalValue?.bitPattern } == values.map(\.bitPattern))
        #expect(loaded.map(\.single).map(\.bitPattern) == values.map { Float($0).bitPattern })
        #expect(loaded.allSatisfy { $0.amount == Decimal(string: "-123456789012345678901234567.89") })
        #expect(loaded[0].value.sign == .minus)
    }

    @Test(arguments: StoreKind.allCases)
    func predicatesTreatNaNAsSwiftDoes(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Measurement.self])
        let context = store.context()
        for (label, value) in [("nan", Double.nan), ("one", 1), ("five", 5), ("inf", .infinity), ("-inf", -.infinity)] {
            context.insert(Measurement(label: label, value: value, optionalValue: value))
        }
        context.insert(Measurement(label: "nil", value: 0, optionalValue: nil))
        try context.save()
        let all = try store.context().fetch(FetchDescriptor<Measurement>())
        let limit = 2.0
        let predicates: [Predicate<Measurement>] = [
            #Predicate { $0.value > limit },
            #Predicate { $0.value >= limit },
            #Predicate { $0.value < limit },
            #Predicate { limit < $0.value },
            #Predicate { !($0.value > limit) },
            #Predicate { $0.value > $0.value - 1 },
            #Predicate { ($0.optionalValue ?? 0) > limit },
            #Predicate { $0.optionalValue.flatMap { $0 <= limit } == true },
        ]
        for predicate in predicates {
            let fetched = try store.context().fetch(FetchDescriptor(predicate: predicate)).map(\.label).sorted()
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.label).sorted()
            #expect(fetched == expected, "\(predicate)")
        }
    }

    /// `Decimal.nan` orders before every number, as in Swift: stored as text (SQLite) it would
    /// read as 0, in a `numeric` column (PostgreSQL) it would order after every number.
    @Test(arguments: StoreKind.translatingPredicates)
    func decimalNaNOrdersBeforeEveryNumber(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Measurement.self])
        let context = store.context()
        for (label, amount) in [("nan", Decimal.nan), ("one", 1), ("big", 5000), ("negative", -20)] {
            context.insert(Measurement(label: label, value: 0, amount: amount, optionalAmount: amount))
        }
        try context.save()
        let all = try store.context().fetch(FetchDescriptor<Measurement>())
        let limit = Decimal(1000)
        let below = Decimal(-5)
        let predicates: [Predicate<Measurement>] = [
            #Predicate { $0.amount > limit },
            #Predicate { $0.amount < limit },
            #Predicate { limit >= $0.amount },
            #Predicate { !($0.amount < limit) },
            #Predicate { $0.amount < below },
            #Predicate { ($0.optionalAmount ?? 0) <= below },
        ]
        for predicate in predicates {
            let fetched = try store.context().fetch(FetchDescriptor(predicate: predicate)).map(\.label).sorted()
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.label).sorted()
            #expect(fetched == expected, "\(predicate)")
        }
        let sorted = try store.context().fetch(FetchDescriptor<Measurement>(sortBy: [SortDescriptor(\.amount)])).map(\.label)
        #expect(sorted == all.sorted(using: SortDescriptor(\.amount)).map(\.label))
    }

    @Test(arguments: StoreKind.allCases)
    func aNaNRowLeavesTheEntityReadable(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Measurement.self])
        let context = store.context()
        context.insert(Measurement(label: "bad", value: .nan, amount: .nan))
        context.insert(Measurement(label: "good", value: 3, amount: 3))
        try context.save()
        let fresh = store.context()
        #expect(try fresh.fetchCount(FetchDescriptor<Measurement>()) == 2)
        let good = try fresh.fetch(FetchDescriptor<Measurement>(predicate: #Predicate { $0.label == "good" }))
        #expect(good.map(\.amount) == [3])
    }
}
