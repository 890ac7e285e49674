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
