import Foundation

/// Stores an attribute declared `@Attribute(.codable)`: the value in its own `Codable` encoding
/// (JSON with sorted keys), as one opaque value. Predicates and sorts cannot look at it, and the
/// schema records only that the property is `Codable`, so the type can change shape (a field
/// added, say) without a migration: old values decode with the new type as its `Codable`
/// conformance allows.
final class CodableCodec<T: Codable>: AttributeCodec {
    var storedType: StoredType { .text }
    var isOptional: Bool { false }
    var typeName: String { String(describing: T.self) }
    var schemaTypeName: String { "Codable" }
    var isOpaque: Bool { true }
    var storesJSON: Bool { true }

    func decode(_ value: StoredValue) throws -> Any {
        switch value {
        case .text(let text): return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        case .blob(let blob): return try JSONDecoder().decode(T.self, from: blob)
        default: throw DecodingFailure(expected: typeName, found: value)
        }
    }

    func encode(_ value: Any) throws -> StoredValue {
        guard let typed = value as? T else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return .text(String(decoding: try encoder.encode(typed), as: UTF8.self))
    }
}

extension AttributeCodecs {
    /// The codec for `@Attribute(.codable)` on a property of `type` (optional or not); `nil` if
    /// the type is not `Codable`.
    static func codable(for type: Any.Type) -> (any AttributeCodec)? {
        if let optional = type as? any _OptionalProtocol.Type { return optional._codableCodec() }
        guard let codable = type as? any Codable.Type else { return nil }
        return codableCodec(codable)
    }

    private static func codableCodec<V: Codable>(_ type: V.Type) -> any AttributeCodec {
        CodableCodec<V>()
    }
}
