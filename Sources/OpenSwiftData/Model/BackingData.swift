import Foundation
import Observation

/// The stored values of one model object and its link to a context.
///
/// `@Model` gives every model a backing data; you do not use it directly. Values live in slots, one
/// per persisted property, in the order of ``PersistentModel/schemaMetadata``. Each slot holds a
/// value, a not-yet-loaded marker (a fault), or, for a to-one relationship read from the store, the
/// primary key of the related row until the relationship is first read.
public final class BackingData {
    /// Room for the values of a model whose block fits (``SlotStorageLayout/fitsInline``): then
    /// `storage` points here, and the backing data and its values are one allocation, which
    /// saves each loaded or new model a `malloc` and a `free` and keeps its values beside its
    /// other fields. First of the stored properties, and never copied: `storage` is its address
    /// inside this object (a class's stored property has a stable address while the object lives).
    @exclusivity(unchecked) private var inlineStorage: InlineStorage = (0, 0, 0, 0, 0, 0, 0, 0)
    /// 64 bytes: four to six common values, or two with a relationship.
    typealias InlineStorage = (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)

    /// Where `inlineStorage` lies in this object.
    var inlineStorageAddress: UnsafeMutableRawPointer {
        withUnsafeMutablePointer(to: &inlineStorage) { UnsafeMutableRawPointer($0) }
    }
    /// The model's layout. Replaced once, by a subclass's (``adoptSubclassLayout(_:pending:)``),
    /// when a subclass instance's initialisers ran with the superclass's. Strong, though layouts
    /// live as long as the process: reading an `unowned(unsafe)` field makes a retained copy
    /// wherever the layout is used, which cost an insert more (+2.5%) than the one retain and
    /// release a model saves.
    @exclusivity(unchecked) private(set) var layout: ModelLayout
    /// The values, one block laid out by `storageLayout` (see ``BackingData/Slots``). Exclusivity
    /// of this and the other hot fields is not checked dynamically: a model is used on its
    /// context's thread only, and these are read or written for every property access and load.
    @exclusivity(unchecked) @usableFromInline var storage: UnsafeMutableRawPointer
    /// `layout.storage`, at hand for the generated accessors. Unowned: layouts live as long as
    /// the process (``ModelLayout/of(_:)``).
    @exclusivity(unchecked) @usableFromInline unowned(unsafe) var storageLayout: SlotStorageLayout
    /// `storageLayout.slots`: the offsets and types the hot paths read, with no reference count.
    @exclusivity(unchecked) @usableFromInline var slotInfo: UnsafeMutablePointer<SlotStorageLayout.SlotInfo>
    /// The values slots had before their first change since the last save, for rollback and for
    /// writing only changed columns.
    @exclusivity(unchecked) var originals = SlotOriginals()
    /// The model's own observation registrar once something has read a property (`hasRegistrar`);
    /// until then one shared registrar that nothing observes stands in. Made on the first read
    /// because observers learn of a model only through a read: a model only written (an insert,
    /// an import) never pays for one, nor frees one. Swift's `Observation` offers no way to learn
    /// whether anything is tracking, so a model that is read gets its registrar then.
    @exclusivity(unchecked) @usableFromInline var ownRegistrar = BackingData.unobservedRegistrar
    /// Stands in for every model's registrar until its first read; nothing ever reads through it,
    /// so nothing observes it. (A non-optional field: an optional of the resilient registrar type
    /// is read through value witnesses on every access, which cost fetches 6%.)
    @usableFromInline static let unobservedRegistrar = ObservationRegistrar()
    /// The context the model is registered in. Held strongly, so models fetched from a context
    /// that is not otherwise kept can still load their relationships; the context holds clean
    /// models only weakly, so there is no cycle once changes are saved or rolled back.
    @exclusivity(unchecked) var context: ModelContext?
    /// The identity map holding this model, which forgets it when this backing data goes away.
    @exclusivity(unchecked) var registeredIn: EntityRegistry?
    @exclusivity(unchecked) var storeIdentifier: String?
    /// Where the model sits in its context's inserted, changed and deleted sets (-1: not there).
    @exclusivity(unchecked) var setPositions = (inserted: -1, changed: -1, deleted: -1)
    /// The context whose `reset()` unregistered this model: a change made afterwards is reported
    /// by that context's next save instead of being silently dropped.
    weak var unregisteredBy: ModelContext?
    // The optionals of 9 bytes and the flags of 1 follow each other: each flag takes a byte of
    // an optional's padding, where declared apart each took 8.
    @exclusivity(unchecked) var primaryKey: Int64?
    @exclusivity(unchecked) var state: State = .detached
    /// Whether `ownRegistrar` is the model's own, not the shared stand-in.
    @exclusivity(unchecked) @usableFromInline var hasRegistrar = false
    /// Relationships were assigned by an initialiser (no inverse maintenance was possible then);
    /// inverses are fixed up when the model is inserted.
    var needsInverseFixup = false
    /// Set while a context makes the model for a stored row (``BackingDataHandOff``).
    @exclusivity(unchecked) @usableFromInline var isMaterializing = false
    /// The model's row is known not to exist (deleted elsewhere, or never there).
    var isGone = false
    /// Made by a new instance's initialiser (not handed over for a stored row): the values a
    /// subclass's initialisers assigned belong in it.
    var madeByInitializer = false
    /// The number of the temporary identifier the model was given before its first save, if it
    /// was asked for one. Kept as the number (temporary keys are `.temporary(n)`): a `Key?` takes
    /// 81 bytes, for its custom-key case, in every backing data.
    private var temporaryNumber: UInt64?
    /// This inserted model's place among the new models of the save in progress (``ValueChangeSet``).
    @exclusivity(unchecked) var saveToken: Int?

    enum State {
        /// Not in any context.
        case detached
        /// Inserted in a context and not yet saved.
        case inserted
        /// Registered in a context and stored.
        case managed
        /// Marked for deletion in its context; the deletion is not yet saved.
        case deleted
    }

    @usableFromInline
    enum Slot {
        case unloaded
        case value(Any)
        case toOneKey(Int64)
        /// A stored value the property cannot hold: it reads as an empty value; a change made
        /// after reading that is refused at save (see ``UnreadableValue``).
        case unreadable(UnreadableValue)
        /// A stored to-many not loaded, with the members this context added and removed (see
        /// ``PendingMembers``); loading merges them with the store's.
        case pendingMembers(PendingMembers)
    }

    /// A backing data with every slot not loaded.
    init(layout: ModelLayout) {
        self.layout = layout
        let storage = layout.storage
        self.storageLayout = storage
        self.slotInfo = storage.slots
        guard storage.fitsInline else {
            self.storage = BackingData.allocateStorage(storage)
            return
        }
        // A stand-in until `self` may be used to take the address of its own room.
        self.storage = UnsafeMutableRawPointer(storage.slots)
        self.storage = BackingData.initializeStorage(inlineStorageAddress, storage)
    }

    /// A backing data holding `slots`.
    convenience init(layout: ModelLayout, slots: ContiguousArray<Slot>) {
        self.init(layout: layout)
        for (index, slot) in slots.enumerated() where index < layout.storage.count {
            if case .unloaded = slot { continue }
            replaceSlot(index, with: slot)
        }
    }

    /// The model is going away: its entry in the context's identity map goes with it.
    /// The models its relationships hold are released afterwards, not inside this deinit.
    deinit {
        if let registeredIn, let primaryKey {
            registeredIn.remove(primaryKey, owner: self)
        }
        freeStorage(relationshipSlots: layout.relationshipSlots)
    }

    /// Creates the backing data a new model instance starts with. Called by `@Model`'s generated code.
    ///
    /// When the context is creating the instance for a stored row, the backing data it prepared is
    /// handed over instead (``BackingDataHandOff``), so loading a model does not build a second,
    /// discarded one.
    public static func _make(for type: any PersistentModel.Type) -> BackingData {
        if let prepared = BackingDataHandOff.take(for: type) { return prepared }
        let data = BackingData(layout: ModelLayout.of(type))
        data.madeByInitializer = true
        return data
    }

    /// A subclass instance's backing data, made by its superclass's `_$backingData` default with
    /// the superclass's layout, takes the subclass's layout and the values the subclass's own
    /// initialisers assigned. A stored model's backing data already has its layout, and the
    /// pending values are only property defaults then, which the row's values replace.
    func adoptSubclassLayout(_ subclass: ModelLayout, pending: [(Int, Any)]) {
        if subclass !== layout, subclass.isKind(of: layout) {
            moveStorage(to: subclass.storage)
            layout = subclass
        }
        guard madeByInitializer else { return }
        for (index, value) in pending where index < slots.count {
            slots[index] = .value(value)
            if _isRelationshipSlot(index) { _notedInitialRelationship(index) }
        }
    }

    /// Whether `key` is the temporary key the model had before it was saved.
    func hadTemporaryKey(_ key: PersistentIdentifier.Key) -> Bool {
        guard case .temporary(let number) = key else { return false }
        return temporaryNumber == number
    }

    var persistentModelID: PersistentIdentifier {
        if let primaryKey {
            return PersistentIdentifier(entityName: layout.entityName, storeIdentifier: storeIdentifier, storedKey: primaryKey)
        }
        let number = temporaryNumber ?? PersistentIdentifier.makeTemporaryNumber()
        temporaryNumber = number
        return PersistentIdentifier(entityName: layout.entityName, storeIdentifier: nil, key: .temporary(number))
    }

    var hasChanges: Bool {
        switch state {
        case .inserted, .deleted: return true
        case .managed: return !originals.isEmpty
        case .detached: return false
        }
    }

    // MARK: Generated accessors

    /// Stores a value assigned in an initialiser. Called by `@Model`'s generated `init` accessors.
    ///
    /// Inlinable so that storing the value is compiled for its concrete type.
    @inlinable
    public func _initialize<T>(_ index: Int, to value: T) {
        // A model being made for a stored row: the row's values replace whatever the
        // initialiser's property defaults would write.
        if isMaterializing { return }
        _store(value, at: index)
        if _isRelationshipSlot(index) { _notedInitialRelationship(index) }
    }

    @usableFromInline
    func _isRelationshipSlot(_ index: Int) -> Bool {
        layout.isRelationship[index]
    }

    /// A relationship assigned in an initialiser: its inverse is fixed up on insert, if it holds
    /// any model.
    @usableFromInline
    func _notedInitialRelationship(_ index: Int) {
        if case .value(let value) = slots[index], let access = layout.properties[index].relationshipAccess, access.first(value) != nil {
            needsInverseFixup = true
        }
    }

    /// Reads a property's value. Called by `@Model`'s generated getters.
    ///
    /// Inlinable so that the getter, compiled in the model's module, casts to its concrete type
    /// instead of looking up generic metadata on every read.
    @inlinable
    public func _value<T, Owner: PersistentModel>(_ index: Int, of owner: Owner) -> T {
        // The slot holds a value of the property's type, unboxed: read its bytes as `T`.
        if storage.load(fromByteOffset: index, as: UInt8.self) == SlotStorageLayout.Kind.value.rawValue, slotInfo[index].type == T.self {
            return (storage + slotInfo[index].offset).assumingMemoryBound(to: T.self).pointee
        }
        return _relationshipOrSlowValue(index)
    }

    /// A relationship's value (kept as an `Any`: see ``AnySlotWitness``) cast to `T`, or the
    /// value loaded from the store.
    @inlinable
    func _relationshipOrSlowValue<T>(_ index: Int) -> T {
        if storage.load(fromByteOffset: index, as: UInt8.self) == SlotStorageLayout.Kind.value.rawValue, slotInfo[index].type == Any.self,
           let typed = (storage + slotInfo[index].offset).assumingMemoryBound(to: Any.self).pointee as? T {
            return typed
        }
        return slowValue(index)
    }

    /// Writes a property's value with change tracking and, for relationships, inverse maintenance.
    /// Called by `@Model`'s generated setters.
    public func _setValue<T, Owner: PersistentModel>(_ index: Int, to newValue: T, of owner: Owner) {
        if layout.isRelationship[index] {
            RelationshipMaintenance.set(owner: owner, index: index, to: newValue)
        } else {
            willChange(index, of: owner)
            _store(newValue, at: index)
        }
    }

    // MARK: Loading

    @usableFromInline
    func slowValue<T>(_ index: Int) -> T {
        do {
            if let typed = try loadedValue(index) as? T { return typed }
        } catch {
            Log.general.error("could not load \(layout.entityName).\(layout.properties[index].name): \(error)")
        }
        return BackingData.emptyValue(T.self, entity: layout.entityName, property: layout.properties[index].name)
    }

    /// The slot's value, loading it from the store first if it is a fault.
    func loadedValue(_ index: Int) throws -> Any {
        switch slots[index] {
        case .value(let stored):
            return stored
        case .unreadable(let unreadable):
            unreadable.wasRead = true
            return unreadable.placeholder
        case .pendingMembers(let pending):
            return try loadMembers(index, merging: pending)
        case .toOneKey(let key):
            let property = layout.properties[index]
            guard let relationship = property.relationship else { throw SwiftDataError.unsupportedKeyPath }
            guard let context else {
                // Without a context it cannot be looked up: as for any value not loaded, say so
                // rather than read `nil` for a model that exists.
                throw SwiftDataError(.missingModelContext, "\(layout.entityName).\(property.name) is not loaded and the model is not in a context")
            }
            var models: [any PersistentModel] = []
            if let related = try context.relatedModel(through: property, of: layout, key: key) {
                models = [related]
            }
            guard let value = relationship.access.makeValue(models) else {
                throw SwiftDataError(.modelNotFound, "\(layout.entityName).\(property.name) refers to a \(relationship.destination.entityName) row (\(key)) that no longer exists")
            }
            slots[index] = .value(value)
            return value
        case .unloaded:
            let property = layout.properties[index]
            // A model never saved has nothing stored: a property its initializer left unset (an
            // optional declared without `= nil`, a to-many without `= []`) is empty, as in Swift.
            if primaryKey == nil, let empty = Self.unsetValue(of: property) {
                slots[index] = .value(empty)
                return empty
            }
            guard let context else {
                throw SwiftDataError(.missingModelContext, "\(layout.entityName).\(property.name) is not loaded and the model is not in a context")
            }
            if let relationship = property.relationship, relationship.isToMany {
                return try loadMembers(index, merging: nil)
            }
            try context.fulfillFault(self)
            switch slots[index] {
            case .value(let stored): return stored
            case .toOneKey, .unreadable, .pendingMembers: return try loadedValue(index)
            case .unloaded:
                throw SwiftDataError(.modelNotFound, "\(layout.entityName).\(property.name) has no stored value")
            }
        }
    }

    /// `nil` for an optional attribute or to-one, no models for a to-many; `nil` for a required
    /// value, which has no empty form.
    private static func unsetValue(of property: PropertyLayout) -> Any? {
        if let relationship = property.relationship { return relationship.access.makeValue([]) }
        return (property.codec as? any _OptionalCodecProtocol)?.noneValue
    }
}
