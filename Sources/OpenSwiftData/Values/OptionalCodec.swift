import Foundation

/// Reaches an optional codec's parts without knowing its wrapped type.
protocol _OptionalCodecProtocol {
    var wrappedCodec: any AttributeCodec { get }
    /// `nil` as the optional type, boxed.
    var noneValue: Any { get }
}

/// An optional attribute. A loaded non-nil value is kept as the bare wrapped value (reading it as
/// `Wrapped?` wraps it), so loading does not re-box every value into an `Optional` in code that is
/// generic at run time; assigned values arrive as `Wrapped?`. Both forms encode alike.
/// `@unchecked Sendable`: every stored property is an immutable value (`none` is a boxed `nil`).
final class OptionalCodec<Wrapped>: AttributeCodec, _OptionalCodecProtocol, @unchecked Sendable {
    let wrapped: any AttributeCodec
    /// `nil` as a `Wrapped?`, boxed once.
    private let none: Any = Optional<Wrapped>.none as Any
    var wrappedCodec: any AttributeCodec { wrapped }
    var noneValue: Any { none }
    private let optionalType: Any.Type = Optional<Wrapped>.self
    init(wrapped: any AttributeCodec) { self.wrapped = wrapped }
    var storedType: StoredType { wrapped.storedType }
    var isSwiftString: Bool { wrapped.isSwiftString }
    var ordersAsReal: Bool { wrapped.ordersAsReal }
    var meaning: ValueMeaning? { wrapped.meaning }
    var isJSONCompatible: Bool { wrapped.isJSONCompatible }
    var jsonShape: JSONShape? { wrapped.jsonShape }
    var storesJSON: Bool { wrapped.storesJSON }
    var isFloatingPoint: Bool { wrapped.isFloatingPoint }
    var arithmetic: StoreArithmetic { wrapped.arithmetic }
    var ordersInStore: Bool { wrapped.ordersInStore }
    var isOptional: Bool { true }
    var typeName: String { wrapped.typeName + "?" }
    var schemaTypeName: String { wrapped.schemaTypeName + "?" }
    var isOpaque: Bool { wrapped.isOpaque }
    func decode(_ value: StoredValue) throws -> Any {
        if case .null = value { return none }
        return try wrapped.decode(value)
    }
    func encode(_ value: Any) throws -> StoredValue {
        if Swift.type(of: value) != optionalType {
            // A bare wrapped value, as loading stores it.
            return try wrapped.encode(value)
        }
        // A cast to the concrete optional type, not to a protocol (see `ConformanceCache`).
        guard let optional = value as? Wrapped? else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        guard let inner = optional else { return .null }
        return try wrapped.encode(inner)
    }
    func encodeForPropertyListStore(_ value: Any) throws -> StoredValue {
        if Swift.type(of: value) != optionalType { return try wrapped.encodeForPropertyListStore(value) }
        guard let optional = value as? Wrapped? else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        guard let inner = optional else { return .null }
        return try wrapped.encodeForPropertyListStore(inner)
    }
}
