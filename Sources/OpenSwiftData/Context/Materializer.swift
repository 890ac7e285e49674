import Foundation

/// Rows into models: the one place a row a store answered with becomes a registered model — the
/// identity map (a row of a model this context holds refreshes it instead), the fill modes, the
/// check that a registered model is still of its row's class, and the values read straight from
/// the row into slot storage (the fast path the fetch benchmarks measure: no snapshot between).
///
/// Made once per fetch or load (the entity's registry and its ``RowShape`` looked up once), used
/// for every row inside the store's callback, while the row is valid.
struct Materializer {
    let context: ModelContext
    let shape: RowShape
    let registry: EntityRegistry
    let storeIdentifier: String

    init(context: ModelContext, shape: RowShape, storeIdentifier: String) {
        self.context = context
        self.shape = shape
        self.registry = context.entityRegistry(shape.layout)
        self.storeIdentifier = storeIdentifier
    }

    /// The model for a row of ``shape`` starting at `offset`: the registered instance (its
    /// unchanged properties refreshed from the row) or a new one, with the slots not read left to
    /// load on first access.
    func model(_ row: any StoredRow, offset: Int32 = 0) throws -> any PersistentModel {
        if let kinds = shape.kinds { return try modelOfKind(kinds, row: row, offset: offset) }
        let layout = shape.layout, slots = shape.slots
        let primaryKey = row.int64(at: offset)
        if let existing = registry.model(primaryKey) {
            let data = existing.persistentBackingData
            if data.state == .managed || data.state == .deleted {
                try Self.fill(data, from: row, offset: offset, slots: slots ?? layout.storedSlots, mode: .unchanged)
            }
            return existing
        }
        // The values go into the backing data before the model is made; to-many relationships
        // load on first access.
        let data = BackingData(layout: layout)
        try Self.readSlots(layout, into: data, from: row, offset: offset, slots: slots)
        return StoredModel.make(layout, data: data, primaryKey: primaryKey, storeIdentifier: storeIdentifier, in: context, registry: registry)
    }

    /// A row of a class hierarchy's table: a model of the class the row names, with the fetched
    /// entity's columns and that class's own.
    private func modelOfKind(_ kinds: RowKinds, row: any StoredRow, offset: Int32) throws -> any PersistentModel {
        let layout = shape.layout, slots = shape.slots
        let primaryKey = row.int64(at: offset)
        guard let kind = kinds.kind(row.int64(at: kinds.kindColumn(offset: offset, slots: slots))) else {
            throw SwiftDataError(.loadIssueModelContainer, "\(layout.entityName) row \(primaryKey) is of a class that is not \(layout.entityName) or one of its subclasses in this container's schema (\(kinds.entityNames.joined(separator: ", "))); add that model class to the schema")
        }
        let extras = slots == nil ? kind.extras : []
        let firstExtra = kinds.firstExtraColumn(offset: offset)
        if let existing = registry.model(primaryKey) {
            let data = existing.persistentBackingData
            guard data.layout === kind.layout else { throw SwiftDataError.rowChangedClass(data.layout, now: kind.layout, key: primaryKey) }
            if data.state == .managed || data.state == .deleted {
                try Self.fill(data, from: row, offset: offset, slots: slots ?? layout.storedSlots, mode: .unchanged)
                for (slot, column) in extras where FillMode.unchanged.takes(slot, of: data) {
                    try Self.readInto(data, slot: slot, layout: kind.layout, from: row, column: firstExtra + Int32(column), offset: offset)
                }
            }
            return existing
        }
        // The class's own layout from the start: its first slots are the fetched entity's.
        let data = BackingData(layout: kind.layout)
        try Self.readSlots(layout, into: data, from: row, offset: offset, slots: slots)
        for (slot, column) in extras {
            try Self.readStored(kind.layout.slotReaders[slot].fast, slot: slot, layout: kind.layout, into: data, from: row, column: firstExtra + Int32(column), offset: offset)
        }
        return StoredModel.make(kind.layout, data: data, primaryKey: primaryKey, storeIdentifier: storeIdentifier, in: context, registry: registry)
    }

    /// Reads a new model's slots from the row into `data` (not loaded so far): `slots` (by default
    /// every stored slot of `layout`, ascending as the columns are), the others left not loaded.
    private static func readSlots(_ layout: ModelLayout, into data: BackingData, from row: any StoredRow, offset: Int32, slots: [Int]?) throws {
        var column = offset + 1
        if let slots {
            for slot in slots {
                try readStored(layout.slotReaders[slot].fast, slot: slot, layout: layout, into: data, from: row, column: column, offset: offset)
                column += 1
            }
            return
        }
        let fastReads = layout.slotFastReads
        for slot in 0..<fastReads.count {
            let fast = fastReads[slot]
            if fast == .notStored { continue }
            try readStored(fast, slot: slot, layout: layout, into: data, from: row, column: column, offset: offset)
            column += 1
        }
    }

    /// One column's value into a slot not loaded yet: unboxed by the property's type for the common
    /// attribute types, the reader looked up only if the fast way cannot read it.
    @inline(__always)
    private static func readStored(
        _ fast: ModelLayout.SlotReader.Fast, slot: Int, layout: ModelLayout, into data: BackingData, from row: any StoredRow, column: Int32, offset: Int32
    ) throws {
        if fast != .none, readFast(fast, into: data, slot: slot, from: row, column: column) { return }
        let value = try read(layout.slotReaders[slot], slot: slot, layout: layout, from: row, column: column, offset: offset)
        if case .unloaded = value { return }
        data.slots[slot] = value
    }

    /// One column's value as a slot.
    @inline(__always)
    private static func read(
        _ reader: ModelLayout.SlotReader, slot: Int, layout: ModelLayout, from row: any StoredRow, column: Int32, offset: Int32
    ) throws -> BackingData.Slot {
        if reader.fast != .none {
            // NULL in an optional attribute read the fast way.
            if let nullValue = reader.nullValue, row.storageClass(at: column) == .null { return .value(nullValue) }
        }
        if let codec = reader.codec {
            do {
                return .value(try codec.decode(row.value(at: column)))
            } catch {
                return try unreadable(layout, slot: slot, row: row, offset: offset, problem: "\(error)")
            }
        }
        guard reader.isToOne else { return .unloaded }
        guard row.isNull(at: column) else { return .toOneKey(row.int64(at: column)) }
        guard let nullValue = reader.nullValue else {
            return try unreadable(layout, slot: slot, row: row, offset: offset, problem: "it has no value, which the model requires (it is not optional)")
        }
        return .value(nullValue)
    }

    /// A stored value the property cannot hold (written by another program, or damaged): one bad
    /// row must not make the whole entity unreadable, so it reads as the type's empty value and the
    /// problem is logged. The row is not rewritten unless the property is assigned without being
    /// read first; a change made after reading the stand-in is refused at save.
    @inline(never)
    private static func unreadable(_ layout: ModelLayout, slot: Int, row: any StoredRow, offset: Int32, problem: String) throws -> BackingData.Slot {
        let property = layout.properties[slot]
        let message = "\(layout.entityName) row \(row.int64(at: offset)), property \(property.name): \(problem)"
        guard let placeholder = PlaceholderValue.make(any: property.valueType) else {
            throw SwiftDataError(.loadIssueModelContainer, message)
        }
        Log.general.error("\(message); it reads as an empty value until it is assigned")
        return .unreadable(UnreadableValue(placeholder: placeholder, problem: message))
    }

    /// A common attribute type read straight from the row into `data`'s slot (not loaded) by the
    /// property's type; `false`, and nothing written, when the column's storage class is not the
    /// one the type is stored as (NULL: the reader's null value; another class: the codec
    /// converts it, or reports it), and ``read(_:slot:layout:from:column:offset:)`` reads it.
    /// `replacing`: the slot may hold a value, which the row's replaces (a registered model).
    @inline(__always)
    private static func readFast(
        _ fast: ModelLayout.SlotReader.Fast, into data: BackingData, slot: Int, from row: any StoredRow, column: Int32, replacing: Bool = false
    ) -> Bool {
        // One call of the row's a column: its storage class and value together.
        switch fast {
        case .int:
            guard let stored = row.integerValue(at: column), let value = Int(exactly: stored) else { return false }
            return data.initializeRead(value, at: slot, replacing: replacing)
        case .int64:
            guard let value = row.integerValue(at: column) else { return false }
            return data.initializeRead(value, at: slot, replacing: replacing)
        case .double:
            guard let value = row.realValue(at: column) else { return false }
            return data.initializeRead(value, at: slot, replacing: replacing)
        case .string:
            guard let value = row.textValue(at: column) else { return false }
            return data.initializeRead(value, at: slot, replacing: replacing)
        case .date:
            guard let seconds = row.realValue(at: column) else { return false }
            return data.initializeRead(Date(timeIntervalSinceReferenceDate: seconds), at: slot, replacing: replacing)
        case .bool:
            guard let value = row.integerValue(at: column) else { return false }
            return data.initializeRead(value != 0, at: slot, replacing: replacing)
        default: return false
        }
    }

    /// Copies a row's values into the slots of a registered model.
    static func fill(_ data: BackingData, from row: any StoredRow, offset: Int32, slots: [Int], mode: FillMode) throws {
        let layout = data.layout
        var column = offset + 1
        for slot in slots {
            defer { column += 1 }
            guard mode.takes(slot, of: data) else { continue }
            try readInto(data, slot: slot, layout: layout, from: row, column: column, offset: offset)
        }
    }

    /// One column's value into slot `slot` of a registered model, replacing what it holds.
    private static func readInto(_ data: BackingData, slot: Int, layout: ModelLayout, from row: any StoredRow, column: Int32, offset: Int32) throws {
        let reader = layout.slotReaders[slot]
        if reader.fast != .none, readFast(reader.fast, into: data, slot: slot, from: row, column: column, replacing: true) { return }
        data.slots[slot] = try read(reader, slot: slot, layout: layout, from: row, column: column, offset: offset)
    }
}
