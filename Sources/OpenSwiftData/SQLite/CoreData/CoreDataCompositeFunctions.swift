import CSQLite
import Foundation

/// The two SQL functions that let a composite attribute (``CoreDataComposite``) be read and
/// written as the one JSON value its `Codable` struct encodes to, so the query builder, the
/// predicate translator and the save writer keep one value per attribute:
///
/// - `osd_composite(descriptor, column…)` builds the JSON object from the field columns (`NULL`
///   when every column is), converting Core Data's column forms to what `JSONDecoder` reads:
///   booleans from 0/1, UUIDs from 16 bytes, `Data` from bytes to Base64, dates as seconds since
///   2001 (`JSONDecoder`'s default for `Date`).
/// - `osd_composite_field(json, path, kind)` takes one field out of such JSON (as `JSONEncoder`
///   wrote it) in its column's form; `NULL` for a missing or `null` field.
enum CoreDataCompositeFunctions {
    static func register(on db: OpaquePointer) throws {
        // Direct only: callable from the statements OpenSwiftData prepares, never from a file's
        // own views, triggers or indexes (a crafted file must not run library code).
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY
        for (name, arguments, function) in [("osd_composite", Int32(-1), compositeFunction), ("osd_composite_field", 3, fieldFunction)] {
            let status = sqlite3_create_function_v2(db, name, arguments, flags, nil, function, nil, nil, nil)
            guard status == SQLITE_OK else { throw SQLiteError(code: status, message: "cannot register the SQL function \(name)", sql: nil) }
        }
    }

    /// A node of the JSON object being built: fields and nested objects, in column order.
    private final class Object {
        var members: [(String, Member)] = []
        enum Member { case value(String), object(Object) }

        func object(at key: String) -> Object {
            if let existing = members.first(where: { $0.0 == key }), case .object(let object) = existing.1 { return object }
            let object = Object()
            members.append((key, .object(object)))
            return object
        }

        /// The JSON text, leaving out nested objects with no fields (a `nil` optional struct).
        var json: String? {
            let parts = members.compactMap { key, member -> String? in
                switch member {
                case .value(let text): return CoreDataCompositeFunctions.quoted(key) + ":" + text
                case .object(let object): return object.json.map { CoreDataCompositeFunctions.quoted(key) + ":" + $0 }
                }
            }
            return parts.isEmpty ? nil : "{" + parts.joined(separator: ",") + "}"
        }
    }

    /// A parsed descriptor: each column's key path and kind, in argument order.
    private final class Fields {
        let fields: [(path: [String], kind: CoreDataComposite.Kind)]
        init(_ descriptor: String) {
            fields = descriptor.split(separator: ";").compactMap { field in
                guard let separator = field.lastIndex(of: ":"),
                      let kind = CoreDataComposite.Kind(rawValue: String(field[field.index(after: separator)...])) else { return nil }
                return (field[..<separator].split(separator: ".").map(String.init), kind)
            }
        }
    }

    /// Releases a ``Fields`` SQLite kept for a statement.
    private static let releaseFields: @convention(c) (UnsafeMutableRawPointer?) -> Void = { pointer in
        if let pointer { Unmanaged<Fields>.fromOpaque(pointer).release() }
    }

    /// The descriptor (a constant of the statement) parsed once per statement, not once per row.
    private static func fields(_ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) -> Fields? {
        if let cached = sqlite3_get_auxdata(context, 0) { return Unmanaged<Fields>.fromOpaque(cached).takeUnretainedValue() }
        guard let descriptor = SQLiteFunctions.text(arguments, 0) else { return nil }
        let fields = Fields(descriptor)
        sqlite3_set_auxdata(context, 0, Unmanaged.passRetained(fields).toOpaque(), releaseFields)
        return fields
    }

    private static let compositeFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, arguments in
        guard count >= 1, let parsed = CoreDataCompositeFunctions.fields(context, arguments) else {
            sqlite3_result_null(context)
            return
        }
        let root = Object()
        for (index, field) in parsed.fields.enumerated() where index + 1 < Int(count) {
            guard let last = field.path.last, let value = arguments?[index + 1],
                  let json = CoreDataCompositeFunctions.json(value, field.kind) else { continue }
            var object = root
            for key in field.path.dropLast() { object = object.object(at: key) }
            object.members.append((last, .value(json)))
        }
        guard let json = root.json else {
            sqlite3_result_null(context)
            return
        }
        sqlite3_result_text(context, json, -1, SQLiteStatement.transient)
    }

    /// A column's value as JSON text for `kind` (`nil` for NULL).
    private static func json(_ value: OpaquePointer, _ kind: CoreDataComposite.Kind) -> String? {
        switch sqlite3_value_type(value) {
        case SQLITE_NULL:
            return nil
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            let bytes = sqlite3_value_blob(value).map { Data(bytes: $0, count: count) } ?? Data()
            if kind == .uuid, bytes.count == 16 {
                let uuid = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
                return quoted(uuid.uuidString)
            }
            return quoted(bytes.base64EncodedString())
        case SQLITE_INTEGER:
            let number = sqlite3_value_int64(value)
            return kind == .bool ? (number != 0 ? "true" : "false") : String(number)
        case SQLITE_FLOAT:
            let number = sqlite3_value_double(value)
            guard number.isFinite else { return nil }
            guard kind == .integer || kind == .bool else { return "\(number)" }
            // A whole number in Int64's range; a larger one (another program's) cannot be an integer field.
            guard let whole = Int64(exactly: number.rounded(.towardZero)) else { return nil }
            return String(whole)
        default:
            let count = Int(sqlite3_value_bytes(value))
            let text = sqlite3_value_text(value).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
            return quoted(text)
        }
    }

    /// `text` as a JSON string.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static let fieldFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let json = SQLiteFunctions.text(arguments, 0), let path = SQLiteFunctions.text(arguments, 1),
              let kindName = SQLiteFunctions.text(arguments, 2), let kind = CoreDataComposite.Kind(rawValue: kindName),
              let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) else {
            sqlite3_result_null(context)
            return
        }
        var field: Any? = object
        for key in path.split(separator: ".") { field = (field as? [String: Any])?[String(key)] }
        CoreDataCompositeFunctions.result(context, field, kind)
    }

    /// Sets the function's result to a field's JSON value in its column's form.
    private static func result(_ context: OpaquePointer?, _ field: Any?, _ kind: CoreDataComposite.Kind) {
        switch (kind, field) {
        case (_, nil), (_, is NSNull):
            sqlite3_result_null(context)
        case (.text, let text as String), (.url, let text as String):
            sqlite3_result_text(context, text, -1, SQLiteStatement.transient)
        case (.uuid, let text as String):
            guard let uuid = UUID(uuidString: text) else { return sqlite3_result_null(context) }
            blob(context, withUnsafeBytes(of: uuid.uuid) { Data($0) })
        case (.data, let text as String):
            guard let data = Data(base64Encoded: text) else { return sqlite3_result_null(context) }
            blob(context, data)
        case (.bool, let flag as Bool):
            sqlite3_result_int64(context, flag ? 1 : 0)
        case (.integer, let number as NSNumber), (.bool, let number as NSNumber):
            sqlite3_result_int64(context, number.int64Value)
        case (_, let number as NSNumber):
            sqlite3_result_double(context, number.doubleValue)
        default:
            sqlite3_result_null(context)
        }
    }

    private static func blob(_ context: OpaquePointer?, _ data: Data) {
        data.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, sqlite3_uint64($0.count), SQLiteStatement.transient) }
    }
}
