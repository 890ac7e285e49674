import Foundation

/// Persistent history in a Core Data file, read as ``HistoryRecord``s: `ATRANSACTION` holds one
/// row per saved transaction (`ZTIMESTAMP` in seconds since 2001; author, bundle and process as
/// numbers of `ATRANSACTIONSTRING` rows in the `…TS` columns, or as text in the plain ones), and
/// `ACHANGE` one row per changed object (`ZCHANGETYPE` 0 insert, 1 update, 2 delete; `ZENTITY` the
/// entity's number, `ZENTITYPK` its key, `ZTRANSACTIONID` the transaction, and for an update
/// `ZCOLUMNS`, a bit per property of the entity in name order, the first property in the highest
/// bit of the first byte).
extension SQLStore {
    static let coreDataTransactionTable = "ATRANSACTION"
    static let coreDataChangeTable = "ACHANGE"
    static let coreDataStringTable = "ATRANSACTIONSTRING"

    /// A transaction's timestamp or author in `ATRANSACTION` under `alias`.
    static func coreDataHistoryColumn(_ column: HistoryColumn, alias: String) -> SQLExpression {
        switch column {
        case .timestamp: return .column(table: alias, name: "ZTIMESTAMP")
        case .author: return coreDataString(alias: alias, "ZAUTHOR")
        }
    }

    /// The text of a transaction's string column `name`: the row of `ATRANSACTIONSTRING` its
    /// `…TS` column numbers, or its own text.
    private static func coreDataString(alias: String, _ name: String) -> SQLExpression {
        let s = "\(alias)s\(name.count)"
        let numbered = SQLSelect(
            columns: [.column(table: s, name: "ZNAME")],
            from: SQLTableReference(table: coreDataStringTable, alias: s),
            whereClause: .binary(.column(table: s, name: "Z_PK"), .equal, .column(table: alias, name: name + "TS")))
        return .function(.coalesce, [.subquery(numbered), .column(table: alias, name: name)])
    }

    func fetchCoreDataHistory(_ query: HistoryQuery, map: CoreDataModelMap) throws -> [HistoryRecord] {
        try read { connection in
            let t = "t"
            let select = SQLSelect(
                columns: [.column(table: t, name: "Z_PK"), .column(table: t, name: "ZTIMESTAMP")]
                    + ["ZAUTHOR", "ZBUNDLEID", "ZPROCESSID"].map { Self.coreDataString(alias: t, $0) },
                from: SQLTableReference(table: Self.coreDataTransactionTable, alias: t),
                whereClause: historyCondition(query.condition, alias: t),
                orderBy: [SQLOrdering(expression: .column(table: t, name: "Z_PK"), ascending: true)],
                limit: query.limit)
            var records: [HistoryRecord] = []
            try self.query(select, on: connection) { row in
                func text(_ column: Int32) -> String? { row.storageClass(at: column) == .text ? row.text(at: column) : nil }
                records.append(HistoryRecord(
                    transaction: row.int64(at: 0), timestamp: Date(timeIntervalSinceReferenceDate: row.double(at: 1)),
                    author: text(2), bundleIdentifier: text(3) ?? "", processIdentifier: text(4) ?? "",
                    storeIdentifier: identifier, groups: []))
            }
            try readCoreDataChanges(into: &records, map: map, on: connection)
            if let after = query.tokensAfter.min() {
                // Core Data numbers transactions from 1 and keeps no record of deletions: history
                // after `after` is incomplete when its oldest remaining transaction is later.
                var oldest: Int64?
                let first = SQLSelect(columns: [.function(.min, [.column(table: t, name: "Z_PK")])], from: SQLTableReference(table: Self.coreDataTransactionTable, alias: t))
                try self.query(first, on: connection) { row in oldest = row.isNull(at: 0) ? nil : row.int64(at: 0) }
                if let oldest, after < oldest - 1 {
                    throw SwiftDataError(.historyTokenExpired, "the history token stands after transaction \(after) of the store \(name), but its history now starts at transaction \(oldest), so changes in between are lost; fetch the data itself again, and continue from the newest token")
                }
            }
            return records
        }
    }

    /// Deletes the transactions whose `ATRANSACTION` row meets `condition` (unqualified columns)
    /// and their `ACHANGE` rows. Core Data keeps no record of deleted history: a token before the
    /// oldest remaining transaction is found expired by that gap (``fetchCoreDataHistory(_:map:)``).
    func deleteCoreDataHistory(where condition: SQLExpression?, on connection: any SQLConnection) throws {
        let numbers = SQLSelect(columns: [.column(table: "", name: "Z_PK")], from: SQLTableReference(table: Self.coreDataTransactionTable, alias: "h"), whereClause: condition)
        try run(.delete(table: Self.coreDataChangeTable, whereClause: condition == nil ? nil : .inSelect(.column(table: "", name: "ZTRANSACTIONID"), numbers)), on: connection)
        try run(.delete(table: Self.coreDataTransactionTable, whereClause: condition), on: connection)
    }

    /// Adds their changes to `records` (ascending by number), one group per run of changes of one
    /// kind, entity and set of properties.
    private func readCoreDataChanges(into records: inout [HistoryRecord], map: CoreDataModelMap, on connection: any SQLConnection) throws {
        guard !records.isEmpty else { return }
        var position: [Int64: Int] = [:]
        for (index, record) in records.enumerated() { position[record.transaction] = index }
        let c = "c"
        let number = SQLExpression.column(table: c, name: "ZTRANSACTIONID")
        for chunk in records.map(\.transaction).chunked(Self.keyChunk) {
            let select = SQLSelect(
                columns: ["ZTRANSACTIONID", "ZCHANGETYPE", "ZENTITY", "ZENTITYPK", "ZCOLUMNS"].map { .column(table: c, name: $0) },
                from: SQLTableReference(table: Self.coreDataChangeTable, alias: c),
                whereClause: .in(number, chunk.map { .bind(.integer($0)) }),
                orderBy: [SQLOrdering(expression: number, ascending: true), SQLOrdering(expression: .column(table: c, name: "Z_PK"), ascending: true)])
            try query(select, on: connection) { row in
                guard let index = position[row.int64(at: 0)] else { return }
                let entityNumber = row.int64(at: 2)
                guard let kind = HistoryChangeGroup.Kind(rawValue: row.int64(at: 1)), let entity = map.entityNames[entityNumber] else {
                    throw SwiftDataError(.storeIO, "the history of the store \(name) has a change of transaction \(row.int64(at: 0)) it cannot read (type \(row.int64(at: 1)), entity \(entityNumber)); the file is damaged or from a newer Core Data")
                }
                var properties: [String] = []
                if kind == .update, case .blob(let bits) = row.value(at: 4), let names = map.historyProperties[entity] {
                    for (byteIndex, byte) in bits.enumerated() where byte != 0 {
                        for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                            let property = byteIndex * 8 + bit
                            if property < names.count { properties.append(names[property]) }
                        }
                    }
                }
                let key = row.int64(at: 3)
                if var last = records[index].groups.last, last.kind == kind, last.entityName == entity, last.properties == properties {
                    last.keys.append(key)
                    records[index].groups[records[index].groups.count - 1] = last
                } else {
                    records[index].groups.append(HistoryChangeGroup(kind: kind, entityName: entity, keys: [key], properties: properties))
                }
            }
        }
    }
}
