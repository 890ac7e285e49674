import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Aggregates per group, on every store: the oracle is the same descriptor fetched and grouped
/// in Swift (`Dictionary(grouping:)`) — groups through a to-one relationship with a `nil` group,
/// groups that are the related models themselves,
/// strings grouped as Swift compares them, enum and optional keys, limits, empty results and
/// this context's unsaved changes.
@Suite struct GroupedAggregateTests {
    /// The sum Swift computes for each group, `nil` where one overflows.
    static func integerSums<K: Hashable, V: FixedWidthInteger>(_ groups: [K: [Reading]], _ value: (Reading) -> V?) -> [K: V]? {
        var sums: [K: V] = [:]
        for (key, models) in groups {
            guard let sum = AggregateTests.integerSum(models.map(value)) else { return nil }
            sums[key] = sum
        }
        return sums
    }

    static func expectIntegerSums<K: Hashable, V: FixedWidthInteger>(_ name: String, _ groups: [K: [Reading]], _ sums: () throws -> [K: V], _ value: (Reading) -> V?) {
        if let expected = integerSums(groups, value) {
            #expect((try? sums()) == expected, "\(name)")
        } else {
            #expect(throws: SwiftDataError.valueOutOfRange, "\(name)") { try sums() }
        }
    }

    static func expectAverages<K: Hashable>(_ actual: [K: Double], _ groups: [K: [Reading]], _ value: (Reading) -> Double?, _ name: String) {
        let expected = groups.compactMapValues { models -> [Double]? in
            let values = models.compactMap(value)
            return values.isEmpty ? nil : values
        }
        #expect(Set(actual.keys) == Set(expected.keys), "\(name): groups \(actual.keys.map { "\($0)" }) against \(expected.keys.map { "\($0)" })")
        for (key, values) in expected {
            AggregateTests.expectAverage(actual[key], values, "\(name) [\(key)]")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func groupedAggregatesMatchFetchingAndGrouping(_ kind: StoreKind) throws {
        let (store, fresh) = try AggregateTests.seeded(kind)
        for (name, descriptor) in AggregateTests.descriptors {
            let models = try fresh.fetch(descriptor)
            let bySensor = Dictionary(grouping: models) { $0.sensor?.name }
            #expect(try fresh.fetchCount(descriptor, groupedBy: \.sensor?.name) == bySensor.mapValues(\.count), "\(name)")
            Self.expectIntegerSums("\(name) count by sensor", bySensor, { try fresh.fetchSum(descriptor, of: \.count, groupedBy: \.sensor?.name) }, { $0.count })
            Self.expectIntegerSums("\(name) bonus by sensor", bySensor, { try fresh.fetchSum(descriptor, of: \.bonus, groupedBy: \.sensor?.name) }, { $0.bonus })
            Self.expectIntegerSums("\(name) unsigned by sensor", bySensor, { try fresh.fetchSum(descriptor, of: \.unsigned, groupedBy: \.sensor?.name) }, { $0.unsigned })
            #expect(try fresh.fetchSum(descriptor, of: \.price, groupedBy: \.sensor?.name) == bySensor.mapValues { $0.reduce(0) { $0 + $1.price } }, "\(name) price")
            let weights = try fresh.fetchSum(descriptor, of: \.weight, groupedBy: \.sensor?.name)
            #expect(Set(weights.keys) == Set(bySensor.keys), "\(name) weight groups")
            for (key, group) in bySensor {
                AggregateTests.expectClose(weights[key] ?? .nan, group.map(\.weight), "\(name) weight [\(String(describing: key))]")
            }
            Self.expectAverages(try fresh.fetchAverage(descriptor, of: \.count, groupedBy: \.sensor?.name), bySensor, { Double($0.count) }, "\(name) average count")
            Self.expectAverages(try fresh.fetchAverage(descriptor, of: \.weight, groupedBy: \.sensor?.name), bySensor, \.weight, "\(name) average weight")
            #expect(try fresh.fetchAverage(descriptor, of: \.price, groupedBy: \.sensor?.name) == bySensor.mapValues { $0.reduce(0) { $0 + $1.price } / Decimal($0.count) }, "\(name) average price")
            #expect(try fresh.fetchMin(descriptor, of: \.count, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.map(\.count).min() }, "\(name) min count")
            #expect(try fresh.fetchMax(descriptor, of: \.weight, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.compactMap(\.weight).max() }, "\(name) max weight")
            #expect(try fresh.fetchMin(descriptor, of: \.price, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.map(\.price).min() }, "\(name) min price")
            #expect(try fresh.fetchMax(descriptor, of: \.label, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.map(\.label).max() }, "\(name) max label")
            #expect(try fresh.fetchMax(descriptor, of: \.grade, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.map(\.grade).max() }, "\(name) max grade")
            #expect(try fresh.fetchMin(descriptor, of: \.taken, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.map(\.taken).min() }, "\(name) min taken")
            #expect(try fresh.fetchMax(descriptor, of: \.unsigned, groupedBy: \.sensor?.name) == bySensor.compactMapValues { $0.map(\.unsigned).max() }, "\(name) max unsigned")

            // Other kinds of key: strings (two canonically equal), enums, small and optional integers.
            let byLabel = Dictionary(grouping: models, by: \.label)
            #expect(try fresh.fetchCount(descriptor, groupedBy: \.label) == byLabel.mapValues(\.count), "\(name) by label")
            Self.expectIntegerSums("\(name) count by label", byLabel, { try fresh.fetchSum(descriptor, of: \.count, groupedBy: \.label) }, { $0.count })
            let byGrade = Dictionary(grouping: models, by: \.grade)
            #expect(try fresh.fetchCount(descriptor, groupedBy: \.grade) == byGrade.mapValues(\.count), "\(name) by grade")
            #expect(try fresh.fetchMax(descriptor, of: \.label, groupedBy: \.grade) == byGrade.compactMapValues { $0.map(\.label).max() }, "\(name) max label by grade")
            let bySmall = Dictionary(grouping: models, by: \.small)
            Self.expectIntegerSums("\(name) small by small", bySmall, { try fresh.fetchSum(descriptor, of: \.small, groupedBy: \.small) }, { $0.small })
            let byBonus = Dictionary(grouping: models, by: \.bonus)
            Self.expectAverages(try fresh.fetchAverage(descriptor, of: \.ratio, groupedBy: \.bonus), byBonus, { Double($0.ratio) }, "\(name) average ratio by bonus")
            // The related models themselves, the same instances the context's fetch gives.
            let byModel = Dictionary(grouping: models) { $0.sensor }
            #expect(try fresh.fetchCount(descriptor, groupedBy: \.sensor) == byModel.mapValues(\.count), "\(name) by sensor model")
            Self.expectIntegerSums("\(name) count by sensor model", byModel, { try fresh.fetchSum(descriptor, of: \.count, groupedBy: \.sensor) }, { $0.count })
            #expect(try fresh.fetchMax(descriptor, of: \.label, groupedBy: \.sensor) == byModel.compactMapValues { $0.map(\.label).max() }, "\(name) max label by sensor model")
            let byOffset = Dictionary(grouping: models) { $0.sensor?.offset }
            #expect(try fresh.fetchMin(descriptor, of: \.label, groupedBy: \.sensor?.offset) == byOffset.compactMapValues { $0.map(\.label).min() }, "\(name) min label by sensor offset")
        }
        withExtendedLifetime(store) {}
    }

    /// Unsaved inserts, edits and deletes count — also an unsaved edit of the related model a
    /// key is read from — unless the descriptor leaves pending changes out.
    @Test(arguments: StoreKind.allCases)
    func unsavedChangesCount(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        let north = Sensor(name: "north", offset: 1), south = Sensor(name: "south", offset: 2)
        let kept = Reading(count: 10, sensor: north)
        let edited = Reading(count: 20, sensor: north)
        let deleted = Reading(count: 30, sensor: south)
        [kept, edited, deleted].forEach(context.insert)
        try context.save()

        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.count, groupedBy: \.sensor?.name) == ["north": 30, "south": 30])
        context.insert(Reading(count: 400))
        edited.count = 25
        context.delete(deleted)
        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.count, groupedBy: \.sensor?.name) == ["north": 35, nil: 400])
        #expect(try context.fetchCount(FetchDescriptor<Reading>(), groupedBy: \.sensor?.name) == ["north": 2, nil: 1])
        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.count, groupedBy: \.sensor) == [north: 35, nil: 400])
        var stored = FetchDescriptor<Reading>()
        stored.includePendingChanges = false
        #expect(try context.fetchSum(stored, of: \.count, groupedBy: \.sensor?.name) == ["north": 30, "south": 30])
        #expect(try context.fetchSum(stored, of: \.count, groupedBy: \.sensor) == [north: 30, south: 30])
        try context.save()

        north.name = "east"
        #expect(try context.fetchMax(FetchDescriptor<Reading>(), of: \.count, groupedBy: \.sensor?.name) == ["east": 25, nil: 400])
        #expect(try context.fetchMax(stored, of: \.count, groupedBy: \.sensor?.name) == ["north": 25, nil: 400])
    }

    /// An empty selection has no groups; a group key that is neither a persisted attribute nor
    /// a to-one relationship is refused by name.
    @Test(arguments: StoreKind.allCases)
    func emptySelectionsAndBadKeys(_ kind: StoreKind) throws {
        let store = try TestStore(kind, AggregateModels.types)
        let context = store.context()
        #expect(try context.fetchCount(FetchDescriptor<Reading>(), groupedBy: \.sensor?.name).isEmpty)
        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.count, groupedBy: \.grade).isEmpty)
        #expect(try context.fetchAverage(FetchDescriptor<Reading>(), of: \.weight, groupedBy: \.label).isEmpty)
        context.insert(Reading(count: 1, weight: nil, label: "x"))
        try context.save()
        // A group whose values are all nil sums to zero and has no average.
        #expect(try context.fetchSum(FetchDescriptor<Reading>(), of: \.weight, groupedBy: \.label) == ["x": 0])
        #expect(try context.fetchAverage(FetchDescriptor<Reading>(), of: \.weight, groupedBy: \.label).isEmpty)
        do {
            _ = try context.fetchCount(FetchDescriptor<Sensor>(), groupedBy: \.readings)
            Issue.record("grouped by a to-many relationship")
        } catch let error as SwiftDataError {
            #expect(error.code == .unsupportedKeyPath)
            #expect(error.message.contains("Sensor.readings"))
        }
        do {
            _ = try context.fetchCount(FetchDescriptor<Reading>(), groupedBy: \.computedTotal)
            Issue.record("grouped by a computed property")
        } catch let error as SwiftDataError {
            #expect(error.code == .unsupportedKeyPath)
        }
    }
}
