import Foundation

/// A context's count, per relationship, of the models whose relationship it loaded one at a time
/// (one query each) since it last fetched their entity — the N+1 pattern of a loop over results —
/// so that it warns once per relationship when the count reaches the store's threshold
/// (``QueryInsight``).
struct RowByRowFaults {
    private struct Key: Hashable {
        let layout: ObjectIdentifier
        let property: Int
    }

    private var counts: [Key: Int] = [:]
    private var warned: Set<Key> = []

    /// Notes one more model whose `property` (of `layout`) was loaded alone; `true` when this one
    /// reaches `threshold` and the relationship was not warned of before.
    mutating func note(_ layout: ModelLayout, _ property: PropertyLayout, threshold: Int) -> Bool {
        let key = Key(layout: ObjectIdentifier(layout), property: property.index)
        let count = counts[key, default: 0] + 1
        counts[key] = count
        guard count >= max(threshold, 1), !warned.contains(key) else { return false }
        warned.insert(key)
        return true
    }

    /// A fetch of `layout`'s models starts a new loop over them: their counts start again.
    mutating func fetched(_ layout: ModelLayout) {
        guard !counts.isEmpty else { return }
        let fetched = ObjectIdentifier(layout)
        counts = counts.filter { $0.key.layout != fetched }
    }
}
