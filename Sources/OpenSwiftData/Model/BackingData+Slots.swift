import Foundation

/// A backing data's storage: one block per model, laid out by ``SlotStorageLayout`` — a kind byte
/// per slot, then each value unboxed by its property's static type. Typed reads and writes go
/// straight to the bytes; everything else sees each slot as a ``BackingData/Slot``.
extension BackingData {
    /// The slots seen one at a time as ``Slot`` values (a value boxed in `Any`): the general path,
    /// for the code that handles every kind of slot (relationships, faults, originals, undo).
    /// `unowned(unsafe)`: a view used while its backing data is in hand, never kept.
    struct Slots {
        unowned(unsafe) let data: BackingData

        var count: Int { data.storageLayout.count }

        subscript(index: Int) -> Slot {
            get { data.slot(at: index) }
            nonmutating set { data.replaceSlot(index, with: newValue) }
        }
    }

    var slots: Slots { Slots(data: self) }

    /// Allocates a block for `layout` (one that does not fit in the backing data, or a subclass's
    /// adopted later) with every slot not loaded.
    static func allocateStorage(_ layout: SlotStorageLayout) -> UnsafeMutableRawPointer {
        initializeStorage(UnsafeMutableRawPointer.allocate(byteCount: layout.byteCount, alignment: layout.alignment), layout)
    }

    /// Marks every slot of `layout` in `block` not loaded.
    @inline(__always)
    static func initializeStorage(_ block: UnsafeMutableRawPointer, _ layout: SlotStorageLayout) -> UnsafeMutableRawPointer {
        block.initializeMemory(as: UInt8.self, repeating: SlotStorageLayout.Kind.unloaded.rawValue, count: layout.count)
        return block
    }

    /// Frees `block`, allocated by ``allocateStorage(_:)``, unless it is this backing data's own room.
    private func releaseStorage(_ block: UnsafeMutableRawPointer) {
        if block != inlineStorageAddress { block.deallocate() }
    }

    @inline(__always)
    func kind(_ index: Int) -> SlotStorageLayout.Kind {
        SlotStorageLayout.Kind(rawValue: storage.load(fromByteOffset: index, as: UInt8.self)) ?? .unloaded
    }

    @inline(__always)
    func isLoaded(_ index: Int) -> Bool { kind(index) != .unloaded }

    /// Whether slot `index` holds a value (not a fault, a key, or pending members).
    func holdsValue(_ index: Int) -> Bool {
        switch kind(index) {
        case .value: return true
        case .unloaded, .toOneKey: return false
        case .boxed:
            if case .value = slot(at: index) { return true }
            return false
        }
    }

    @inline(__always)
    private func setKind(_ index: Int, _ kind: SlotStorageLayout.Kind) {
        storage.storeBytes(of: kind.rawValue, toByteOffset: index, as: UInt8.self)
    }

    /// Slot `index` as a ``Slot``.
    func slot(at index: Int) -> Slot {
        let info = slotInfo[index]
        let pointer = storage + info.offset
        switch kind(index) {
        case .unloaded: return .unloaded
        case .toOneKey: return .toOneKey(pointer.load(as: Int64.self))
        case .boxed: return pointer.assumingMemoryBound(to: SlotBox.self).pointee.slot
        case .value:
            // A relationship's `Any` (``AnySlotWitness``) copied here, without the witness: taking
            // a witness out of its array copies an existential.
            if info.type == Any.self { return .value(pointer.assumingMemoryBound(to: Any.self).pointee) }
            return .value(storageLayout.witnesses[index].load(pointer))
        }
    }

    /// Replaces slot `index` with `slot`.
    func replaceSlot(_ index: Int, with slot: Slot) {
        destroySlot(index)
        let info = slotInfo[index]
        let pointer = storage + info.offset
        switch slot {
        case .unloaded:
            return
        case .toOneKey(let key):
            pointer.storeBytes(of: key, as: Int64.self)
            setKind(index, .toOneKey)
            return
        case .value(let value):
            if info.type == Any.self {
                pointer.initializeMemory(as: Any.self, repeating: value, count: 1)
                setKind(index, .value)
                return
            }
            if storageLayout.witnesses[index].initialize(pointer, with: value) {
                setKind(index, .value)
                return
            }
        case .unreadable, .pendingMembers:
            break
        }
        pointer.initializeMemory(as: SlotBox.self, repeating: SlotBox(slot), count: 1)
        setKind(index, .boxed)
    }

    /// Destroys what slot `index` holds, leaving it not loaded.
    @usableFromInline
    func destroySlot(_ index: Int) {
        let info = slotInfo[index]
        let pointer = storage + info.offset
        switch kind(index) {
        case .unloaded, .toOneKey:
            break
        case .boxed:
            pointer.assumingMemoryBound(to: SlotBox.self).deinitialize(count: 1)
        case .value:
            switch info.scalar {
            case .string: pointer.assumingMemoryBound(to: String.self).deinitialize(count: 1)
            case .optionalString: pointer.assumingMemoryBound(to: String?.self).deinitialize(count: 1)
            default:
                if info.type == Any.self {
                    pointer.assumingMemoryBound(to: Any.self).deinitialize(count: 1)
                } else if !info.isTrivial {
                    storageLayout.witnesses[index].destroy(pointer)
                }
            }
        }
        setKind(index, .unloaded)
    }

    /// Stores `value` in slot `index`, unboxed when `T` is the property's type.
    ///
    /// Inlinable so that a generated accessor, compiled for its property's type, writes the bytes
    /// without a witness or an `Any`.
    @inlinable
    func _store<T>(_ value: T, at index: Int) {
        let info = slotInfo[index]
        guard info.type == T.self else {
            _storeBoxed(value, at: index)
            return
        }
        let loaded = storage.load(fromByteOffset: index, as: UInt8.self)
        if loaded != SlotStorageLayout.Kind.unloaded.rawValue, !(_isPOD(T.self) && loaded == SlotStorageLayout.Kind.value.rawValue) {
            destroySlot(index)
        }
        (storage + info.offset).initializeMemory(as: T.self, repeating: value, count: 1)
        storage.storeBytes(of: SlotStorageLayout.Kind.value.rawValue, toByteOffset: index, as: UInt8.self)
    }

    /// Changes a relationship's loaded value where it lies in the block (an append to a to-many
    /// stays in place: the array is not copied out and back); `false`, and `body` not run, when the
    /// slot holds no loaded relationship value.
    func mutateRelationshipValue(_ index: Int, _ body: (inout Any) -> Void) -> Bool {
        guard holdsRelationshipValue(index) else { return false }
        body(&(storage + slotInfo[index].offset).assumingMemoryBound(to: Any.self).pointee)
        return true
    }

    /// Whether slot `index` holds a loaded relationship value (kept as an `Any`).
    func holdsRelationshipValue(_ index: Int) -> Bool {
        kind(index) == .value && slotInfo[index].type == Any.self
    }

    /// Replaces a relationship's value (kept as an `Any`) without going through a ``Slot``.
    func setRelationshipValue(_ value: Any, at index: Int) {
        let info = slotInfo[index]
        guard info.type == Any.self else {
            replaceSlot(index, with: .value(value))
            return
        }
        destroySlot(index)
        (storage + info.offset).initializeMemory(as: Any.self, repeating: value, count: 1)
        setKind(index, .value)
    }

    /// Stores a value of another type than the property's (the general path).
    @usableFromInline
    func _storeBoxed(_ value: Any, at index: Int) {
        slots[index] = .value(value)
    }

    /// Puts a value read from a row into slot `index` when the property's type is `T` or `T?`;
    /// `false`, and nothing written, for another type. `replacing`: the slot may hold something,
    /// which goes first (a registered model read again); otherwise it must not be loaded.
    @inline(__always)
    func initializeRead<T>(_ value: T, at index: Int, replacing: Bool = false) -> Bool {
        let info = slotInfo[index]
        let type = info.type, pointer = storage + info.offset
        guard type == T.self || type == T?.self else { return false }
        if replacing { destroySlot(index) }
        if type == T.self {
            pointer.initializeMemory(as: T.self, repeating: value, count: 1)
        } else {
            pointer.initializeMemory(as: T?.self, repeating: value, count: 1)
        }
        setKind(index, .value)
        return true
    }

    /// A common attribute type's value in its stored form, read by the slot's static type with
    /// no codec; `nil` when the slot holds another kind or type, or `nil` of an optional (the
    /// codec writes those).
    func storedScalar(_ index: Int) -> StoredValue? {
        guard kind(index) == .value else { return nil }
        let info = slotInfo[index]
        let pointer = UnsafeRawPointer(storage + info.offset)
        switch info.scalar {
        case .other: return nil
        case .int: return .integer(Int64(pointer.load(as: Int.self)))
        case .int64: return .integer(pointer.load(as: Int64.self))
        case .double: return .real(pointer.load(as: Double.self))
        case .string: return .text(pointer.assumingMemoryBound(to: String.self).pointee)
        case .date: return .date(pointer.load(as: Date.self))
        case .bool: return .integer(pointer.load(as: Bool.self) ? 1 : 0)
        case .optionalInt: return pointer.load(as: Int?.self).map { .integer(Int64($0)) }
        case .optionalInt64: return pointer.load(as: Int64?.self).map { .integer($0) }
        case .optionalDouble: return pointer.load(as: Double?.self).map { .real($0) }
        case .optionalString: return pointer.assumingMemoryBound(to: String?.self).pointee.map { .text($0) }
        case .optionalDate: return pointer.load(as: Date?.self).map { .date($0) }
        case .optionalBool: return pointer.load(as: Bool?.self).map { .integer($0 ? 1 : 0) }
        }
    }

    /// Moves the slots into storage laid out for `layout` (a subclass's, whose first slots are
    /// these, of the same types), the slots it adds not loaded. Always into a block of its own:
    /// the backing data's room cannot hold the old layout and the new at once.
    func moveStorage(to layout: SlotStorageLayout) {
        let old = storage, oldInfo = slotInfo
        let new = Self.allocateStorage(layout)
        for index in 0..<min(storageLayout.count, layout.count) {
            new.storeBytes(of: old.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
            // Swift values move bit for bit: the bytes are the value, and the old copy is not destroyed.
            (new + layout.slots[index].offset).copyMemory(from: old + oldInfo[index].offset, byteCount: oldInfo[index].byteCount)
        }
        storage = new
        storageLayout = layout
        slotInfo = layout.slots
        releaseStorage(old)
    }

    /// Destroys every slot and frees the storage; the relationships' models are released after
    /// (``DeferredRelease``), not inside this call.
    func freeStorage(relationshipSlots: [Int]) {
        if !relationshipSlots.isEmpty {
            var held = ContiguousArray<Slot>()
            for index in relationshipSlots where kind(index) == .value || kind(index) == .boxed {
                held.append(slot(at: index))
                destroySlot(index)
            }
            if !held.isEmpty { DeferredRelease.release(&held) }
        }
        for index in 0..<storageLayout.count {
            let kind = storage.load(fromByteOffset: index, as: UInt8.self)
            if kind == SlotStorageLayout.Kind.unloaded.rawValue || kind == SlotStorageLayout.Kind.toOneKey.rawValue { continue }
            if kind == SlotStorageLayout.Kind.value.rawValue {
                let info = slotInfo[index]
                if info.isTrivial { continue }
                if info.scalar == .string {
                    (storage + info.offset).assumingMemoryBound(to: String.self).deinitialize(count: 1)
                    continue
                }
            }
            destroySlot(index)
        }
        releaseStorage(storage)
    }
}
