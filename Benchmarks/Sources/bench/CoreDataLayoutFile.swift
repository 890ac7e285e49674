import BenchCSQLite
import Foundation

/// An empty store file in Core Data's SQLite layout for the benchmark's models (`OCategory`,
/// `OExpense`, `OItem`), written by hand-written SQL as Core Data writes such a file for a
/// SwiftData app with history on (the layout of the fixture in `../shared/fixtures/`): entities
/// numbered by name, one `Z<ENTITY>` table each, `Z_PRIMARYKEY`, `Z_METADATA`, the history
/// tables, WAL mode. OpenSwiftData then opens it as it opens a file from an Apple device, so the
/// same workloads measure what saving and fetching in that layout costs against its own.
enum CoreDataLayoutFile {
    /// `history: false` leaves out the history tables (a Core Data file without persistent
    /// history tracking), to tell the layout's cost from its history's.
    static func create(at path: String, history: Bool = true) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else { throw BenchError("cannot create \(path)") }
        defer { sqlite3_close(db) }
        let sql = """
            PRAGMA journal_mode=WAL;
            CREATE TABLE ZOCATEGORY ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE TABLE ZOEXPENSE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCATEGORY INTEGER, ZAMOUNT FLOAT, ZNOTE VARCHAR );
            CREATE INDEX ZOEXPENSE_ZCATEGORY_INDEX ON ZOEXPENSE (ZCATEGORY);
            CREATE TABLE ZOITEM ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZVALUE INTEGER, ZCREATED TIMESTAMP, ZSCORE FLOAT, ZNAME VARCHAR );
            CREATE INDEX Z_OItem_value ON ZOITEM (ZVALUE COLLATE BINARY ASC);
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'OCategory', 0, 0), (2, 'OExpense', 0, 0), (3, 'OItem', 0, 0),
                (16001, 'CHANGE', 0, 0), (16002, 'TRANSACTION', 0, 0), (16003, 'TRANSACTIONSTRING', 0, 0);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_METADATA VALUES (1, '\(UUID().uuidString)', NULL);
            CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
            \(history ? historyTables : "")
            """
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(error)
            throw BenchError("cannot create the Core Data layout: \(message)")
        }
    }

    private static let historyTables = """
            CREATE TABLE ACHANGE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB );
            CREATE TABLE ATRANSACTION ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER, ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZBUNDLEID VARCHAR, ZCONTEXTNAME VARCHAR, ZPROCESSID VARCHAR, ZQUERYGEN BLOB );
            CREATE TABLE ATRANSACTIONSTRING ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE INDEX ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
            CREATE INDEX ATRANSACTION_ZAUTHORTS_INDEX ON ATRANSACTION (ZAUTHORTS);
            CREATE INDEX ATRANSACTION_ZBUNDLEIDTS_INDEX ON ATRANSACTION (ZBUNDLEIDTS);
            CREATE INDEX ATRANSACTION_ZCONTEXTNAMETS_INDEX ON ATRANSACTION (ZCONTEXTNAMETS);
            CREATE INDEX ATRANSACTION_ZPROCESSIDTS_INDEX ON ATRANSACTION (ZPROCESSIDTS);
            CREATE INDEX Z_TRANSACTION_TransactionAuthorIndex ON ATRANSACTION (ZAUTHOR COLLATE BINARY ASC);
            CREATE INDEX Z_TRANSACTION_TransactionTimestampIndex ON ATRANSACTION (ZTIMESTAMP COLLATE BINARY ASC);
            CREATE UNIQUE INDEX Z_TRANSACTIONSTRING_UNIQUE_NAME ON ATRANSACTIONSTRING (ZNAME COLLATE BINARY ASC);
            """
}
