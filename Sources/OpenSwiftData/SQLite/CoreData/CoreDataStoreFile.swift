import Foundation

/// What a store file in Core Data's SQLite layout holds — the files SwiftData and Core Data write
/// on Apple platforms — read without the app's model declarations: its entities with their
/// tables, columns and row counts, and its latest history.
///
/// The file is opened read-only and left exactly as it was (see ``ModelConfiguration`` for
/// opening it with the app's models instead).
///
/// ```swift
/// let file = try CoreDataStoreFile(contentsOf: URL(fileURLWithPath: "default.store"))
/// for entity in file.entities {
///     print(entity.name, entity.count)            // "Item 4"
/// }
/// for transaction in file.latestTransactions {
///     print(transaction.number, transaction.changes.map(\.description))  // 13 ["insert Item 5"]
/// }
/// ```
public struct CoreDataStoreFile: Sendable {
    /// An entity of the file's model.
    public struct Entity: Sendable {
        /// The entity's name, as the app's model names it.
        public let name: String
        /// The entity's number, the `Z_ENT` of its rows.
        public let number: Int64
        /// The entity it inherits from, whose table it shares.
        public let superentity: String?
        /// The table holding its rows (its hierarchy's).
        public let table: String
        /// The table's columns besides `Z_PK`, `Z_ENT` and `Z_OPT` (in a hierarchy's table, every
        /// entity's of the hierarchy), as the file declares them: `ZNAME VARCHAR`.
        public let columns: [String]
        /// How many rows of exactly this entity the file holds.
        public let count: Int
        /// The last primary key given out for it.
        public let lastKey: Int64
    }

    /// One change of a history transaction.
    public struct Change: Sendable, CustomStringConvertible {
        /// What happened to the row, numbered as Core Data's `ZCHANGETYPE` column numbers it.
        public enum Kind: Int64, Sendable {
            /// The row was inserted.
            case insert = 0
            /// Some of the row's properties changed (``CoreDataStoreFile/Change/changedProperties``).
            case update = 1
            /// The row was deleted.
            case delete = 2
        }

        /// What happened to the row.
        public let kind: Kind
        /// The entity of the changed row.
        public let entityName: String
        /// The changed row's `Z_PK`.
        public let primaryKey: Int64
        /// For an update, the bitmask of changed properties Core Data keeps (a bit per property
        /// of the entity in name order, the first in the highest bit).
        public let changedProperties: Data?

        /// `kind Entity key`, and an update's property bitmask in hexadecimal.
        public var description: String {
            let mask = changedProperties.map { " [" + $0.map { String(format: "%02x", $0) }.joined() + "]" } ?? ""
            return "\(kind) \(entityName) \(primaryKey)\(kind == .update ? mask : "")"
        }
    }

    /// One saved transaction of the file's persistent history.
    public struct Transaction: Sendable {
        /// The transaction's number (`Z_PK`), in commit order.
        public let number: Int64
        /// When it was saved.
        public let timestamp: Date
        /// The saving context's `transactionAuthor`, if it had one.
        public let author: String?
        /// The bundle identifier of the app that saved it.
        public let bundleIdentifier: String?
        /// The process that saved it, as Core Data recorded it.
        public let processIdentifier: String?
        /// What it changed, row by row.
        public let changes: [Change]
    }

    /// The file that was read.
    public let url: URL
    /// The store's UUID (`Z_METADATA`), the store identifier of its models.
    public let storeIdentifier: String
    /// The model's entities, by name.
    public let entities: [Entity]
    /// How many history transactions the file holds (0 when it keeps no history).
    public let transactionCount: Int
    /// The newest history transactions, newest first.
    public let latestTransactions: [Transaction]

    /// Reads the file at `url`, with up to `latestTransactions` of its newest history transactions.
    /// Throws ``SwiftDataError`` when the file is missing, not a database, or not in Core Data's layout.
    public init(contentsOf url: URL, latestTransactions limit: Int = 5) throws {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SwiftDataError(.loadIssueModelContainer, "there is no file at \(path)")
        }
        do {
            let connection = try CoreDataModelMap.openForReading(path: path).connection
            guard try CoreDataModelMap.isCoreDataFile(connection) else {
                throw SwiftDataError(.loadIssueModelContainer, "\(path) is an SQLite database but not in Core Data's layout (it has no Core Data Z_METADATA table)")
            }
            self.url = url
            self.storeIdentifier = try CoreDataModelMap.storeUUID(connection) ?? ""
            self.entities = try Self.entities(connection)
            let names = Dictionary(try Self.entityNames(connection), uniquingKeysWith: { first, _ in first })
            let hasHistory = try !CoreDataModelMap.columns(of: SQLStore.coreDataTransactionTable, connection).isEmpty
            self.transactionCount = hasHistory ? Int(try Self.integer("SELECT COUNT(*) FROM ATRANSACTION", connection)) : 0
            self.latestTransactions = hasHistory ? try Self.transactions(limit: limit, names: names, connection) : []
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot read \(path): \(error.description)")
        }
    }

    private static func integer(_ sql: String, bindings: [StoredValue] = [], _ connection: SQLiteConnection) throws -> Int64 {
        var value: Int64 = 0
        try connection.query(sql, bindings: bindings) { row in value = row.int64(at: 0) }
        return value
    }

    private static func entityNames(_ connection: SQLiteConnection) throws -> [(Int64, String)] {
        var names: [(Int64, String)] = []
        try connection.query("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY", bindings: []) { row in
            if row.storageClass(at: 1) == .text { names.append((row.int64(at: 0), row.text(at: 1))) }
        }
        return names
    }

    private static func entities(_ connection: SQLiteConnection) throws -> [Entity] {
        var rows: [(number: Int64, name: String, superNumber: Int64, max: Int64)] = []
        try connection.query("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < ?1 ORDER BY Z_NAME", bindings: [.integer(CoreDataModelMap.firstInternalEntity)]) { row in
            guard row.storageClass(at: 1) == .text else { return }
            rows.append((row.int64(at: 0), row.text(at: 1), row.int64(at: 2), row.int64(at: 3)))
        }
        let byNumber = Dictionary(rows.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [Entity] = []
        for row in rows {
            var root = row
            var seen: Set<Int64> = [row.number]
            while let parent = byNumber[root.superNumber], seen.insert(parent.number).inserted { root = parent }
            let table = CoreDataModelMap.storedName(root.name)
            let columns = try CoreDataModelMap.columns(of: table, connection)
            let count = columns.isEmpty ? 0 : try integer("SELECT COUNT(*) FROM \(SQLiteDialect().quote(table)) WHERE Z_ENT = ?1", bindings: [.integer(row.number)], connection)
            entities.append(Entity(
                name: row.name, number: row.number, superentity: byNumber[row.superNumber]?.name, table: table,
                columns: columns.filter { !["Z_PK", "Z_ENT", "Z_OPT"].contains($0.key) }.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" },
                count: Int(count), lastKey: row.max))
        }
        return entities
    }

    private static func transactions(limit: Int, names: [Int64: String], _ connection: SQLiteConnection) throws -> [Transaction] {
        func string(_ column: String) -> String {
            "COALESCE((SELECT s.ZNAME FROM ATRANSACTIONSTRING AS s WHERE s.Z_PK = t.\(column)TS), t.\(column))"
        }
        var found: [(number: Int64, timestamp: Date, author: String?, bundle: String?, process: String?)] = []
        let select = "SELECT t.Z_PK, t.ZTIMESTAMP, \(string("ZAUTHOR")), \(string("ZBUNDLEID")), \(string("ZPROCESSID")) FROM ATRANSACTION AS t ORDER BY t.Z_PK DESC LIMIT ?1"
        try connection.query(select, bindings: [.integer(Int64(max(limit, 0)))]) { row in
            func text(_ column: Int32) -> String? { row.storageClass(at: column) == .text ? row.text(at: column) : nil }
            found.append((row.int64(at: 0), Date(timeIntervalSinceReferenceDate: row.double(at: 1)), text(2), text(3), text(4)))
        }
        return try found.map { transaction in
            var changes: [Change] = []
            try connection.query("SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS FROM ACHANGE WHERE ZTRANSACTIONID = ?1 ORDER BY Z_PK", bindings: [.integer(transaction.number)]) { row in
                guard let kind = Change.Kind(rawValue: row.int64(at: 0)) else { return }
                var mask: Data?
                if case .blob(let bits) = row.value(at: 3) { mask = bits }
                changes.append(Change(kind: kind, entityName: names[row.int64(at: 1)] ?? "entity \(row.int64(at: 1))", primaryKey: row.int64(at: 2), changedProperties: mask))
            }
            return Transaction(number: transaction.number, timestamp: transaction.timestamp, author: transaction.author,
                               bundleIdentifier: transaction.bundle, processIdentifier: transaction.process, changes: changes)
        }
    }
}
