import Foundation
import Testing
#if canImport(SwiftData)
import SwiftData
#endif

/// A name every model of a kind has, as data layers declare it to write one fetch for many models.
protocol Named {
    var name: String { get }
}

extension Library: Named {}

/// Predicates and sorts written once for any model with a protocol's property: the key path
/// reaches the stored property through the protocol's requirement (its witness).
@Suite struct GenericPredicateTests {
    static func find<T: PersistentModel & Named>(_ name: String, in context: ModelContext) throws -> [T] {
        try context.fetch(FetchDescriptor<T>(predicate: #Predicate { $0.name == name }))
    }

    static func sorted<T: PersistentModel & Named>(_ type: T.Type, in context: ModelContext) throws -> [T] {
        try context.fetch(FetchDescriptor<T>(sortBy: [SortDescriptor(\T.name, order: .reverse)]))
    }

    @Test func aPredicateThroughAProtocolRequirementRunsOnTheStoredProperty() throws {
        let (container, _) = try TestContainer.make()
        let context = ModelContext(container)
        context.insert(Library(code: "L1", name: "Central"))
        context.insert(Library(code: "L2", name: "Harbour"))
        try context.save()
        let found: [Library] = try Self.find("Harbour", in: ModelContext(container))
        #expect(found.map(\.code) == ["L2"])
        #expect(try Self.sorted(Library.self, in: ModelContext(container)).map(\.name) == ["Harbour", "Central"])
    }
}
