import Foundation

/// How one slot's value is kept unboxed in a backing data's storage, for the property's static
/// type: what the storage needs for values it has no typed path for (a value written as a
/// ``BackingData/Slot``, a custom or `Codable` type, a relationship's models).
///
/// Made where the property's type is known (``TypedProperty``), so `Value` is the type `@Model`
/// declared; the storage's hot paths (``BackingData/_value(_:of:)``, the row reader, the save's
/// encoder) do not come here for the common attribute types (``SlotStorageLayout/Scalar``).
@usableFromInline
protocol SlotWitness: Sendable {
    var valueType: Any.Type { get }
    var size: Int { get }
    var alignment: Int { get }
    /// Whether a value needs no destroying (plain data: numbers, dates, UUIDs).
    var isTrivial: Bool { get }
    /// A copy of the value at `pointer`, boxed.
    func load(_ pointer: UnsafeRawPointer) -> Any
    /// Writes `value` into the uninitialised memory at `pointer` if it is a `Value` (an optional
    /// property takes its wrapped type too); `false`, and nothing written, if it is not.
    func initialize(_ pointer: UnsafeMutableRawPointer, with value: Any) -> Bool
    /// Destroys the value at `pointer`, leaving the memory uninitialised.
    func destroy(_ pointer: UnsafeMutableRawPointer)
}

/// The ``SlotWitness`` of a property of type `Value`.
struct TypedSlotWitness<Value>: SlotWitness {
    /// `Value.self`, taken once: naming an optional or collection type in code generic at run
    /// time looks its metadata up in the runtime's table on every call.
    let valueType: Any.Type = Value.self
    var size: Int { MemoryLayout<Value>.size }
    var alignment: Int { MemoryLayout<Value>.alignment }
    var isTrivial: Bool { _isPOD(Value.self) }

    func load(_ pointer: UnsafeRawPointer) -> Any {
        pointer.assumingMemoryBound(to: Value.self).pointee
    }

    func initialize(_ pointer: UnsafeMutableRawPointer, with value: Any) -> Bool {
        if Swift.type(of: value) == valueType {
            // Exactly a `Value`: copied out of the `Any` as it is. The runtime's cast looks up
            // generic metadata for optional and collection types on every call, and relationship
            // changes come here for each model they link.
            func put<Opened>(_ opened: Opened) {
                pointer.initializeMemory(as: Opened.self, repeating: opened, count: 1)
            }
            _openExistential(value, do: put)
            return true
        }
        guard let typed = value as? Value else { return false }
        pointer.initializeMemory(as: Value.self, repeating: typed, count: 1)
        return true
    }

    func destroy(_ pointer: UnsafeMutableRawPointer) {
        pointer.assumingMemoryBound(to: Value.self).deinitialize(count: 1)
    }
}

/// The ``SlotWitness`` of a relationship (and of a property without type information): the value
/// kept as an `Any`, as the relationship code reads and changes it (``RelationshipValueAccess``
/// works on `Any`). Not generic, so nothing here looks up metadata at run time: a generic
/// witness's pointer operations did, on every link of a model to another.
struct AnySlotWitness: SlotWitness {
    var valueType: Any.Type { Any.self }
    var size: Int { MemoryLayout<Any>.size }
    var alignment: Int { MemoryLayout<Any>.alignment }
    var isTrivial: Bool { false }

    func load(_ pointer: UnsafeRawPointer) -> Any {
        pointer.assumingMemoryBound(to: Any.self).pointee
    }

    func initialize(_ pointer: UnsafeMutableRawPointer, with value: Any) -> Bool {
        pointer.initializeMemory(as: Any.self, repeating: value, count: 1)
        return true
    }

    func destroy(_ pointer: UnsafeMutableRawPointer) {
        pointer.assumingMemoryBound(to: Any.self).deinitialize(count: 1)
    }
}
