import Foundation

/// Encodes a `PersistentIdentifier` compared with a row's `persistentModelID`: its primary key
/// when it names a stored model of the same entity, otherwise a key no row has (temporary
/// identifiers match unsaved models through the context's pending changes instead).
final class IdentifierCodec: AttributeCodec {
    let entityName: String
    init(entityName: String) { self.entityName = entityName }
    var storedType: StoredType { .integer }
    var isOptional: Bool { false }
    var typeName: String { "PersistentIdentifier" }
    func decode(_ value: StoredValue) throws -> Any {
        guard case .integer(let key) = value else { throw DecodingFailure(expected: typeName, found: value) }
        return PersistentIdentifier(entityName: entityName, storeIdentifier: nil, key: .permanent(key))
    }
    func encode(_ value: Any) throws -> StoredValue {
        guard let identifier = value as? PersistentIdentifier else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        guard identifier.entityName == entityName, let key = identifier.primaryKey else { return .integer(-1) }
        return .integer(key)
    }
}
