import Foundation

#if !canImport(Darwin)
/// The name a ``ValueTransformer`` is registered under: Foundation's `NSValueTransformerName`,
/// which Linux Foundation lacks.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name.
    public let rawValue: String
    /// A name from its text.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A name from its text.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Turns values into other values and, if it allows, back: Foundation's `ValueTransformer`,
/// which Linux Foundation lacks, so that `@Attribute(.transformable(by:))` works as in SwiftData.
///
/// ```swift
/// final class RGBTransformer: ValueTransformer {
///     override class func allowsReverseTransformation() -> Bool { true }
///     override func transformedValue(_ value: Any?) -> Any? {
///         (value as? RGB).map { Data([$0.red, $0.green, $0.blue]) }
///     }
///     override func reverseTransformedValue(_ value: Any?) -> Any? {
///         (value as? Data).flatMap { $0.count == 3 ? RGB(red: $0[0], green: $0[1], blue: $0[2]) : nil }
///     }
/// }
///
/// @Model final class Label {
///     @Attribute(.transformable(by: RGBTransformer.self)) var color: RGB
///     …
/// }
/// ```
///
/// A transformable attribute stores what ``transformedValue(_:)`` returns, which must be `Data`,
/// and reads with ``reverseTransformedValue(_:)``. Transformers used by name
/// (`.transformable(by: "RGB")`) are registered with ``setValueTransformer(_:forName:)`` before
/// the first container for the model is made.
open class ValueTransformer: NSObject, ValueTransformerLookup {
    private static let registered = Locked<[NSValueTransformerName: ValueTransformer]>([:])

    /// Creates a transformer. `required`, so `.transformable(by: SomeTransformer.self)` can make one.
    public required override init() {
        super.init()
    }

    /// Registers `transformer` under `name` (`nil` removes the registration).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registered.withLock { $0[name] = transformer }
    }

    /// The names of the registered transformers.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registered.withLock { Array($0.keys) }
    }

    static func registeredTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        registered.withLock { $0[name] }
    }

    /// The class of the values ``transformedValue(_:)`` returns.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether ``reverseTransformedValue(_:)`` is supported. `false` unless overridden.
    open class func allowsReverseTransformation() -> Bool { false }

    /// The transformed value. Returns `value` unless overridden.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value `value` was transformed from. Returns `value` unless overridden.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }
}

/// Gives ``ValueTransformer`` Foundation's `ValueTransformer(forName:)`, which returns the
/// registered instance: a class's own initialiser cannot return an existing object, a protocol
/// extension's can.
public protocol ValueTransformerLookup {}

extension ValueTransformerLookup where Self: ValueTransformer {
    /// The transformer registered under `name`, or `nil`.
    public init?(forName name: NSValueTransformerName) {
        guard let transformer = ValueTransformer.registeredTransformer(forName: name) as? Self else { return nil }
        self = transformer
    }
}
#endif
