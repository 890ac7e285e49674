import Foundation

/// Converts one attribute type between its Swift value and its stored ``StoredValue``.
///
/// A codec is chosen once per property from the property's type (``AttributeCodecs/make(for:)``);
/// predicates use the same choice for constants, so a value and the stored value it is compared
/// with are always encoded alike. Codecs are classes so that holding and passing one on the
/// loading path costs a reference count rather than a value-witness copy.
protocol AttributeCodec: AnyObject, Sendable {
    var storedType: StoredType { get }
    /// Whether the Swift type is optional (the stored value may be null).
    var isOptional: Bool { get }
    /// A short name of the Swift type for messages.
    var typeName: String { get }
    /// The type as the schema fingerprint records it (``typeName``, except for values stored in
    /// their own `Codable` form, whose type may change shape without a migration).
    var schemaTypeName: String { get }
    /// Whether predicates and sorts may not look at the stored values (`@Attribute(.codable)`).
    var isOpaque: Bool { get }
    /// Whether values are Swift strings, which stores must compare in Swift's order.
    var isSwiftString: Bool { get }
    /// Whether the stored form does not order like the Swift values (decimals stored as text), so
    /// ordering comparisons convert it to a number first.
    var ordersAsReal: Bool { get }
    /// Whether a value's JSON form (inside a `Codable` array or dictionary) equals its stored form,
    /// so JSON elements can be compared with encoded constants.
    var isJSONCompatible: Bool { get }
    /// For arrays and dictionaries stored as JSON: what predicates can reach inside.
    var jsonShape: JSONShape? { get }
    /// Whether values are stored as JSON text (which has no meaningful order).
    var storesJSON: Bool { get }
    /// Whether values are `Double` or `Float`, whose NaN is stored as the text `NaN` (databases
    /// turn a NaN into null), so ordering comparisons must leave it out as Swift does.
    var isFloatingPoint: Bool { get }
    /// How a store adds the stored values up exactly (``StoreArithmetic``).
    var arithmetic: StoreArithmetic { get }
    /// Whether a database's `min` and `max` of the stored values (strings under Swift's
    /// collation, NaN left out) are Swift's: numbers stored as numbers, strings and dates — not
    /// decimals stored as text, values stored by bit pattern, or enums (ordered by case, not by
    /// raw value).
    var ordersInStore: Bool { get }
    /// What the values mean, for stores that keep dates, UUIDs or decimals in a type of their own
    /// (`nil` for every other type).
    var meaning: ValueMeaning? { get }
    func decode(_ value: StoredValue) throws -> Any
    func encode(_ value: Any) throws -> StoredValue
    /// The stored value as Core Data's layout keeps it: values stored as JSON here are binary
    /// property lists there (how SwiftData writes `Codable` values on Apple platforms); every
    /// other value is stored alike.
    func encodeForPropertyListStore(_ value: Any) throws -> StoredValue
}

/// What is inside an array or dictionary attribute stored as JSON, for stores that reach into it.
struct JSONShape {
    var element: (any AttributeCodec)?
    var isDictionary: Bool
}

/// How a store adds up an attribute's stored values so that the sum decodes to the exact sum of
/// the Swift values.
enum StoreArithmetic {
    /// Not in the store (values stored by bit pattern, or not numbers): the models are added.
    case none
    /// 64-bit integers the database adds exactly.
    case integer
    /// Doubles (`Float`s are stored as doubles); NaN is stored as text on engines without it.
    case real
    /// `Decimal`s, stored as text: read from their column and added in Swift.
    case decimal
}

/// Why a stored value could not become the property's type.
struct DecodingFailure: Error, CustomStringConvertible {
    let expected: String
    let found: StoredValue

    var description: String {
        let shown = found.description
        return "expected a value of type \(expected), found \(shown.count > 60 ? String(shown.prefix(60)) + "…" : shown)"
    }
}

extension AttributeCodec {
    var schemaTypeName: String { typeName }
    var isOpaque: Bool { false }
    var isSwiftString: Bool { false }
    var ordersAsReal: Bool { false }
    var isJSONCompatible: Bool { false }
    var jsonShape: JSONShape? { nil }
    var storesJSON: Bool { false }
    var isFloatingPoint: Bool { false }
    var arithmetic: StoreArithmetic { .none }
    var ordersInStore: Bool { false }
    var meaning: ValueMeaning? { nil }
    func encodeForPropertyListStore(_ value: Any) throws -> StoredValue { try encode(value) }
}

final class ScalarCodec<T: StoredScalar>: AttributeCodec {
    init() {}
    var storedType: StoredType { T.storedType }
    var isSwiftString: Bool { T.self == String.self }
    var ordersAsReal: Bool { T.self == Decimal.self }
    var meaning: ValueMeaning? { T.meaning }
    var isFloatingPoint: Bool { T.self == Double.self || T.self == Float.self }
    var arithmetic: StoreArithmetic {
        if isFloatingPoint { return .real }
        if T.self == Decimal.self { return .decimal }
        // `UInt64` and `UInt` above `Int64.max` are stored by bit pattern, which does not add up.
        if T.self is any StoredInteger.Type && T.self != UInt64.self && T.self != UInt.self { return .integer }
        return .none
    }
    var ordersInStore: Bool {
        arithmetic == .integer || arithmetic == .real || T.self == String.self || T.self == Date.self
    }
    var isJSONCompatible: Bool {
        T.self != Decimal.self && T.self != UUID.self && T.self != Data.self && T.self != UInt64.self && T.self != UInt.self
    }
    var isOptional: Bool { false }
    var typeName: String { String(describing: T.self) }
    func decode(_ value: StoredValue) throws -> Any { try T.decode(value) }
    func encode(_ value: Any) throws -> StoredValue {
        // The exact-type test first: a conditional cast (`as? T`) in code that is generic at run
        // time looks up `Optional<T>`'s metadata, a hash-table lookup, on every call.
        if Swift.type(of: value) == T.self {
            if isInlineInAny(T.self) {
                // Read from the `Any`'s inline buffer instead of asking the runtime's cast.
                return withUnsafeBytes(of: value) { $0.load(as: T.self) }.storedValue
            }
            return (value as! T).storedValue
        }
        return try encodeConverting(value)
    }

    /// A value of another dynamic type (a subclass, or wrapped): out of line, so the metadata its
    /// cast needs is not looked up on the fast path.
    @inline(never)
    private func encodeConverting(_ value: Any) throws -> StoredValue {
        guard let typed = value as? T else { throw AttributeCodecs.typeMismatch(value, expected: typeName) }
        return typed.storedValue
    }
}

/// Lets generic code reach `Optional`'s wrapped type without knowing it statically.
protocol _OptionalProtocol {
    static var _wrappedType: Any.Type { get }
    static func _optionalCodec() -> (any AttributeCodec)?
    static func _transformableCodec(transformer: ValueTransformer, name: String) -> any AttributeCodec
    /// `@Attribute(.codable)` on an optional: the wrapped type in its own `Codable` form.
    static func _codableCodec() -> (any AttributeCodec)?
    static var _none: Any { get }
    var _wrapped: Any? { get }
}

/// Whether `value` is an `Optional`, and if so what it wraps (`nil` for `.none`), without a cast
/// to a protocol per call (see ``ConformanceCache``).
func optionalContents(_ value: Any) -> (isOptional: Bool, wrapped: Any?) {
    guard let optionalType = optionalTypes.answer(for: type(of: value)) else { return (false, value) }
    return (true, optionalType._wrapped(of: value))
}

private let optionalTypes = ConformanceCache<any _OptionalProtocol.Type> { $0 as? any _OptionalProtocol.Type }

extension _OptionalProtocol {
    static func _wrapped(of value: Any) -> Any? {
        (value as? Self)?._wrapped
    }
}

extension Optional: _OptionalProtocol {
    var _wrapped: Any? { self.map { $0 as Any } }
    static var _wrappedType: Any.Type { Wrapped.self }
    static func _optionalCodec() -> (any AttributeCodec)? {
        guard let wrapped = AttributeCodecs.make(for: Wrapped.self), !wrapped.isOptional else { return nil }
        return OptionalCodec<Wrapped>(wrapped: wrapped)
    }
    static var _none: Any { Optional<Wrapped>.none as Any }
    static func _codableCodec() -> (any AttributeCodec)? {
        guard let wrapped = AttributeCodecs.codable(for: Wrapped.self), !wrapped.isOptional else { return nil }
        return OptionalCodec<Wrapped>(wrapped: wrapped)
    }
}

enum AttributeCodecs {
    /// The codec for a property type, or `nil` if the type cannot be stored. Worked out once per
    /// type: the protocol casts it takes are slow (see ``ConformanceCache``), and predicates ask
    /// for the codec of every constant they compare.
    static func make(for type: Any.Type) -> (any AttributeCodec)? {
        codecs.answer(for: type)
    }

    private static let codecs = ConformanceCache<any AttributeCodec> { makeUncached(for: $0) }

    private static func makeUncached(for type: Any.Type) -> (any AttributeCodec)? {
        if let scalar = type as? any StoredScalar.Type {
            return scalarCodec(scalar)
        }
        if let optional = type as? any _OptionalProtocol.Type {
            return optional._optionalCodec()
        }
        if let raw = type as? any RawRepresentable.Type, let codec = rawCodec(raw) {
            return codec
        }
        if let codable = type as? any Codable.Type {
            return jsonCodec(codable)
        }
        return nil
    }

    private static func scalarCodec<T: StoredScalar>(_ type: T.Type) -> any AttributeCodec {
        ScalarCodec<T>()
    }

    private static func rawCodec<T: RawRepresentable>(_ type: T.Type) -> (any AttributeCodec)? {
        guard let raw = make(for: T.RawValue.self), raw is any ScalarCodecMarker else { return nil }
        return RawValueCodec<T>(raw: raw)
    }

    private static func jsonCodec<T: Codable>(_ type: T.Type) -> any AttributeCodec {
        JSONCodec<T>()
    }

    static func typeMismatch(_ value: Any, expected: String) -> SwiftDataError {
        SwiftDataError(.unsupportedType, "value of type \(type(of: value)) where \(expected) was expected")
    }
}

/// Marks codecs whose values are plain scalars (raw values of enums must be scalars).
protocol ScalarCodecMarker {}
extension ScalarCodec: ScalarCodecMarker {}

/// Arrays and dictionaries stored as JSON, whose elements predicates can reach with `json_each`.
protocol _JSONContainer {
    static var _elementCodec: (any AttributeCodec)? { get }
    static var _isDictionary: Bool { get }
}

extension Array: _JSONContainer {
    static var _elementCodec: (any AttributeCodec)? { AttributeCodecs.make(for: Element.self) }
    static var _isDictionary: Bool { false }
}

extension Dictionary: _JSONContainer where Key == String {
    static var _elementCodec: (any AttributeCodec)? { AttributeCodecs.make(for: Value.self) }
    static var _isDictionary: Bool { true }
}

extension Set: _JSONContainer {
    static var _elementCodec: (any AttributeCodec)? { AttributeCodecs.make(for: Element.self) }
    static var _isDictionary: Bool { false }
}

/// Lets the translator recognise `count`, `isEmpty`, `first` and `last` on any collection type.
protocol _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { get }
    static var _isEmptyKeyPath: AnyKeyPath { get }
    static var _firstKeyPath: AnyKeyPath? { get }
    static var _lastKeyPath: AnyKeyPath? { get }
}

extension Array: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
    static var _firstKeyPath: AnyKeyPath? { \Self.first }
    static var _lastKeyPath: AnyKeyPath? { \Self.last }
}

extension Set: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
    static var _firstKeyPath: AnyKeyPath? { nil }
    static var _lastKeyPath: AnyKeyPath? { nil }
}

extension Dictionary: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
    static var _firstKeyPath: AnyKeyPath? { nil }
    static var _lastKeyPath: AnyKeyPath? { nil }
}

extension String: _CollectionKeyPaths {
    static var _countKeyPath: AnyKeyPath { \Self.count }
    static var _isEmptyKeyPath: AnyKeyPath { \Self.isEmpty }
    static var _firstKeyPath: AnyKeyPath? { nil }
    static var _lastKeyPath: AnyKeyPath? { nil }
}

/// Whether an `Any` holding a `T` stores it in its three-word inline buffer (Swift's existential
/// layout: values that fit and can be moved bit for bit). Decided for plain-data types and
/// strings, the common attribute types; constant in specialised code.
@inline(__always)
private func isInlineInAny<T>(_ type: T.Type) -> Bool {
    MemoryLayout<T>.size <= 3 * MemoryLayout<Int>.size
        && MemoryLayout<T>.alignment <= MemoryLayout<Int>.alignment
        && (_isPOD(T.self) || T.self == String.self || T.self == String?.self)
}
