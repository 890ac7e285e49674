import Foundation

/// What a new row of a save is, by its entity's unique constraints (`@Attribute(.unique)`,
/// `#Unique`): SwiftData's upsert rule, decided here once for every store — the SQL stores look
/// the stored rows up in SQL, the bridge to custom stores among their snapshots.
enum UniqueMatch: Equatable {
    /// A stored row holds the same values of a constraint: the new row updates it.
    case existing(Int64)
    /// An earlier new row of the same group (by position) holds them: the two are one row, and
    /// the later one's values are written over the earlier one's.
    case sameAs(Int)
    /// A row of its own.
    case new

    /// The match of each row of `group`, in order. A constraint none of whose values is `nil` is
    /// looked for among the group's earlier rows, then by `existing` (the constraint's slots and
    /// the row's values for them; the stored row's key, or `nil`). A constraint with a `nil`
    /// value matches nothing, as in SQL.
    static func matches(_ group: RowInserts, existing: (_ constraint: [Int], _ values: [StoredValue], _ position: Int) throws -> Int64?) rethrows -> [UniqueMatch] {
        let layout = group.layout
        let constraints = layout.uniquenessConstraints
        guard !constraints.isEmpty else { return Array(repeating: .new, count: group.count) }
        let width = layout.storedSlots.count
        // Each constraint's columns among the row's values.
        let positions = constraints.map { constraint in constraint.compactMap { layout.storedSlots.firstIndex(of: $0) } }
        var matches: [UniqueMatch] = []
        matches.reserveCapacity(group.count)
        var seen: [[StoredValue]: Int] = [:]
        for position in 0..<group.count {
            let base = position * width
            let rowValues = positions.map { $0.map { group.values[base + $0] } }
            var match = UniqueMatch.new
            // Rows saved for another owner match only that owner's.
            let owner: [StoredValue] = group.owners[position].map { [.text($0)] } ?? []
            for (index, values) in rowValues.enumerated() where !values.contains(where: \.isNull) {
                if let earlier = seen[[.integer(Int64(index))] + owner + values] {
                    match = .sameAs(earlier)
                    break
                }
                if let key = try existing(constraints[index], values, position) {
                    match = .existing(key)
                    break
                }
            }
            matches.append(match)
            for (index, values) in rowValues.enumerated() where !values.contains(where: \.isNull) {
                let lookup = [.integer(Int64(index))] + owner + values
                if seen[lookup] == nil { seen[lookup] = position }
            }
        }
        return matches
    }
}
