import CSQLite
import Foundation

/// SQL functions and a collation implemented in Swift, registered on every connection, so that
/// string predicates mean in SQL exactly what they mean in Swift.
///
/// SQLite compares text byte by byte; Swift compares strings by canonical equivalence (`"é"`
/// precomposed equals `"e"` + combining acute) and works on `Character`s. Where the two differ,
/// the SQL changes: String columns use the `SWIFT` collation, and string operations call these
/// functions, which call the same Swift methods `Predicate.evaluate` calls.
enum SQLiteFunctions {
    static let collation = "SWIFT"
    /// `localizedCompare(_:)`'s order, for sort descriptors with `.localized`.
    static let localizedCollation = "SWIFT_LOCALIZED"
    /// `localizedStandardCompare(_:)`'s order, for sort descriptors with `.localizedStandard`.
    static let localizedStandardCollation = "SWIFT_LOCALIZED_STANDARD"

    static func register(on db: OpaquePointer) throws {
        var status = SQLITE_OK
        for (name, function) in [(collation, swiftCollation), (localizedCollation, localizedCollationFunction), (localizedStandardCollation, localizedStandardCollationFunction)] {
            status = sqlite3_create_collation_v2(db, name, SQLITE_UTF8, nil, function, nil)
            guard status == SQLITE_OK else { throw SQLiteError(code: status, message: "cannot register the \(name) collation", sql: nil) }
        }
        // Direct only: callable from the statements OpenSwiftData prepares, never from a file's
        // own views, triggers or indexes (a crafted file must not run library code).
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        let functions: [(String, Int32, @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void)] = [
            ("osd_contains", 2, containsFunction),
            ("osd_starts_with", 2, startsWithFunction),
            ("osd_localized_standard_contains", 2, localizedStandardContainsFunction),
            ("osd_case_insensitive_compare", 2, caseInsensitiveCompareFunction),
            ("osd_localized_compare", 2, localizedCompareFunction),
            ("osd_count", 1, countFunction),
            ("osd_search_fold", 1, searchFoldFunction),
        ]
        for (name, arguments, function) in functions {
            status = sqlite3_create_function_v2(db, name, arguments, flags, nil, function, nil, nil, nil)
            guard status == SQLITE_OK else { throw SQLiteError(code: status, message: "cannot register the SQL function \(name)", sql: nil) }
        }
        try CoreDataCompositeFunctions.register(on: db)
        try CoreDataExternalData.register(on: db)
    }

    // MARK: Swift semantics

    /// `Collection.contains(_:)` on `Character`s, as `CollectionContainsCollection.evaluate` runs it.
    static func contains<C: Collection>(_ base: C, _ other: C) -> Bool where C.Element: Equatable {
        base.contains(other)
    }

    /// `Sequence.starts(with:)` on `Character`s, as `SequenceStartsWith.evaluate` runs it.
    static func starts<S: Sequence>(_ base: S, with prefix: S) -> Bool where S.Element: Equatable {
        base.starts(with: prefix)
    }

    /// Orders two strings as Swift's `<` and `==` do, with a fast path for ASCII.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int32 {
        let common = min(a.count, b.count)
        var ascii = true
        for index in 0..<common {
            let x = a[index], y = b[index]
            if x | y >= 0x80 { ascii = false; break }
            if x != y { return x < y ? -1 : 1 }
        }
        if ascii {
            let aRest = a[common...].allSatisfy { $0 < 0x80 }
            let bRest = b[common...].allSatisfy { $0 < 0x80 }
            if aRest && bRest { return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1) }
        }
        if a.count == b.count && a.elementsEqual(b) {
            return 0
        }
        let left = String(decoding: a, as: UTF8.self)
        let right = String(decoding: b, as: UTF8.self)
        return left == right ? 0 : (left < right ? -1 : 1)
    }

    // MARK: C entry points

    private static let swiftCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, aLength, a, bLength, b in
        SQLiteFunctions.compare(UnsafeRawBufferPointer(start: a, count: Int(aLength)), UnsafeRawBufferPointer(start: b, count: Int(bLength)))
    }

    private static let localizedCollationFunction: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, aLength, a, bLength, b in
        SQLiteFunctions.compare(UnsafeRawBufferPointer(start: a, count: Int(aLength)), UnsafeRawBufferPointer(start: b, count: Int(bLength)), .localized)
    }

    private static let localizedStandardCollationFunction: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, aLength, a, bLength, b in
        SQLiteFunctions.compare(UnsafeRawBufferPointer(start: a, count: Int(aLength)), UnsafeRawBufferPointer(start: b, count: Int(bLength)), .localizedStandard)
    }

    /// Orders two strings as a localized sort order does.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, _ order: StringSortOrder) -> Int32 {
        let result = order.compare(String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
        return Int32(result.rawValue)
    }

    /// The text of argument `index`, or `nil` for NULL.
    static func text(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
        guard let value = arguments?[index], sqlite3_value_type(value) != SQLITE_NULL else { return nil }
        return String(decoding: bytes(value), as: UTF8.self)
    }

    private static func binary(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ body: (String, String) -> Int32) {
        guard let a = text(arguments, 0), let b = text(arguments, 1) else {
            sqlite3_result_null(context)
            return
        }
        sqlite3_result_int(context, body(a, b))
    }

    private static let containsFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        SQLiteFunctions.binary(context, arguments) { SQLiteFunctions.contains($0, $1) ? 1 : 0 }
    }

    private static let startsWithFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        SQLiteFunctions.binary(context, arguments) { SQLiteFunctions.starts($0, with: $1) ? 1 : 0 }
    }

    private static let localizedStandardContainsFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        if asciiFoldsAsFoundation, let text = arguments?[0], let needle = arguments?[1],
           sqlite3_value_type(text) == SQLITE_TEXT, sqlite3_value_type(needle) == SQLITE_TEXT,
           let found = asciiContains(bytes(text), bytes(needle)) {
            sqlite3_result_int(context, found ? 1 : 0)
            return
        }
        SQLiteFunctions.binary(context, arguments) { $0.localizedStandardContains($1) ? 1 : 0 }
    }

    /// Whether `localizedStandardContains` on ASCII text is an ASCII case-insensitive substring
    /// test: true but where the current locale folds `I` apart (Turkish, Azerbaijani).
    private static let asciiFoldsAsFoundation: Bool = {
        let language = Locale.current.language.languageCode?.identifier ?? ""
        return language != "tr" && language != "az"
    }()

    /// An argument's bytes as text, valid until the function returns (the text first, then its
    /// length: asking for the text may convert it, changing its length).
    private static func bytes(_ value: OpaquePointer) -> UnsafeBufferPointer<UInt8> {
        let text = sqlite3_value_text(value)
        return UnsafeBufferPointer(start: text, count: text == nil ? 0 : Int(sqlite3_value_bytes(value)))
    }

    /// `text.localizedStandardContains(needle)` where both are ASCII and the needle is neither
    /// empty nor holds NUL (Foundation reads a needle only up to a NUL): the needle's letters in
    /// either case, at some place in the text. Checked against Foundation for every pair of
    /// ASCII characters and millions of random ASCII strings (`SearchTests`); `nil` for any other
    /// text, which Foundation answers. Scans and a search index's exact check call this for
    /// every row, where making two strings for Foundation cost more than the test.
    static func asciiContains(_ text: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let first = needle.first, !needle.contains(where: { $0 == 0 || $0 >= 0x80 }),
              !text.contains(where: { $0 >= 0x80 }) else { return nil }
        @inline(__always) func lowered(_ byte: UInt8) -> UInt8 { byte &- 0x41 < 26 ? byte | 0x20 : byte }
        guard needle.count <= text.count else { return false }
        let head = lowered(first)
        for start in 0...(text.count - needle.count) where lowered(text[start]) == head {
            var matched = true
            for offset in 1..<needle.count where lowered(text[start + offset]) != lowered(needle[offset]) {
                matched = false
                break
            }
            if matched { return true }
        }
        return false
    }

    private static let caseInsensitiveCompareFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        SQLiteFunctions.binary(context, arguments) { Int32($0.caseInsensitiveCompare($1).rawValue) }
    }

    private static let localizedCompareFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        SQLiteFunctions.binary(context, arguments) { Int32($0.localizedCompare($1).rawValue) }
    }

    /// A searchable column's text as its search index keeps it (``SearchFold``); NULL stays NULL.
    private static let searchFoldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = arguments?[0], sqlite3_value_type(value) != SQLITE_NULL else {
            sqlite3_result_null(context)
            return
        }
        let bytes = SQLiteFunctions.bytes(value)
        // ASCII straight from SQLite's bytes; anything else through Swift's String.
        let folded = SearchFold.foldASCII(bytes) ?? SearchFold.fold(String(decoding: bytes, as: UTF8.self))
        // A C string (SQLite copies it): an empty one still has a pointer, so it stays text, not NULL.
        folded.withCString { characters in
            // The 64-bit length: text over SQLite's limit is refused (SQLITE_TOOBIG), never a
            // trap; the UTF-8 count, as text may hold a NUL.
            sqlite3_result_text64(context, characters, sqlite3_uint64(folded.utf8.count), SQLiteStatement.transient, UInt8(SQLITE_UTF8))
        }
    }

    private static let countFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let a = SQLiteFunctions.text(arguments, 0) else {
            sqlite3_result_null(context)
            return
        }
        sqlite3_result_int64(context, Int64(a.count))
    }
}
