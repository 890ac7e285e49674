import Foundation

/// An enum (or other `RawRepresentable`) stored as its raw value.
final class RawValueCodec<T: RawRepresentable>: AttributeCodec {
    let raw: any AttributeCodec
    init(raw: any AttributeCodec) { self.raw = raw }
    var storedType: StoredType { raw.storedType }
    var isJSONCompatible: Bool { raw.isJSONCompatible }
    var meaning: ValueMeaning? { raw.meaning }
    var isOptional: Bool { false }
    var typeName: String { String(describing: T.self) }
    func decode(_ value: StoredValue) throws -> Any {
        guard let rawValue = try raw.decode(value) as? T.RawValue, let result = T(rawValue: rawValue) else {
            throw DecodingFailure(expected: typeName, found: value)
        }
        return result
    }
    func encode(_ value: Any) throws -> StoredValue {
        if Swift.type(of: value) == T.self { return try raw.encode((value as! T).rawValue) }
        return try encodeConverting(value)
    }

    @inline(never)
    private func encodeConverting(_ value: Any) throws -> StoredValue {
        guard let typed = value as? T else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        return try raw.encode(typed.rawValue)
    }
}
