import Foundation

/// A `Codable` struct attribute as SwiftData keeps it in Core Data's layout: a composite
/// attribute, flattened into one column per field of the struct (nested structs flattened in
/// turn), rather than one column holding an encoded value.
///
/// What is known of the layout, and what is inferred: Apple documents that composites are
/// flattened and that their fields are reached by namespaced key paths (`place.latitude`). Core
/// Data names every column `Z` + the upper-cased name of the attribute it holds; for a composite's
/// field that is the field's own name (`ZLATITUDE`, without the composite's name). Core Data
/// numbers a name that is already taken in the table (`ZNAME1`), in an order it does not document,
/// so a field whose column name another property or field of the same table also needs is refused
/// rather than guessed. The fields are the struct's stored properties, named as declared.
///
/// In SQL a composite reads as one JSON object built from its columns (`osd_composite`), which
/// the attribute's JSON codec decodes, and a saved value (its JSON) is spread over the columns
/// (`osd_composite_field`); see ``CoreDataCompositeFunctions``.
struct CoreDataComposite: Sendable, Equatable {
    /// How a field's value is kept in its column, as Core Data keeps attributes of its type.
    enum Kind: String, Sendable {
        case text, url, integer, real, bool, date, uuid, data, decimal

        /// The column type Core Data declares for it.
        var columnType: String {
            switch self {
            case .text, .url: return "VARCHAR"
            case .integer, .bool: return "INTEGER"
            case .real: return "FLOAT"
            case .date: return "TIMESTAMP"
            case .uuid, .data: return "BLOB"
            case .decimal: return "DECIMAL"
            }
        }
    }

    /// One flattened field: its key path inside the struct, its column, and how it is stored.
    struct Element: Sendable, Equatable {
        let path: [String]
        let column: String
        let kind: Kind
    }

    let elements: [Element]

    /// The description `osd_composite` reads: `path:kind` per column, `;`-separated.
    var descriptor: String {
        elements.map { $0.path.joined(separator: ".") + ":" + $0.kind.rawValue }.joined(separator: ";")
    }

    /// The flattened fields of the `Codable` struct `type`, or `nil` when `type` is not a struct
    /// (an enum, a class), which Core Data's layout keeps in one column. Throws
    /// ``SwiftDataError/unsupportedType`` for a struct whose fields cannot be flattened (arrays,
    /// enums, custom coding keys), naming `attribute` and the field.
    static func elements(of type: any Codable.Type, attribute: String) throws -> [Element]? {
        guard let value = PlaceholderDecoder.make(type), Mirror(reflecting: value).displayStyle == .struct else { return nil }
        // The fields are flattened by their declared names; a JSON value keyed otherwise would not
        // find its columns.
        if let encodable = value as? any Encodable, let json = try? JSONEncoder().encode(encodable),
           let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any] {
            let labels = Set(Mirror(reflecting: value).children.compactMap(\.label))
            if let key = object.keys.sorted().first(where: { !labels.contains($0) }) {
                throw SwiftDataError(.unsupportedType, "\(attribute) is a struct whose Codable conformance uses the key \(key), which is not one of its stored properties; SwiftData keeps each stored property in a column of its own, so OpenSwiftData cannot map this struct onto Core Data's layout")
            }
        }
        var elements: [Element] = []
        try flatten(value, path: [], attribute: attribute, into: &elements)
        return elements
    }

    private static func flatten(_ value: Any, path: [String], attribute: String, into elements: inout [Element]) throws {
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            let fieldPath = path + [label]
            let described = "\(attribute).\(fieldPath.joined(separator: "."))"
            var fieldType = Swift.type(of: child.value)
            var fieldValue: Any? = child.value
            if let optional = fieldType as? any _OptionalProtocol.Type {
                fieldType = optional._wrappedType
                fieldValue = optionalContents(child.value).wrapped
            }
            if let kind = kind(of: fieldType) {
                elements.append(Element(path: fieldPath, column: CoreDataModelMap.storedName(label), kind: kind))
                continue
            }
            // A nested struct is flattened in turn (an optional one from an empty value of its type).
            if fieldValue == nil, let decodable = fieldType as? any Decodable.Type { fieldValue = PlaceholderDecoder.make(decodable) }
            guard let nested = fieldValue, Mirror(reflecting: nested).displayStyle == .struct else {
                throw SwiftDataError(.unsupportedType, "\(described) is of type \(fieldType), which OpenSwiftData cannot keep in a column of a composite attribute in Core Data's layout (strings, numbers, Bool, Date, UUID, URL, Data, Decimal and nested structs of them can be kept)")
            }
            try flatten(nested, path: fieldPath, attribute: attribute, into: &elements)
        }
    }

    private static func kind(of type: Any.Type) -> Kind? {
        switch type {
        case is String.Type: return .text
        case is URL.Type: return .url
        case is Int.Type, is Int8.Type, is Int16.Type, is Int32.Type, is Int64.Type,
             is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type, is UInt64.Type: return .integer
        case is Double.Type, is Float.Type: return .real
        case is Bool.Type: return .bool
        case is Date.Type: return .date
        case is UUID.Type: return .uuid
        case is Data.Type: return .data
        case is Decimal.Type: return .decimal
        default: return nil
        }
    }
}
