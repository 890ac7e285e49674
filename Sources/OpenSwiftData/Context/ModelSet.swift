/// An insertion-ordered set of models, keyed by object identity.
struct ModelSet {
    private var positions: [ObjectIdentifier: Int] = [:]
    private var items: [(any PersistentModel)?] = []

    var count: Int { positions.count }
    var isEmpty: Bool { positions.isEmpty }

    func contains(_ model: any PersistentModel) -> Bool {
        positions[ObjectIdentifier(model)] != nil
    }

    mutating func insert(_ model: any PersistentModel) {
        let key = ObjectIdentifier(model)
        guard positions[key] == nil else { return }
        positions[key] = items.count
        items.append(model)
    }

    mutating func remove(_ model: any PersistentModel) {
        guard let position = positions.removeValue(forKey: ObjectIdentifier(model)) else { return }
        items[position] = nil
        if items.count > 64 && positions.count * 2 < items.count { compact() }
    }

    mutating func removeAll() {
        positions.removeAll()
        items.removeAll()
    }

    /// The models in insertion order.
    var all: [any PersistentModel] { items.compactMap { $0 } }

    private mutating func compact() {
        items = items.filter { $0 != nil }
        positions.removeAll(keepingCapacity: true)
        for (position, item) in items.enumerated() {
            if let item { positions[ObjectIdentifier(item)] = position }
        }
    }
}

/// A registered model the context does not keep alive: clean models are held weakly, so memory
/// stays flat when a program walks many models; changed ones are also in a strong set until saved.
struct WeakModel {
    weak var model: (any PersistentModel)?
}

/// One entity's identity map: primary key to the one instance of that row in the context.
///
/// Entries of released models are swept in place when the map has doubled since the last sweep,
/// so the cost stays proportional to the models registered.
final class EntityRegistry {
    private var entries: [Int64: WeakModel] = [:]
    private var sweepAt = 1_024

    func model(_ primaryKey: Int64) -> (any PersistentModel)? {
        entries[primaryKey]?.model
    }

    func insert(_ model: any PersistentModel, primaryKey: Int64) {
        entries[primaryKey] = WeakModel(model: model)
        if entries.count >= sweepAt { sweep() }
    }

    func remove(_ primaryKey: Int64) {
        entries.removeValue(forKey: primaryKey)
    }

    var liveModels: [any PersistentModel] {
        entries.values.compactMap(\.model)
    }

    private func sweep() {
        var released: [Int64] = []
        for (key, entry) in entries where entry.model == nil { released.append(key) }
        for key in released { entries.removeValue(forKey: key) }
        sweepAt = max(1_024, entries.count * 2)
    }
}
