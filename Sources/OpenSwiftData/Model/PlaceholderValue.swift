import Foundation

// What a getter returns when its value cannot be loaded: the model's row is gone (deleted by
// another context or process after this model was fetched, or never there for an identifier given
// to `model(for:)`), or the store failed. SwiftData stops the program there; a getter cannot
// throw, so OpenSwiftData logs the failure and returns the type's empty value instead.

/// A type with an obvious empty value (zero, empty, `false`).
protocol _PlaceholderValue {
    static var _placeholder: Self { get }
}

extension _PlaceholderValue where Self: Numeric {
    static var _placeholder: Self { 0 }
}

extension Int: _PlaceholderValue {}
extension Int8: _PlaceholderValue {}
extension Int16: _PlaceholderValue {}
extension Int32: _PlaceholderValue {}
extension Int64: _PlaceholderValue {}
extension UInt: _PlaceholderValue {}
extension UInt8: _PlaceholderValue {}
extension UInt16: _PlaceholderValue {}
extension UInt32: _PlaceholderValue {}
extension UInt64: _PlaceholderValue {}
extension Double: _PlaceholderValue {}
extension Float: _PlaceholderValue {}
extension Decimal: _PlaceholderValue {}
extension Bool: _PlaceholderValue { static var _placeholder: Bool { false } }
extension String: _PlaceholderValue { static var _placeholder: String { "" } }
extension Data: _PlaceholderValue { static var _placeholder: Data { Data() } }
extension Date: _PlaceholderValue { static var _placeholder: Date { Date(timeIntervalSinceReferenceDate: 0) } }
extension UUID: _PlaceholderValue { static var _placeholder: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) } }
extension URL: _PlaceholderValue { static var _placeholder: URL { URL(fileURLWithPath: "/") } }
extension Array: _PlaceholderValue { static var _placeholder: Array { [] } }
extension Dictionary: _PlaceholderValue { static var _placeholder: Dictionary { [:] } }
extension Set: _PlaceholderValue { static var _placeholder: Set { [] } }

enum PlaceholderValue {
    /// The empty value of `type`, or `nil` when it has none that can be made without knowing the
    /// type: `nil` for optionals, the empty value of the types above, the first case of a
    /// `CaseIterable` enum, the case whose raw value is empty, any other `Decodable` value decoded
    /// from nothing (``PlaceholderDecoder``: zeros, empty strings, the first case), and for a required to-one
    /// relationship a detached model of the destination type (whose own values are empty too).
    static func make<T>(_ type: T.Type) -> T? {
        make(any: type) as? T
    }

    static func make(any type: Any.Type) -> Any? {
        if let optional = type as? any _OptionalProtocol.Type { return optional._none }
        if let simple = type as? any _PlaceholderValue.Type { return simple._placeholder }
        if let enumeration = type as? any CaseIterable.Type { return firstCase(enumeration) }
        if let raw = type as? any RawRepresentable.Type, let value = emptyRawCase(raw) { return value }
        if let model = type as? any PersistentModel.Type {
            return goneModel(ModelLayout.of(model), identifier: nil)
        }
        if let decodable = type as? any Decodable.Type, let value = PlaceholderDecoder.make(decodable) { return value }
        return zeroed(type)
    }

    /// A plain-data value of at most a word with all bits zero — valid for such types (numbers,
    /// `false`, the first case of an enum without payloads, such as one whose raw values do not
    /// start at zero); `nil` for any other type.
    static func zeroed<T>(_ type: T.Type) -> Any? {
        guard _isPOD(T.self), MemoryLayout<T>.size <= MemoryLayout<UInt64>.size else { return nil }
        var zero: UInt64 = 0
        return withUnsafeBytes(of: &zero) { $0.load(as: T.self) }
    }

    /// A detached model standing for a row that does not exist: ``PersistentModel/isDeleted`` is
    /// `true`, it has no context, and its attributes hold their types' empty values. `nil` when an
    /// attribute's type has none (its `init(from:)` refuses empty values).
    static func goneModel(_ layout: ModelLayout, identifier: PersistentIdentifier?) -> (any PersistentModel)? {
        guard layout.slotsWithoutPlaceholder.isEmpty else { return nil }
        let data = BackingData(layout: layout)
        for slot in layout.storedSlots where layout.properties[slot].codec != nil {
            if let value = make(any: layout.properties[slot].valueType) { data.slots[slot] = .value(value) }
        }
        data.primaryKey = identifier?.primaryKey
        data.storeIdentifier = identifier?.storeIdentifier
        data.isGone = true
        return layout.modelType.init(backingData: data)
    }

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? {
        type.allCases.first
    }

    private static func emptyRawCase<R: RawRepresentable>(_ type: R.Type) -> Any? {
        (make(any: R.RawValue.self) as? R.RawValue).flatMap(R.init(rawValue:))
    }
}

/// What `model(for:)` returns for an identifier of an entity the container's schema does not have
/// (one decoded from data written with another schema): a detached model of no user type, so
/// `model(for: id) as? Trip` gives `nil` instead of the program stopping.
final class UnknownEntityModel: PersistentModel {
    var persistentBackingData: BackingData
    static var schemaMetadata: [Schema.PropertyMetadata] { [] }
    init(backingData: BackingData) { persistentBackingData = backingData }
}
