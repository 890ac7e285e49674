import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// `fetchSum`, `fetchAverage`, `fetchMin` and `fetchMax`, on every store: the oracle is the same
/// descriptor fetched and reduced in Swift — predicates (through relationships), sort order with
/// limits and offsets, unsaved changes, nils, integer overflow, decimals, NaN, strings as Swift
/// compares them, enums ordered by case.
@Suite struct AggregateTests {
    /// Random readings (reproducible): three sensors and none, nils in the optionals, small
    /// integers that overflow `Int8` when enough are added, unsigned values past `Int64.max`,
    /// labels of which two are canonically equal ("é" composed and decomposed).
    static func seed(_ context: ModelContext, count: Int = 150, seed: UInt64 = 7) throws {
        var random = SplitMix64(state: seed)
        let labels = ["\u{E9}", "e\u{301}", "b", "B", "ab", ""]
        let sensors = ["a", "b", "c"].enumerated().map { Sensor(name: $0.element, offset: $0.offset * 10 - 5) }
        for _ in 0..<count {
            let reading = Reading(
                count: random.below(2_001) - 1_000,
                small: Int8(random.below(41) - 20),
                price: Decimal(random.below(20_001) - 10_000) / 100,
                weight: random.below(5) == 0 ? nil : Double(random.below(1_000_000)) / 7,
                ratio: Float(random.below(1_000)) / 3,
                bonus: random.below(3) == 0 ? nil : random.below(100),
                unsigned: random.below(6) == 0 ? UInt64.max - UInt64(random.below(1_000)) : UInt64(random.below(1_000)),
                label: random.pick(labels),
                taken: Date(timeIntervalSinceReferenceDate: Double(random.below(100_000_000))),
                grade: random.pick(Grade.allCases),
                sensor: random.below(4) == 0 ? nil : random.pick(sensors))
            context.insert(reading)
        }
        try context.save()
    }

    /// A store of `kind` holding the seeded readings, and a context of a container opened on it
    /// afresh (so nothing is read from memory the seeding filled).
    static func seeded(_ kind: StoreKind) throws -> (TestStore, ModelContext) {
        let store = try TestStore(kind, AggregateModels.types)
        try seed(store.context())
        return (store, ModelContext(try store.reopen(AggregateModels.types)))
    }

    /// Descriptors covering what applies to an aggregate.
    static var descriptors: [(String, FetchDescriptor<Reading>)] {
        var latest = FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.count, order: .reverse)])
        latest.fetchLimit = 10
        var page = FetchDescriptor<Reading>(predicate: #Predicate { $0.weight != nil }, sortBy: [SortDescriptor(\.weight)])
        page.fetchOffset = 5
        page.fetchLimit = 20
        var offsetOnly = FetchDescriptor<Reading>(sortBy: [SortDescriptor(\.price)])
        offsetOnly.fetchOffset = 140
        return [
            ("all", FetchDescriptor()),
            ("positive", FetchDescriptor(predicate: #Predicate { $0.count > 0 })),
            ("sensor b", FetchDescriptor(predicate: #Predicate { $0.sensor?.name == "b" })),
            ("no sensor", FetchDescriptor(predicate: #Predicate { $0.sensor == nil })),
            ("none", FetchDescriptor(predicate: #Predicate { $0.count > 5_000 })),
            ("10 largest", latest),
            ("page by weight", page),
            ("last 10 by price", offsetOnly),
        ]
    }

    /// The integer sum in Swift, `nil` where it overflows `V`.
    static func integerSum<V: FixedWidthInteger>(_ values: [V?]) -> V? {
        var total: V = 0
        for case let value? in values {
            let (sum, overflow) = total.addingReportingOverflow(value)
            if overflow { return nil }
            total = sum
        }
        return total
    }

    static func expectIntegerSum<V: FixedWidthInteger>(_ context: ModelContext, _ name: String, _ descriptor: FetchDescriptor<Reading>, _ sum: () throws -> V, _ values: (Reading) -> V?) throws {
        let expected = integerSum(try context.fetch(descriptor).map(values))
        if let expected {
            #expect(try sum() == expected, "\(name)")
        } else {
            #expect(throws: SwiftDataError.valueOutOfRange, "\(name)") { try sum() }
        }
    }

    static func expectClose<V: BinaryFloatingPoint>(_ actual: V, _ values: [V?], _ name: String) {
        let present = values.compactMap { $0 }
        let expected = present.reduce(0, +)
        let scale = max(1, present.reduce(0) { $0 + abs($1) })
        #expect(abs(actual - expected) <= scale * V.ulpOfOne * 64, "\(name): \(actual) against \(expected)")
    }

    @Test(arguments: StoreKind.allCases)
    func sumsMatchFetchingAndAdding(_ kind: StoreKind) throws {
        let (store, fresh) = try Self.seeded(kind)
        for (name, descriptor) in Self.descriptors {
            let models = try fresh.fetch(descriptor)
            try Self.expectIntegerSum(fresh, "\(name) count", descriptor, { try fresh.fetchSum(descriptor, of: \.count) }, { $0.count })
            try Self.expectIntegerSum(fresh, "\(name) small", descriptor, { try fresh.fetchSum(descriptor, of: \.small) }, { $0.small })
            try Self.expectIntegerSum(fresh, "\(name) bonus", descriptor, { try fresh.fetchSum(descriptor, of: \.bonus) }, { $0.bonus })
            try Self.expectIntegerSum(fresh, "\(name) unsigned", descriptor, { try fresh.fetchSum(descriptor, of: \.unsigned) }, { $0.unsigned })
            try Self.expectIntegerSum(fresh, "\(name) sensor offset", descriptor, { try fresh.fetchSum(descriptor, of: \.sensor?.offset) }, { $0.sensor?.offset })
            #expect(try fresh.fetchSum(descriptor, of: \.price) == models.reduce(0) { $0 + $1.price }, "\(name) price")
            Self.expectClose(try fresh.fetchSum(descriptor, of: \.weight), models.map(\.weight), "\(name) weight")
            Self.expectClose(try fresh.fetchSum(descriptor, of: \.ratio), models.map(\.ratio), "\(name) ratio")
        }
        withExtendedLifetime(store) {}
    }

    /// The average Swift computes, within rounding (`nil` for no values).
    static func expectAverage(_ actual: Double?, _ values: [Double], _ name: String) {
        guard !values.isEmpty else {
            #expect(actual == nil, "\(name): \(String(describing: actual)) for no values")
            return
        }
        let expected = values.reduce(0, +) / Double(values.count)
        let scale = max(1, values.reduce(0) { $0 + abs($1) } / Double(values.count))
        guard let actual else {
            Issue.record("\(name): no average, expected \(expected)")
            return
        }
        #expect(abs(actual - expected) <= scale * 1e-12, "\(name): \(actual) against \(expected)")
    }

    @Test(arguments: StoreKind.allCases)
    func averagesAndExtremesMatchFetchingAndReducing(_ kind: StoreKind) throws {
        let (store, fresh) = try Self.seeded(kind)
        for (name, descriptor) in Self.descriptors {
            let models = try fresh.fetch(descriptor)
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.count), models.map { Double($0.count) }, "\(name) count")
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.small), models.map { Double($0.small) }, "\(name) small")
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.bonus), models.compactMap { $0.bonus.map(Double.init) }, "\(name) bonus")
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.weight), models.compactMap(\.weight), "\(name) weight")
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.ratio), models.map { Double($0.ratio) }, "\(name) ratio")
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.unsigned), models.map { Double($0.unsigned) }, "\(name) unsigned")
            Self.expectAverage(try fresh.fetchAverage(descriptor, of: \.sensor?.offset), models.compactMap { $0.sensor.map { Double($0.offset) } }, "\(name) sensor offset")
            let prices = models.map(\.price)
            #expect(try fresh.fetchAverage(descriptor, of: \.price) == (prices.isEmpty ? nil : prices.reduce(0, +) / Decimal(prices.count)), "\(name) price")

            #expect(try fresh.fetchMin(descriptor, of: \.count) == models.map(\.count).min(), "\(name) count")
            #expect(try fresh.fetchMax(descriptor, of: \.count) == models.map(\.count).max(), "\(name) count")
            #expect(try fresh.fetchMin(descriptor, of: \.small) == models.map(\.small).min(), "\(name) small")
            #expect(try fresh.fetchMax(descriptor, of: \.bonus) == models.compactMap(\.bonus).max(), "\(name) bonus")
            #expect(try fresh.fetchMin(descriptor, of: \.weight) == models.compactMap(\.weight).min(), "\(name) weight")
            #expect(try fresh.fetchMax(descriptor, of: \.weight) == models.compactMap(\.weight).max(), "\(name) weight")
            #expect(try fresh.fetchMin(descriptor, of: \.ratio) == models.map(\.ratio).min(), "\(name) ratio")
            #expect(try fresh.fetchMin(descriptor, of: \.price) == models.map(\.price).min(), "\(name) price")
            #expect(try fresh.fetchMax(descriptor, of: \.price) == models.map(\.price).max(), "\(name) price")
            #expect(try fresh.fetchMin(descriptor, of: \.unsigned) == models.map(\.unsigned).min(), "\(name) unsigned")
            #expect(try fresh.fetchMax(descriptor, of: \.unsigned) == models.map(\.unsigned).max(), "\(name) unsigned")
            #expect(try fresh.fetchMin(descriptor, of: \.label) == models.map(\.label).min(), "\(name) label")
            #expect(try fresh.fetchMax(descriptor, of: \.label) == models.map(\.label).max(), "\(name) label")
            #expect(try fresh.fetchMin(descriptor, of: \.taken) == models.map(\.taken).min(), "\(name) taken")
            #expect(try fresh.fetchMax(descriptor, of: \.taken) == models.map(\.taken).max(), "\(name) taken")
            #expect(try fresh.fetchMin(descriptor, of: \.grade) == models.map(\.grade).min(), "\(name) grade")
            #expect(try fresh.fetchMax(descriptor, of: \.grade) == models.map(\.grade).max(), "\(name) grade")
            #expect(try fresh.fetchMax(descriptor, of: \.sensor?.name) == models.compactMap(\.sensor?.name).max(), "\(name) sensor name")
        }
        withExtendedLifetime(store) {}
    }

    /// Unsaved inserts, edits and deletes count (as for `fetchCount`), unless the descriptor
    /// leaves pending changes out.
    @Test(arguments: StoreKind.allCases)
    func unsavedChangesCount(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        let kept = Reading(count: 10, price: Decimal(string: "0.10")!)
        let edited = Reading(count: 20, price: Decimal(string: "0.20")!)
        let deleted = Reading(count: 30, price: Decimal(string: "0.30")!)
        [kept, edited, deleted].forEach(context.insert)
        try context.save()

        context.insert(Reading(count: 400, price: Decimal(string: "4.00")!))
        edited.count = 25
        edited.price = Decimal(string: "0.25")!
        context.delete(deleted)
        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.count) == 435)
        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.price) == Decimal(string: "4.35")!)
        #expect(try context.fetchSum(FetchDescriptor(predicate: #Predicate<Reading> { $0.count < 100 }), of: \.count) == 35)
        var stored = FetchDescriptor<Reading>()
        stored.includePendingChanges = false
        #expect(try context.fetchSum(stored, of: \.count) == 60)
        #expect(try context.fetchAverage(FetchDescriptor<Reading>(), of: \.count) == 145)
        #expect(try context.fetchAverage(stored, of: \.count) == 20)
        #expect(try context.fetchMax(FetchDescriptor<Reading>(), of: \.count) == 400)
        #expect(try context.fetchMax(stored, of: \.count) == 30)
        #expect(try context.fetchMin(FetchDescriptor<Reading>(), of: \.price) == Decimal(string: "0.10")!)
        try context.save()
        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        #expect(try fresh.fetchSum(FetchDescriptor<Reading>(), of: \.count) == 435)
    }

    /// An integer sum beyond `Int.max` throws instead of wrapping or trapping, in the database
    /// and when adding unsaved changes; a sum that fits `Int` but not `Int8` also throws.
    @Test(arguments: StoreKind.allCases)
    func integerOverflowThrows(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        context.insert(Reading(count: .max, small: 100))
        context.insert(Reading(count: 1, small: 100))
        try context.save()
        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        #expect(throws: SwiftDataError.valueOutOfRange) { try fresh.fetchSum(FetchDescriptor<Reading>(), of: \.count) }
        #expect(throws: SwiftDataError.valueOutOfRange) { try fresh.fetchSum(FetchDescriptor<Reading>(), of: \.small) }
        // Below Int.max again once the 1 is left out.
        #expect(try fresh.fetchSum(FetchDescriptor(predicate: #Predicate<Reading> { $0.count > 1 }), of: \.count) == .max)
        fresh.insert(Reading(count: 1))
        #expect(throws: SwiftDataError.valueOutOfRange) { try fresh.fetchSum(FetchDescriptor(predicate: #Predicate<Reading> { $0.count >= 1 }), of: \.count) }
    }

    /// Doubles add as Swift adds them: a NaN, or infinities of both signs, make the sum NaN; an
    /// empty selection and one of only nils sum to zero.
    @Test(arguments: StoreKind.allCases)
    func specialDoublesAndEmptySelections(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        context.insert(Reading(count: 1, weight: .nan))
        context.insert(Reading(count: 2, weight: 1.5))
        context.insert(Reading(count: 3, weight: .infinity))
        context.insert(Reading(count: 4, weight: -.infinity))
        context.insert(Reading(count: 5, weight: nil))
        try context.save()
        let fresh = ModelContext(try store.reopen(AggregateModels.types))
        func sum(_ predicate: Predicate<Reading>) throws -> Double {
            try fresh.fetchSum(FetchDescriptor(predicate: predicate), of: \.weight)
        }
        #expect(try sum(#Predicate { $0.count <= 2 }).isNaN)
        #expect(try sum(#Predicate { $0.count >= 3 }).isNaN)
        #expect(try sum(#Predicate { $0.count == 2 || $0.count == 3 }) == .infinity)
        #expect(try sum(#Predicate { $0.count == 2 || $0.count == 5 }) == 1.5)
        #expect(try sum(#Predicate { $0.count == 5 }) == 0)
        #expect(try sum(#Predicate { $0.count > 5 }) == 0)
        // Averages take NaN in as Swift does; least and greatest values leave it out.
        #expect(try fresh.fetchAverage(FetchDescriptor(predicate: #Predicate<Reading> { $0.count <= 2 }), of: \.weight)?.isNaN == true)
        #expect(try fresh.fetchAverage(FetchDescriptor(predicate: #Predicate<Reading> { $0.count == 2 || $0.count == 5 }), of: \.weight) == 1.5)
        #expect(try fresh.fetchAverage(FetchDescriptor(predicate: #Predicate<Reading> { $0.count == 5 }), of: \.weight) == nil)
        #expect(try fresh.fetchMin(FetchDescriptor<Reading>(), of: \.weight) == -.infinity)
        #expect(try fresh.fetchMax(FetchDescriptor<Reading>(), of: \.weight) == .infinity)
        #expect(try fresh.fetchMax(FetchDescriptor(predicate: #Predicate<Reading> { $0.count <= 2 }), of: \.weight) == 1.5)
        #expect(try fresh.fetchMin(FetchDescriptor(predicate: #Predicate<Reading> { $0.count == 1 }), of: \.weight) == nil)
    }

    /// What cannot be added up is refused by name.
    @Test(arguments: StoreKind.allCases)
    func relationshipsAreRefused(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        do {
            _ = try context.fetchSum(FetchDescriptor<Reading>(), of: \.computedTotal)
            Issue.record("a computed property was summed")
        } catch let error as SwiftDataError {
            #expect(error.code == .unsupportedKeyPath)
            #expect(error.message.contains("Reading"))
        }
    }
}

extension Reading {
    /// Not persisted: an aggregate cannot read it.
    var computedTotal: Int { count + (bonus ?? 0) }
}
