import Foundation

/// The changes a context made to a stored model's to-many relationship without loading it: which
/// models joined it and which left, as overrides of the members the store holds.
///
/// Keeping an inverse consistent must not cost more the more members the other side has: setting
/// `expense.category = food` records "expense joined" on `food.expenses` instead of loading all of
/// food's expenses first. Reading the relationship later loads the store's members and merges these
/// changes (``merged(into:)``); a save writes them (pairs of a many-to-many; a one-to-many is
/// written by the other side's key) and the slot is unloaded again.
@usableFromInline
struct PendingMembers {
    /// Which run of changes this is, for undo: an undo within the same run restores an entry
    /// exactly; after a save or a load started another, it applies the opposite change instead.
    let generation: Int
    /// Each changed model, in order of its first change since it was last absent.
    private var order: [any PersistentModel] = []
    /// Whether each changed model is now a member.
    private var membership: [ObjectIdentifier: Bool] = [:]

    init(generation: Int) {
        self.generation = generation
    }

    /// No model joined or left.
    var isEmpty: Bool { membership.isEmpty }

    /// Whether `model` joined (`true`), left (`false`) or is unchanged (`nil`).
    func membership(of model: any PersistentModel) -> Bool? {
        membership[ObjectIdentifier(model)]
    }

    /// Records that `model` joined (`true`) or left (`false`), or forgets its change (`nil`).
    mutating func setMembership(of model: any PersistentModel, to isMember: Bool?) {
        let id = ObjectIdentifier(model)
        guard let isMember else {
            membership[id] = nil
            return
        }
        if membership.updateValue(isMember, forKey: id) == nil { order.append(model) }
    }

    /// The models that joined and those that left, each once, in order of change.
    var changes: (joined: [any PersistentModel], left: [any PersistentModel]) {
        var joined: [any PersistentModel] = [], left: [any PersistentModel] = []
        var seen = Set<ObjectIdentifier>()
        for model in order {
            let id = ObjectIdentifier(model)
            guard let isMember = membership[id], seen.insert(id).inserted else { continue }
            if isMember { joined.append(model) } else { left.append(model) }
        }
        return (joined, left)
    }

    /// The store's members with these changes applied: those that left are left out, those that
    /// joined follow, once.
    func merged(into stored: [any PersistentModel]) -> [any PersistentModel] {
        var result = stored.filter { membership[ObjectIdentifier($0)] != false }
        let present = Set(result.map { ObjectIdentifier($0) })
        result.append(contentsOf: changes.joined.filter { !present.contains(ObjectIdentifier($0)) })
        return result
    }
}
