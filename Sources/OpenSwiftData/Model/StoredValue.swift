import Foundation

/// An attribute value in its stored form, as every store keeps it: the four primitive classes
/// SQL engines, JSON and Core Data's files share (integer, real, text, blob), plus null.
/// ``AttributeCodec``s convert Swift values to and from it.
package enum StoredValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// The primitive class an attribute's values are stored as, chosen by its codec.
package enum StoredType: String, Sendable {
    case integer
    case real
    case text
    case blob
}
