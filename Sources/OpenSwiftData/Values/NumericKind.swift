import Foundation

/// Whether a Swift type name is an integer or a floating-point type: a lightweight migration
/// converts between integer widths, from integers to floating point, and between floating-point
/// widths (`SQLMigrator`, and ``SchemaDiff`` judging a changed type).
enum NumericKind {
    case integer, floatingPoint

    init?(typeName: String) {
        switch typeName {
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": self = .integer
        case "Double", "Float", "Float16", "CGFloat": self = .floatingPoint
        default: return nil
        }
    }

    /// Whether a lightweight migration converts values of type `old` into type `new`.
    static func converts(_ old: String, to new: String) -> Bool {
        switch (NumericKind(typeName: old), NumericKind(typeName: new)) {
        case (.integer?, .integer?), (.floatingPoint?, .floatingPoint?), (.integer?, .floatingPoint?): return true
        default: return false
        }
    }
}
