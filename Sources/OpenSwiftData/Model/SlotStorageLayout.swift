import Foundation

/// Where each value of a model lives in its backing data's one block of storage, worked out once
/// per model class from the properties' static types.
///
/// The block starts with a byte per slot saying what the slot holds (``Kind``); each slot's value
/// follows at `slots[slot].offset`, unboxed in the bytes its type needs (an `Int` in 8 where a slot of
/// `Any` took 40), with at least 8 so the same room holds a to-one's key or a box. Values are
/// read and written by their static type: the common attribute types through ``Scalar`` with no
/// call, every other type through its ``SlotWitness``.
///
/// `@unchecked Sendable`: every property is a `let`, set before the layout is published.
@usableFromInline
final class SlotStorageLayout: @unchecked Sendable {
    /// What a slot holds, the byte at the slot's index.
    @usableFromInline
    enum Kind: UInt8 {
        /// Not loaded; nothing is in the slot's bytes.
        case unloaded = 0
        /// A value of the property's type.
        case value = 1
        /// A to-one's related row key (an `Int64`), until the relationship is read.
        case toOneKey = 2
        /// A ``SlotBox``: a ``BackingData/Slot`` with no unboxed form (an unreadable value, a
        /// to-many's pending members, or a value of another type than the property's).
        case boxed = 3
    }

    /// The common attribute types, kept and read without a witness: each case is the slot's exact
    /// static type.
    @usableFromInline
    enum Scalar: UInt8 {
        case other
        case int, int64, double, string, date, bool
        case optionalInt, optionalInt64, optionalDouble, optionalString, optionalDate, optionalBool

        init(_ type: Any.Type) {
            switch ObjectIdentifier(type) {
            case ObjectIdentifier(Int.self): self = .int
            case ObjectIdentifier(Int64.self): self = .int64
            case ObjectIdentifier(Double.self): self = .double
            case ObjectIdentifier(String.self): self = .string
            case ObjectIdentifier(Date.self): self = .date
            case ObjectIdentifier(Bool.self): self = .bool
            case ObjectIdentifier(Int?.self): self = .optionalInt
            case ObjectIdentifier(Int64?.self): self = .optionalInt64
            case ObjectIdentifier(Double?.self): self = .optionalDouble
            case ObjectIdentifier(String?.self): self = .optionalString
            case ObjectIdentifier(Date?.self): self = .optionalDate
            case ObjectIdentifier(Bool?.self): self = .optionalBool
            default: self = .other
            }
        }
    }

    /// What the hot paths need of a slot, in memory of its own: plain values read through a
    /// pointer, with no reference count (a class's arrays would be retained on every read).
    @usableFromInline
    struct SlotInfo {
        /// Where the slot's bytes start in the block.
        @usableFromInline let offset: Int
        /// The property's static type, which a typed read or write must name exactly.
        @usableFromInline let type: Any.Type
        let scalar: Scalar
        /// Whether a value of the type needs no destroying (plain data). The kind byte still says
        /// whether the slot holds a box, which always does.
        let isTrivial: Bool
        /// The bytes the slot takes (at least 8).
        let byteCount: Int
    }

    let count: Int
    /// The size of the block, and its alignment.
    let byteCount: Int
    let alignment: Int
    /// Whether the block fits in the room a backing data has for it in its own allocation
    /// (``BackingData/InlineStorage``), so a model of this layout costs no second allocation.
    let fitsInline: Bool
    /// One ``SlotInfo`` per slot, freed with the layout (layouts live as long as the process).
    @usableFromInline let slots: UnsafeMutablePointer<SlotInfo>
    let witnesses: [any SlotWitness]

    init(_ witnesses: [any SlotWitness]) {
        count = witnesses.count
        slots = .allocate(capacity: max(witnesses.count, 1))
        var cursor = witnesses.count
        var alignment = MemoryLayout<Int64>.alignment
        for (index, witness) in witnesses.enumerated() {
            let align = max(witness.alignment, MemoryLayout<Int64>.alignment)
            cursor = (cursor + align - 1) / align * align
            let size = max(witness.size, MemoryLayout<Int64>.size)
            (slots + index).initialize(to: SlotInfo(
                offset: cursor, type: witness.valueType, scalar: Scalar(witness.valueType), isTrivial: witness.isTrivial, byteCount: size))
            cursor += size
            alignment = max(alignment, align)
        }
        byteCount = max(cursor, 1)
        self.alignment = alignment
        fitsInline = byteCount <= MemoryLayout<BackingData.InlineStorage>.size && alignment <= MemoryLayout<BackingData.InlineStorage>.alignment
        self.witnesses = witnesses
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }
}

/// A slot with no unboxed form, kept in the slot's bytes as one reference (``SlotStorageLayout/Kind/boxed``).
final class SlotBox {
    let slot: BackingData.Slot
    init(_ slot: BackingData.Slot) { self.slot = slot }
}
