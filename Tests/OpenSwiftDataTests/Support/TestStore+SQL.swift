import Foundation
import StoreTestSupport
@testable import OpenSwiftData

extension TestStore {
    /// The SQL the store runs while `body` runs.
    func sql(_ body: () throws -> Void) rethrows -> [RenderedSQL] {
        guard let store = container.stores[0] as? SQLStore else { try body(); return [] }
        store.startTracing()
        defer { store.stopTracing() }
        try body()
        return store.stopTracing()
    }
}

extension Array where Element == RenderedSQL {
    /// The statement texts, for assertions.
    var texts: [String] { map(\.text) }

    /// Statements whose text starts with `prefix` (`"UPDATE"`, `"SELECT"`…).
    func starting(with prefix: String) -> [RenderedSQL] { filter { $0.text.hasPrefix(prefix) } }
}
