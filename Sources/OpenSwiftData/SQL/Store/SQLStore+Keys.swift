import Foundation

/// Numbers from the counters in `Z_PRIMARYKEY`: new rows' keys, and (with one writer at a time)
/// history transaction numbers.
extension SQLStore {
    /// Adds `count` to the counter `name` and returns its new value, the last number reserved;
    /// `nil` if there is no such counter. Inside a transaction, the row stays locked until the
    /// commit.
    func reserve(_ count: Int64, from name: String, on connection: any SQLConnection) throws -> Int64? {
        let q = dialect.quote, p = dialect.placeholder
        let text = "UPDATE \(q(Self.primaryKeyTable)) SET \(q("Z_MAX")) = \(q("Z_MAX")) + \(p(1)) WHERE \(q("Z_ENTITY")) = \(p(2)) RETURNING \(q("Z_MAX"))"
        var last: Int64?
        try query(text, bindings: [.integer(count), .text(name)], on: connection) { row in last = try reservedLast(row, count: count, counter: name) }
        return last
    }

    /// The last number a counter update reserved, checked: a counter another program set near
    /// `Int64.max` (which SQLite then turns into a floating-point number) or below zero would
    /// hand out keys that overflow or collide, so it is refused, and nothing is saved.
    func reservedLast(_ row: any StoredRow, count: Int64, counter: String) throws -> Int64 {
        guard case .integer(let last) = row.value(at: 0), last >= count else {
            throw SwiftDataError(.storeIO, "the store \(name)'s counter \(counter) in \(Self.primaryKeyTable) holds \(row.value(at: 0)) after reserving \(count) more, which is not a key this store can give (it is exhausted, or another program changed it); nothing was saved")
        }
        return last
    }

    /// Before a save's transaction begins on `connection` (each statement commits by itself):
    /// where writers run at once, takes the keys of the models the save inserts from
    /// ``keyBlocks``, which reserves blocks as needed (see ``KeyBlocks``). Per counter, the keys
    /// taken (consecutive, ending at `last`); empty where keys are reserved inside the save.
    func reserveKeyBlocks(for changes: ValueChangeSet, on connection: any SQLConnection) throws -> [String: (next: Int64, last: Int64)] {
        guard engine.writersRunConcurrently, !changes.inserts.isEmpty, format.reservesKeyBlocks else { return [:] }
        var needed: [String: Int64] = [:]
        for group in changes.inserts { needed[group.layout.tableName, default: 0] += Int64(group.count) }
        var taken: [String: (next: Int64, last: Int64)] = [:]
        for (counter, count) in needed.sorted(by: { $0.key < $1.key }) {
            guard let last = try keyBlocks.take(count, from: counter, reserve: { size in try reserve(size, from: counter, on: connection) }) else { continue }
            taken[counter] = (last - count + 1, last)
        }
        return taken
    }
}
