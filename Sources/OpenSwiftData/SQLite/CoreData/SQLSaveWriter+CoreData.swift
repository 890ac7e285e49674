import Foundation

/// Saving into a Core Data file (``CoreDataModelMap``) as Core Data itself saves: the history as
/// rows of `ATRANSACTION` (strings shared through `ATRANSACTIONSTRING`) and `ACHANGE`, each numbered
/// by its own counter in `Z_PRIMARYKEY`. Keys (from the top entity's `Z_MAX`) and the rows
/// themselves (`Z_ENT`, `Z_OPT`) are written by the shared writer through ``CoreDataTableFormat``.
///
/// The statements name Core Data's fixed tables and columns directly: they are not entity or
/// property names, which the dialect renames.
extension SQLSaveWriter {
    /// Reserves `count` numbers from the counter of Core Data's own entity `name` and returns the last.
    private func reserveCoreDataNumbers(_ count: Int64, of name: String, map: CoreDataModelMap) throws -> Int64 {
        var last: Int64?
        if let entity = map.internalEntityNumber(name) {
            try store.query("UPDATE Z_PRIMARYKEY SET Z_MAX = COALESCE(Z_MAX, 0) + ? WHERE Z_ENT = ? RETURNING Z_MAX", bindings: [.integer(count), .integer(entity)], on: connection) { row in
                last = try reservedLast(row, count: count, counter: "Z_MAX of \(name)")
            }
        }
        guard let last else {
            throw SwiftDataError(.storeIO, "the Core Data file of the store \(store.name) has history tables but no counter for \(name) in Z_PRIMARYKEY; it is damaged; nothing was saved")
        }
        return last
    }

    /// Records the save as one Core Data history transaction: a row of `ATRANSACTION` (time in
    /// seconds since 2001; author, bundle and process as numbers of shared `ATRANSACTIONSTRING`
    /// rows) and a row of `ACHANGE` per inserted, updated or deleted object (type 0, 1 or 2, the
    /// object's entity number and key, and for an update the bits of its changed properties).
    func writeCoreDataHistory(_ groups: [HistoryChangeGroup], map: CoreDataModelMap) throws {
        let number = try reserveCoreDataNumbers(1, of: "TRANSACTION", map: map)
        let author = HistoryAuthor.current(changes.author)
        // Core Data records the process by name.
        let process = ProcessInfo.processInfo.processName
        let strings = try [author.author, author.bundleIdentifier, process].map { text -> StoredValue in
            guard let text, !text.isEmpty else { return .null }
            return .integer(try transactionString(text, map: map))
        }
        try store.execute(
            "INSERT INTO ATRANSACTION (Z_PK, Z_ENT, ZAUTHORTS, ZBUNDLEIDTS, ZPROCESSIDTS, ZTIMESTAMP) VALUES (?, ?, ?, ?, ?, ?)",
            bindings: [.integer(number), .integer(map.internalEntityNumber("TRANSACTION") ?? 0)] + strings + [.real(Date().timeIntervalSinceReferenceDate)],
            on: connection)

        let count = groups.reduce(0) { $0 + Int64($1.keys.count) }
        let first = try reserveCoreDataNumbers(count, of: "CHANGE", map: map) - count + 1
        let changeEntity = StoredValue.integer(map.internalEntityNumber("CHANGE") ?? 0)
        // Per group once: its type, entity number and changed-column bits; then a row per key,
        // bound as it is inserted.
        let shared = groups.map { group -> [StoredValue] in
            let columns = group.kind == .update ? Self.changedColumns(group.properties, of: map.historyProperties[group.entityName] ?? []) : .null
            return [.integer(group.kind.rawValue), .integer(map.entityNumbers[group.entityName] ?? 0), columns]
        }
        let changes = groups.indices.lazy.flatMap { index in groups[index].keys.lazy.map { (index, $0) } }.enumerated()
        try store.insertEach(
            into: "ACHANGE", columns: ["Z_PK", "Z_ENT", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZTRANSACTIONID", "ZCOLUMNS"],
            changes, on: connection) { change, values in
                let (offset, (group, key)) = change
                let row = shared[group]
                values.append(.integer(first + Int64(offset)))
                values.append(changeEntity)
                values.append(row[0])
                values.append(row[1])
                values.append(.integer(key))
                values.append(.integer(number))
                values.append(row[2])
            }
    }

    /// `ZCOLUMNS` of an update: a bit per property of the entity in name order, the first in the
    /// highest bit of the first byte (``SQLStore/fetchCoreDataHistory(_:map:)`` reads it back).
    static func changedColumns(_ changed: [String], of names: [String]) -> StoredValue {
        guard !names.isEmpty else { return .null }
        var bytes = [UInt8](repeating: 0, count: (names.count + 7) / 8)
        for name in changed {
            guard let index = names.firstIndex(of: name) else { continue }
            bytes[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return .blob(Data(bytes))
    }

    /// The number of the `ATRANSACTIONSTRING` row holding `text`, added if there is none yet.
    private func transactionString(_ text: String, map: CoreDataModelMap) throws -> Int64 {
        var found: Int64?
        try store.query("SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?", bindings: [.text(text)], on: connection) { row in found = row.int64(at: 0) }
        if let found { return found }
        let number = try reserveCoreDataNumbers(1, of: "TRANSACTIONSTRING", map: map)
        try store.execute(
            "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, ZNAME) VALUES (?, ?, ?)",
            bindings: [.integer(number), .integer(map.internalEntityNumber("TRANSACTIONSTRING") ?? 0), .text(text)], on: connection)
        return number
    }
}
