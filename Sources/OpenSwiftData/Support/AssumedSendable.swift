import Foundation

/// The one place a value is given a `Sendable` type it does not declare: key paths built from
/// `Sendable` key paths (appending one loses the marker), and attribute values history reads from
/// the store (owned by nobody else). `Sendable` is a marker protocol, so the existential has the
/// value's own layout and the cast changes no bits; a dynamic cast to a marker protocol is not
/// allowed, which is why it is a bit cast. Callers say why their value is safe to share.
enum AssumedSendable {
    /// `value` as `T`, where `T` differs from `value`'s type only by `Sendable` (a different
    /// size would stop `unsafeBitCast` itself).
    @inline(__always)
    static func cast<Value, T>(_ value: Value, to _: T.Type) -> T {
        unsafeBitCast(value, to: T.self)
    }
}
