import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Key paths through to-one relationships (`\.sensor?.name`) resolve to the persisted properties
/// they walk, in debug and optimised builds alike: optimised builds give each key path
/// expression accessors of its own, which `KeyPathProbe` handles by reading the key path on
/// stand-in models. Computed properties are never taken for the persisted ones they read.
@Suite struct KeyPathResolutionTests {
    @Test func readingOnStandInsFindsEachPersistedProperty() throws {
        let layout = ModelLayout.of(Reading.self)
        let chain = try #require(KeyPathProbe.chain(\Reading.sensor?.name, components: 2, from: layout))
        #expect(chain.map(\.name) == ["sensor", "name"])
        #expect(KeyPathProbe.chain(\Reading.sensor?.offset, components: 2, from: layout)?.map(\.name) == ["sensor", "offset"])
        // A to-one relationship itself is the end of a path: the getter hands back the
        // destination's stand-in itself (a protocol requirement naming it reads it so).
        #expect(KeyPathProbe.chain(\Reading.sensor, components: 1, from: layout)?.map(\.name) == ["sensor"])
    }

    @Test func computedPropertiesAreNotTakenForWhatTheyRead() {
        let layout = ModelLayout.of(Reading.self)
        #expect(KeyPathProbe.chain(\Reading.sensor?.shout, components: 2, from: layout) == nil)
        #expect(KeyPathProbe.chain(\Reading.sensor?.offsetTwice, components: 2, from: layout) == nil)
        #expect(KeyPathResolver.chain(\Reading.sensor?.shout, from: layout) == nil)
        let store = try? TestStore(.memory, AggregateModels.types)
        #expect(throws: SwiftDataError.unsupportedKeyPath) {
            _ = try store?.context().fetchCount(FetchDescriptor<Reading>(), groupedBy: \.sensor?.shout)
        }
    }
}

extension Sensor {
    /// Not persisted: reads `name` and changes it.
    var shout: String { name.uppercased() }
    var offsetTwice: Int { offset * 2 }
}

extension Category {
    /// Computed: the stored name as it is.
    var sameName: String { name }
    /// Computed: decides on the stored name (never the same as reading it).
    var shownName: String { name.isEmpty ? "(none)" : name }
}

/// A key path of one component that the model's own do not match — a protocol requirement's
/// witness, or a computed property — reads through a persisted property only where it returns
/// it unchanged; one that transforms or decides on it stays refused by name.
@Suite struct SingleKeyPathProbeTests {
    @Test func aComputedPropertyReturningAStoredOneUnchangedReadsIt() throws {
        let store = try TestStore(.memory, [Expense.self])
        let context = store.context()
        context.insert(Category(name: "Food"))
        context.insert(Category(name: ""))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.sameName == "Food" })).map(\.name) == ["Food"])
        #expect(throws: SwiftDataError.self) {
            try context.fetch(FetchDescriptor<Category>(predicate: #Predicate { $0.shownName == "(none)" }))
        }
    }
}
