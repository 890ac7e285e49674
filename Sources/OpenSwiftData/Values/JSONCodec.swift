import Foundation

/// `Codable` values that are not scalars (structs, enums with payloads, arrays, dictionaries) are
/// stored as JSON text with sorted keys, so equal values store equal text.
final class JSONCodec<T: Codable>: AttributeCodec, _JSONCodecProtocol {
    init() {}
    var codableType: any Codable.Type { T.self }
    /// For arrays and dictionaries: the codec of the elements (values), if predicates can look inside.
    var elementCodec: (any AttributeCodec)? {
        guard let container = T.self as? any _JSONContainer.Type, let element = container._elementCodec, element.isJSONCompatible else { return nil }
        return element
    }
    var storesJSON: Bool { true }
    /// Whether the JSON is an object keyed by strings (a dictionary) rather than an array.
    var isDictionary: Bool { (T.self as? any _JSONContainer.Type)?._isDictionary ?? false }
    var jsonShape: JSONShape? {
        guard T.self is any _JSONContainer.Type else { return nil }
        return JSONShape(element: elementCodec, isDictionary: isDictionary)
    }
    var storedType: StoredType { .text }
    var isOptional: Bool { false }
    var typeName: String { String(describing: T.self) }
    func decode(_ value: StoredValue) throws -> Any {
        let data: Data
        switch value {
        case .text(let text): data = Data(text.utf8)
        case .blob(let blob) where blob.starts(with: "bplist".utf8):
            // How SwiftData stores arrays and other Codable values in Core Data's layout.
            return try PropertyListDecoder().decode(T.self, from: blob)
        case .blob(let blob): data = blob
        default: throw DecodingFailure(expected: typeName, found: value)
        }
        return try JSONDecoder().decode(T.self, from: data)
    }
    func encode(_ value: Any) throws -> StoredValue {
        guard let typed = value as? T else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(typed)
        return .text(String(decoding: data, as: UTF8.self))
    }
    func encodeForPropertyListStore(_ value: Any) throws -> StoredValue {
        guard let typed = value as? T else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return .blob(try encoder.encode(typed))
    }
}

/// Lets code holding any codec reach the `Codable` type of a ``JSONCodec``.
protocol _JSONCodecProtocol {
    var codableType: any Codable.Type { get }
}
