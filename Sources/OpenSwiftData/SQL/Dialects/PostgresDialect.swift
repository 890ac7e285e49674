import Foundation

/// PostgreSQL's dialect, for the PostgreSQL store (`OpenSwiftDataPostgres`).
///
/// Strings are compared as Swift compares them: normalised to NFC (canonical equivalence) and
/// ordered by code point (`COLLATE "C"`), which is the order of Swift's `<` — never the server's
/// locale. NaN is a real `DOUBLE PRECISION` value, ordered after every number as SQLite orders it.
package struct PostgresDialect: SQLDialect {
    /// UUIDs in `uuid` columns and decimals in `numeric` ones: what a new store is created with.
    /// Dates stay `DOUBLE PRECISION` seconds unless the configuration asks for `timestamptz`,
    /// which keeps only microseconds (a `Date` holds a tenth of one).
    package static let newStoreTypedValues: Set<ValueMeaning> = [.uuid, .decimal]
    /// The values this store keeps in a type of their own (its metadata says which; a store
    /// created before there were any keeps none).
    package let typedValues: Set<ValueMeaning>

    package init(typedValues: Set<ValueMeaning> = []) {
        self.typedValues = typedValues
    }
    package var systemName: String { "postgresql" }
    /// Pieces in a temporary table of the connection, emptied at commit.
    package var largeValueWrites: SQLLargeValueWrites? {
        .assembled(prepare: ["CREATE TEMPORARY TABLE IF NOT EXISTS \"osd_pieces\" (\"n\" integer, \"piece\" bytea) ON COMMIT DELETE ROWS",
                             "DELETE FROM pg_temp.\"osd_pieces\""],
                   insert: "INSERT INTO pg_temp.\"osd_pieces\" (\"n\", \"piece\") VALUES ($1, $2)",
                   value: "(SELECT coalesce(string_agg(\"piece\", ''::bytea ORDER BY \"n\"), ''::bytea) FROM pg_temp.\"osd_pieces\")",
                   clear: "DELETE FROM pg_temp.\"osd_pieces\"")
    }

    package func quote(_ identifier: String) -> String { quoteWithDoubleQuotes(identifier) }
    /// NAMEDATALEN − 1: PostgreSQL truncates longer names.
    package var maximumIdentifierBytes: Int? { 63 }
    package var searchIndexing: (any SQLSearchIndexing)? { PostgresSearchIndexing() }
    package var queryPlans: any SQLQueryPlans { PostgresQueryPlans() }
    /// The tables and indexes of the session's namespace (the first on its search path).
    package var storageSizes: String? {
        "SELECT c.relname::text, coalesce(t.relname, c.relname)::text, CASE WHEN c.relkind = 'i' THEN 1 ELSE 0 END, pg_relation_size(c.oid)::bigint FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class t ON t.oid = i.indrelid WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')"
    }
    // The txid_* spellings run on every supported server (pg_current_xact_id is 13 and later).
    package var transactionIDs: SQLTransactionIDs? {
        SQLTransactionIDs(
            current: "txid_current()", oldestRunning: Self.oldestWriterOfThisStore,
            next: "txid_snapshot_xmax(txid_current_snapshot())", registerWriter: Self.registerWriter)
    }

    /// The advisory lock every write transaction of a store holds, shared (writers never wait
    /// for one another): key 1 is the library's ('OSDT'), key 2 the store's namespace.
    private static let writerLock = "1330857044, hashtext(current_schema())"
    static let registerWriter = "SELECT pg_advisory_xact_lock_shared(\(writerLock))"

    /// The oldest transaction id among this store's running write transactions (the holders of
    /// ``registerWriter``'s lock that have an id), else the next id to be given. Why not the
    /// snapshot's xmin: it counts every write transaction of the whole cluster — another
    /// database's `ANALYZE`, a long migration elsewhere — and history readers would wait for
    /// them, then show nothing newer until they end. `pg_locks` names 32-bit xids: each is
    /// widened to the 64-bit id below the snapshot's xmax that it stands for.
    ///
    /// On a read replica (a hot standby) the primary's locks are not to be seen, but its
    /// snapshot counts every transaction of the primary it has not seen end (an id it has not
    /// seen yet, below one it has, counts as running): there the snapshot's xmin is the bound.
    static let oldestWriterOfThisStore = """
        (SELECT CASE WHEN pg_is_in_recovery() THEN txid_snapshot_xmin(txid_current_snapshot()) ELSE \
        (SELECT COALESCE(MIN(s.xmax - ((((s.xmax & 4294967295) - t.transactionid::text::bigint) + 4294967296) % 4294967296)), MIN(s.xmax)) \
        FROM (SELECT txid_snapshot_xmax(txid_current_snapshot()) AS xmax) s \
        LEFT JOIN pg_locks a ON a.locktype = 'advisory' AND a.granted AND a.objsubid = 2 \
        AND a.classid::int8 = 1330857044 AND a.objid::int8 = (hashtext(current_schema())::int8 & 4294967295) \
        LEFT JOIN pg_locks t ON t.locktype = 'transactionid' AND t.mode = 'ExclusiveLock' AND t.granted \
        AND t.virtualtransaction = a.virtualtransaction) END)
        """
    package func placeholder(_ index: Int) -> String { "$\(index)" }
    /// Arrays of the types the connection binds single values in (``PostgresSQLConnection``).
    package func arrayType(of value: StoredValue) -> String? {
        switch value {
        case .null: return nil
        case .integer: return "bigint[]"
        case .real: return "double precision[]"
        case .text: return "text[]"
        case .blob: return "bytea[]"
        case .uuid where typedValues.contains(.uuid): return "uuid[]"
        case .date where typedValues.contains(.date): return "timestamptz[]"
        case .decimal where typedValues.contains(.decimal): return "numeric[]"
        case .date, .uuid, .decimal: return arrayType(of: value.storageForm)
        }
    }
    package func storedType(_ type: StoredType) -> String {
        switch type {
        case .integer: return "BIGINT"
        case .real: return "DOUBLE PRECISION"
        case .text: return "TEXT"
        case .blob: return "BYTEA"
        }
    }
    package func columnType(_ type: StoredType, meaning: ValueMeaning?, floatingPoint: Bool, swiftString: Bool) -> String {
        if let meaning, typedValues.contains(meaning) {
            switch meaning {
            case .uuid: return "UUID"
            case .decimal: return "NUMERIC"
            case .date: return "TIMESTAMPTZ"
            }
        }
        return swiftString ? "TEXT COLLATE \"C\"" : storedType(type)
    }
    package var keyOnlyTableOptions: String { "" }
    package func indexedColumn(_ quotedName: String, swiftString: Bool) -> String {
        swiftString ? "(normalize(\(quotedName), NFC)) COLLATE \"C\"" : quotedName
    }
    package func collate(_ inner: String, _ collation: SQLCollation) -> String {
        switch collation {
        case .binary: return "(\(inner) COLLATE \"C\")"
        case .caseInsensitive: return "(lower(\(inner)) COLLATE \"C\")"
        case .swift: return "(normalize(\(inner), NFC) COLLATE \"C\")"
        // ICU's root collation, as Foundation's localized comparisons use on Linux; strings it
        // ranks equal (differing only in width, or in leading zeros for the numeric one) may
        // come in another order than Swift's tie-break gives.
        case .localized: return "(normalize(\(inner), NFC) COLLATE \"und-x-icu\")"
        case .localizedStandard: return "(normalize(\(inner), NFC) COLLATE \(Self.localizedStandardCollation))"
        }
    }
    /// ICU's root collation with digits compared by value, created in each store's namespace.
    package static let localizedStandardCollation = "osd_localized_standard"
    /// A date as `timestamptz` holds it: whole microseconds since 2000-01-01 UTC, the nearest to
    /// the date; `nil` for a date no `timestamptz` holds (not finite, or beyond its range).
    package static func microsecondsSince2000(_ date: Date) -> Int64? {
        let microseconds = (date.timeIntervalSinceReferenceDate * 1_000_000).rounded()
        // 4713 BC to 294276 AD, PostgreSQL's range, well inside Int64.
        guard microseconds.isFinite, abs(microseconds) < 9.2e18 else { return nil }
        let value = Int64(microseconds) + 31_622_400_000_000
        return value >= -211_813_488_000_000_000 && value < 9_214_646_400_000_000_000 ? value : nil
    }

    package static let createLocalizedStandardCollation = "CREATE COLLATION IF NOT EXISTS \(localizedStandardCollation) (provider = icu, locale = 'und-u-kn-true')"

    package var isNotDistinctOperator: String { "IS NOT DISTINCT FROM" }
    package var isDistinctOperator: String { "IS DISTINCT FROM" }
    package var insertOrIgnore: (verb: String, suffix: String) { ("INSERT INTO", " ON CONFLICT DO NOTHING") }
    package var limitForOffsetOnly: String? { nil }
    package var ordersUnsortedFetchesByKey: Bool { true }
    /// Quoted: PostgreSQL folds unquoted names to lower case, and tables are named as entities are.
    package func qualifier(_ table: String) -> String { quote(table) }
    package var falseCondition: String { "FALSE" }
    /// The keys come back in one row: a row each would cost the server and the client far more
    /// than the delete itself.
    package func returningKeys(_ statement: String, key: String) -> String? {
        "WITH \"Z_CHANGED\" AS (\(statement) RETURNING \(key)) SELECT string_agg(\(key)::text, ',') FROM \"Z_CHANGED\""
    }
    /// Every part of one `WITH` statement sees the same snapshot, so when the count equals the
    /// keys' span, the rows deleted are exactly that run: a row another server commits later
    /// cannot have a key inside it. The span is compared as `numeric` (keys at the ends of
    /// `bigint` would overflow it). Collecting 100k keys through `RETURNING` doubled the delete.
    package func deleteEveryRowIfOneRun(table: String, key: String) -> String? {
        "WITH \"Z_SPAN\" AS (SELECT count(*) AS n, min(\(key)) AS lo, max(\(key)) AS hi FROM \(table)), "
            + "\"Z_GONE\" AS (DELETE FROM \(table) WHERE (SELECT n > 0 AND hi::numeric - lo::numeric = n - 1 FROM \"Z_SPAN\")) "
            + "SELECT n, lo, hi FROM \"Z_SPAN\""
    }
    package func literal(_ value: StoredValue) -> String? {
        switch value {
        case .uuid(let uuid) where typedValues.contains(.uuid):
            return "'\(uuid.uuidString)'::uuid"
        case .decimal(let decimal) where typedValues.contains(.decimal):
            return "'\(decimal.description)'::numeric"
        case .date(let date) where typedValues.contains(.date):
            guard let microseconds = Self.microsecondsSince2000(date) else { return nil }
            return "(TIMESTAMPTZ '2000-01-01 00:00:00+00' + \(microseconds) * INTERVAL '1 microsecond')"
        default:
            break
        }
        guard case .blob(let data) = value.storageForm else { return standardLiteral(value) }
        return "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'::bytea"
    }
    package var altersColumnsInPlace: Bool { true }
    /// The definitions are the comments ``recordIndexDefinition(_:definition:)`` left; primary
    /// keys are not the store's to change.
    package var indexListQuery: String {
        "SELECT i.relname::text, obj_description(i.oid, 'pg_class') FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid WHERE t.relname = $1 AND t.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) AND NOT x.indisprimary"
    }
    /// PostgreSQL keeps an index in its own rewriting (`USING btree`, qualified names), so the
    /// text it was created with goes in the index's comment, for a migration to compare.
    package func recordIndexDefinition(_ name: String, definition: String) -> String? {
        standardLiteral(.text(definition)).map { "COMMENT ON INDEX \(quote(name)) IS \($0)" }
    }
    package var collatesBothOperands: Bool { true }
    package func jsonPath(_ path: JSONPath) -> String { path.text(last: "last") }
    package func sameValue(_ column: String, _ placeholder: String, json: Bool) -> String {
        json ? "CAST(\(column) AS jsonb) IS NOT DISTINCT FROM CAST(\(placeholder) AS jsonb)" : "\(column) IS NOT DISTINCT FROM \(placeholder)"
    }
    package func jsonValue(_ json: String, path: String, type: StoredType) -> String {
        scalar("jsonb_path_query_first(CAST(\(json) AS jsonb), CAST(\(path) AS jsonpath))", type)
    }
    package func jsonElement(_ value: String, type: StoredType) -> String { scalar(value, type) }
    package func jsonElements(_ json: String, alias: String) -> String {
        "jsonb_array_elements(CAST(\(json) AS jsonb)) AS \(alias)(value)"
    }

    /// A `jsonb` scalar as SQLite's JSON functions give it: numbers and strings as they are,
    /// `true`/`false` as 1/0, `null` as NULL.
    private func scalar(_ json: String, _ type: StoredType) -> String {
        switch type {
        case .integer:
            return "(CASE jsonb_typeof(\(json)) WHEN 'boolean' THEN CAST(CAST(\(json) AS boolean) AS INTEGER) WHEN 'number' THEN CAST(\(json) #>> '{}' AS BIGINT) END)"
        case .real:
            return "(CASE jsonb_typeof(\(json)) WHEN 'number' THEN CAST(\(json) #>> '{}' AS DOUBLE PRECISION) END)"
        case .text, .blob:
            return "(CASE jsonb_typeof(\(json)) WHEN 'string' THEN \(json) #>> '{}' END)"
        }
    }
    package func truth(_ value: String) -> String { "(\(value) <> 0)" }
    package func truthValue(_ condition: String) -> String { "CAST(\(condition) AS INTEGER)" }
    package var nullOrdering: (ascending: String, descending: String) { (" NULLS FIRST", " NULLS LAST") }
    /// The library's string functions, which SQLite runs in Swift, as PostgreSQL expressions with
    /// the same answers: strings compared in NFC; a match must end on a character boundary (not
    /// before a combining mark, a joiner or a variation selector) and not start after a joiner,
    /// as Swift matches whole `Character`s; case folded with ICU's root locale. Each keeps NULL
    /// for a NULL argument. An argument may appear twice in the text; its placeholder then names
    /// the same parameter twice.
    package func function(_ function: SQLFunction, _ arguments: [String]) -> String {
        switch (function, arguments.count) {
        case (.contains, 2):
            return "CAST((\(nfc(arguments[0])) ~ ('(?<!\\u200D)' || \(literalPattern(nfc(arguments[1]))) || '(?!\(Self.extending))')) AS INTEGER)"
        case (.startsWith, 2):
            return "CAST((\(nfc(arguments[0])) ~ ('^' || \(literalPattern(nfc(arguments[1]))) || '(?!\(Self.extending))')) AS INTEGER)"
        case (.localizedStandardContains, 2):
            return "CAST((\(arguments[1]) <> '' AND strpos(\(Self.searchFold(arguments[0])), \(Self.searchFold(arguments[1]))) > 0) AS INTEGER)"
        case (.caseInsensitiveCompare, 2):
            let a = "(lower(\(nfc(arguments[0])) COLLATE \"und-x-icu\") COLLATE \"C\")"
            let b = "(lower(\(nfc(arguments[1])) COLLATE \"und-x-icu\") COLLATE \"C\")"
            return "(CASE WHEN \(a) < \(b) THEN -1 WHEN \(a) = \(b) THEN 0 WHEN \(a) > \(b) THEN 1 END)"
        case (.localizedCompare, 2):
            let a = "(\(nfc(arguments[0])) COLLATE \"und-x-icu\")", b = "(\(nfc(arguments[1])) COLLATE \"und-x-icu\")"
            return "(CASE WHEN \(a) < \(b) THEN -1 WHEN \(a) > \(b) THEN 1 WHEN \(a) = \(b) THEN 0 END)"
        case (.characterCount, 1):
            // Characters: code points in NFC, less those that extend the character before them.
            return "char_length(regexp_replace(\(nfc(arguments[0])), '\\u200D.|\(Self.extending)', '', 'g'))"
        case (.jsonArrayLength, 1):
            return "jsonb_array_length(CAST(\(arguments[0]) AS jsonb))"
        case (.substring, 3):
            // Its positions are 4-byte integers (a bytea holds at most 1 GB).
            return "substr(\(arguments[0]), CAST(\(arguments[1]) AS integer), CAST(\(arguments[2]) AS integer))"
        default:
            // The aggregates, coalesce and length are PostgreSQL's own, under SQLite's names.
            return "\(function.sqliteName)(\(arguments.joined(separator: ", ")))"
        }
    }

    /// Code points that belong to the character before them: combining marks of the common
    /// scripts (kana voicing marks among them), joiners, variation selectors, emoji skin tones and tags.
    private static let extending = "[\\u0300-\\u036F\\u0483-\\u0489\\u0591-\\u05BD\\u05BF\\u05C1\\u05C2\\u05C4\\u05C5\\u05C7\\u0610-\\u061A\\u064B-\\u065F\\u0670\\u06D6-\\u06DC\\u06DF-\\u06E4\\u06E7\\u06E8\\u06EA-\\u06ED\\u0900-\\u0903\\u093A-\\u094F\\u0951-\\u0957\\u0962\\u0963\\u0981-\\u0983\\u09BC-\\u09D7\\u0E31\\u0E34-\\u0E3A\\u0E47-\\u0E4E\\u0EB1\\u0EB4-\\u0EBC\\u0EC8-\\u0ECD\\u1AB0-\\u1AFF\\u1DC0-\\u1DFF\\u200C\\u200D\\u20D0-\\u20FF\\u3099\\u309A\\uFE00-\\uFE0F\\uFE20-\\uFE2F\\U0001F3FB-\\U0001F3FF\\U000E0020-\\U000E007F]"

    private func nfc(_ text: String) -> String { "normalize(\(text), NFC)" }

    /// A text value as a regular expression matching it literally (its special characters escaped).
    private func literalPattern(_ text: String) -> String {
        "regexp_replace(\(text), '([\\]\\[.*+?^$(){}|\\\\])', '\\\\\\1', 'g')"
    }

    /// `text` with case and diacritics folded, in which `localizedStandardContains` compares,
    /// and which a search index keeps (``PostgresSearchIndexing``): Latin, Greek and Cyrillic
    /// diacritics (U+0300–U+036F) dropped, other marks composed again (kana keep their voicing,
    /// as Foundation's do), lowered in ICU's root locale, and the case folds `lower()` leaves out
    /// made (`ς`, `ſ` and the iota subscript; `ß` and the Latin ligatures expanded). ASCII text,
    /// the common case, is only lowered. Immutable, as an index's expression must be; the same
    /// text every time, as a query must spell the index's expression for PostgreSQL to use it.
    static func searchFold(_ text: String) -> String {
        let folded = "lower(normalize(regexp_replace(normalize(\(text), NFD), '[\\u0300-\\u0344\\u0346-\\u036F]', '', 'g'), NFC) COLLATE \"und-x-icu\") COLLATE \"C\""
        let expansions = [("ß", "ss"), ("ﬀ", "ff"), ("ﬁ", "fi"), ("ﬂ", "fl"), ("ﬃ", "ffi"), ("ﬄ", "ffl"), ("ﬅ", "st"), ("ﬆ", "st")]
        let expanded = expansions.reduce("translate(\(folded), 'ςſ\u{345}', 'σsι')") { "replace(\($0), '\($1.0)', '\($1.1)')" }
        return "(CASE WHEN octet_length(\(text)) = char_length(\(text)) THEN lower(\(text) COLLATE \"C\") ELSE \(expanded) END)"
    }
}
