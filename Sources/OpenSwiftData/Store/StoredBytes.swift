import Foundation

/// What a store read of part of a stored `Data` value (``RowStore/readBytes(_:key:slot:offset:length:editingState:)``).
package enum StoredBytes {
    /// The store reads values whole only.
    case unsupported
    /// There is no such row (or none the context reads).
    case missing
    /// The value's size in bytes (0 for none), and the bytes asked for (fewer past its end).
    case range(total: Int64, bytes: Data)
}
