/// An insertion-ordered set of models, keyed by object identity.
///
/// Each model's position in the set is kept in its backing data (one field per kind of set), so
/// membership needs no hashing; an entry counts only if the position points back at the model,
/// so a stale position (the model moved to another context) is harmless.
struct ModelSet {
    /// Which of a context's sets this is: it picks the backing data field holding the position.
    enum Kind {
        case inserted, changed, deleted
    }

    let kind: Kind
    private var items: [(any PersistentModel)?] = []
    private(set) var count = 0

    init(_ kind: Kind) {
        self.kind = kind
    }

    var isEmpty: Bool { count == 0 }

    private func position(of data: BackingData) -> Int {
        switch kind {
        case .inserted: return data.setPositions.inserted
        case .changed: return data.setPositions.changed
        case .deleted: return data.setPositions.deleted
        }
    }

    private func setPosition(_ position: Int, of data: BackingData) {
        switch kind {
        case .inserted: data.setPositions.inserted = position
        case .changed: data.setPositions.changed = position
        case .deleted: data.setPositions.deleted = position
        }
    }

    private func index(of model: any PersistentModel) -> Int? {
        let position = position(of: model.persistentBackingData)
        guard position >= 0, position < items.count, let item = items[position], item === model else { return nil }
        return position
    }

    func contains(_ model: any PersistentModel) -> Bool {
        index(of: model) != nil
    }

    mutating func insert(_ model: any PersistentModel) {
        guard index(of: model) == nil else { return }
        setPosition(items.count, of: model.persistentBackingData)
        items.append(model)
        count += 1
    }

    mutating func remove(_ model: any PersistentModel) {
        guard let position = index(of: model) else { return }
        items[position] = nil
        setPosition(-1, of: model.persistentBackingData)
        count -= 1
        if items.count > 64 && count * 2 < items.count { compact() }
    }

    /// Empties the set. Positions left in backing data no longer point at their model, so they
    /// need no clearing (that would touch every model once more).
    mutating func removeAll() {
        items.removeAll()
        count = 0
    }

    /// The models in insertion order.
    var all: [any PersistentModel] { items.compactMap { $0 } }

    /// Calls `body` with each model in insertion order, without copying the set.
    func forEach(_ body: (any PersistentModel) throws -> Void) rethrows {
        for case let model? in items { try body(model) }
    }

    private mutating func compact() {
        items = items.filter { $0 != nil }
        for (position, item) in items.enumerated() {
            if let item { setPosition(position, of: item.persistentBackingData) }
        }
    }
}
