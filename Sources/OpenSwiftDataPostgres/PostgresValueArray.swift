#if PostgreSQL
import Foundation
import NIOCore
import OpenSwiftData
import PostgresNIO

/// A column of many rows' values as one array parameter, in PostgreSQL's binary array form (text
/// form for decimals, whose binary form cannot say NaN): the elements in the types
/// ``PostgresSQLConnection`` binds single values in (``PostgresDialect/arrayType(of:)`` names the
/// same types for the SQL). A save's thousands of rows then cost a few parameters to
/// parse and bind, not five per row.
struct PostgresValueArray: PostgresThrowingDynamicTypeEncodable {
    /// The element types, with their type ids and their arrays'.
    private enum Element: Equatable {
        case int8, float8, text, bytea, uuid, timestamptz, numeric
        var oid: UInt32 {
            switch self {
            case .int8: return 20
            case .float8: return 701
            case .text: return 25
            case .bytea: return 17
            case .uuid: return 2950
            case .timestamptz: return 1184
            case .numeric: return 1700
            }
        }
        var arrayType: PostgresDataType {
            switch self {
            case .int8: return .int8Array
            case .float8: return .float8Array
            case .text: return .textArray
            case .bytea: return .byteaArray
            case .uuid: return .uuidArray
            case .timestamptz: return PostgresDataType(1185)
            case .numeric: return .numericArray
            }
        }
    }

    private let values: [StoredValue]
    private let element: Element

    /// The array of `values`; throws where they are not all of one element type (or all NULL).
    init(_ values: [StoredValue], typedValues: Set<ValueMeaning>) throws {
        var element: Element?
        for value in values where !value.isNull {
            let kind = try Self.element(of: value, typedValues: typedValues)
            if element == nil { element = kind }
            guard element == kind else {
                throw SwiftDataError(.storeIO, "a column of values bound as one array holds values of two types (\(String(describing: element)) and \(kind))")
            }
        }
        guard let element else { throw SwiftDataError(.storeIO, "a column of values bound as one array holds only NULL") }
        self.values = values
        self.element = element
    }

    private static func element(of value: StoredValue, typedValues: Set<ValueMeaning>) throws -> Element {
        switch value {
        case .integer: return .int8
        case .real: return .float8
        case .text: return .text
        case .blob: return .bytea
        case .uuid where typedValues.contains(.uuid): return .uuid
        case .date where typedValues.contains(.date): return .timestamptz
        case .decimal where typedValues.contains(.decimal): return .numeric
        case .null:
            throw SwiftDataError(.storeIO, "\(value) is not bound in an array")
        case .date, .uuid, .decimal: return try element(of: value.storageForm, typedValues: typedValues)
        }
    }

    var psqlType: PostgresDataType { element.arrayType }
    var psqlFormat: PostgresFormat { element == .numeric ? .text : .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) throws {
        if element == .numeric {
            // `{"1.5","NaN",NULL}`: a decimal's text holds only digits, a sign, a point and NaN.
            buffer.writeString("{")
            for (offset, value) in values.enumerated() {
                if offset > 0 { buffer.writeString(",") }
                if case .decimal(let decimal) = value {
                    buffer.writeString("\"" + (decimal.isNaN ? "NaN" : decimal.description) + "\"")
                } else {
                    buffer.writeString("NULL")
                }
            }
            buffer.writeString("}")
            return
        }
        // One dimension, whether any element is NULL, the element type, the length, lower bound 1.
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(Int32(values.contains { $0.isNull } ? 1 : 0))
        buffer.writeInteger(element.oid)
        buffer.writeInteger(try Self.length(values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            try write(value, into: &buffer)
        }
    }

    /// A length as the array form writes it; one past 32 bits is refused (the server takes at
    /// most 1 GB in a value anyway).
    private static func length(_ count: Int) throws -> Int32 {
        guard let length = Int32(exactly: count) else {
            throw SwiftDataError(.storeIO, "a value of \(count) bytes is more than PostgreSQL takes in one field; nothing was written")
        }
        return length
    }

    /// One element: its length (-1 for NULL), then its bytes.
    private func write(_ value: StoredValue, into buffer: inout ByteBuffer) throws {
        switch value {
        case .null:
            buffer.writeInteger(Int32(-1))
        case .integer(let integer):
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(integer)
        case .real(let real):
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(real.bitPattern)
        case .text(let text):
            try PostgresSQLConnection.checkText(text)
            buffer.writeInteger(try Self.length(text.utf8.count))
            buffer.writeString(text)
        case .blob(let data):
            buffer.writeInteger(try Self.length(data.count))
            buffer.writeBytes(data)
        case .uuid(let uuid) where element == .uuid:
            buffer.writeInteger(Int32(16))
            withUnsafeBytes(of: uuid.uuid) { buffer.writeBytes($0) }
        case .date(let date) where element == .timestamptz:
            guard let microseconds = PostgresDialect.microsecondsSince2000(date) else {
                throw PostgresSQLConnection.dateOutOfRange(date)
            }
            buffer.writeInteger(Int32(8))
            buffer.writeInteger(microseconds)
        case .date, .uuid, .decimal:
            try write(value.storageForm, into: &buffer)
        }
    }
}
#endif
