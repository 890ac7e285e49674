import Foundation

/// Stores an attribute declared `.transformable(by:)`: the `Data` its transformer makes of the
/// value, read back through the transformer's reverse transformation.
///
/// `@unchecked Sendable`: the transformer is only called, never changed, and transformers are
/// expected to be stateless, as Foundation's are.
final class TransformableCodec<T>: AttributeCodec, @unchecked Sendable {
    private let transformer: ValueTransformer
    private let transformerName: String

    init(transformer: ValueTransformer, name: String) {
        self.transformer = transformer
        self.transformerName = name
    }

    var storedType: StoredType { .blob }
    var isOptional: Bool { false }
    var typeName: String { "\(T.self) transformed by \(transformerName)" }

    func encode(_ value: Any) throws -> StoredValue {
        guard let data = transformer.transformedValue(value) as? Data else {
            throw SwiftDataError(.unsupportedType, "the transformer \(transformerName) did not turn a \(type(of: value)) into Data; its transformedValue(_:) must return Data for the store")
        }
        return .blob(data)
    }

    func decode(_ value: StoredValue) throws -> Any {
        guard case .blob(let data) = value else { throw DecodingFailure(expected: typeName, found: value) }
        guard type(of: transformer).allowsReverseTransformation() else {
            throw SwiftDataError(.unsupportedType, "the transformer \(transformerName) does not allow reverse transformation, so stored \(T.self) values cannot be read; override allowsReverseTransformation() to return true")
        }
        guard let result = transformer.reverseTransformedValue(data) as? T else {
            throw SwiftDataError(.unsupportedType, "the transformer \(transformerName) did not turn the stored data back into a \(T.self)")
        }
        return result
    }

    /// The codec for a property of type `Value` (optional or not) stored through `transformer`.
    static func make<Value>(for _: Value.Type, transformer: ValueTransformer, name: String) -> any AttributeCodec {
        if let optional = Value.self as? any _OptionalProtocol.Type {
            return optional._transformableCodec(transformer: transformer, name: name)
        }
        return TransformableCodec<Value>(transformer: transformer, name: name)
    }
}

extension Optional {
    static func _transformableCodec(transformer: ValueTransformer, name: String) -> any AttributeCodec {
        OptionalCodec<Wrapped>(wrapped: TransformableCodec<Wrapped>(transformer: transformer, name: name))
    }
}
