import Foundation

/// The values a save writes for stored slots. Separate from ``SavePlan`` so the closures that
/// bind a row capture only this, not a copy of the whole plan per row.
struct StoredValues {
    /// Models deleted in this save: references to them are written as NULL.
    let deletedIDs: Set<ObjectIdentifier>
    /// Whether values stored as JSON are written as property lists (a Core Data file).
    let propertyLists: Bool

    /// The attributes a Core Data file keeps as composites, which are bound as JSON (and spread
    /// over their columns by the statement, ``SQLiteDialect/assignments(_:_:)``).
    let composites: [String: CoreDataComposite]

    init(deletedIDs: Set<ObjectIdentifier>, format: SQLTableFormat) {
        self.deletedIDs = deletedIDs
        propertyLists = format.isCoreData
        if case .coreData(let map) = format { composites = map.composites } else { composites = [:] }
    }

    private func encode(_ value: Any, _ codec: any AttributeCodec, _ property: PropertyLayout) throws -> StoredValue {
        try propertyLists && composites[property.name] == nil ? codec.encodeForPropertyListStore(value) : codec.encode(value)
    }

    /// The value a stored slot writes: the encoded attribute, or the related row's key.
    func value(_ data: BackingData, slot: Int) throws -> StoredValue {
        let property = data.layout.properties[slot]
        switch data.slots[slot] {
        case .value(let value):
            if let codec = property.codec {
                do {
                    return try encode(value, codec, property)
                } catch {
                    throw SwiftDataError(.unsupportedType, "\(data.layout.entityName).\(property.name): \(error)")
                }
            }
            guard let access = property.relationshipAccess, let related = access.first(value) else { return .null }
            return key(of: related)
        case .toOneKey(let key):
            return .integer(key)
        case .unloaded, .pendingMembers:
            return .null
        case .unreadable(let unreadable):
            // Never written back: it stands for a stored value that was never read.
            throw SwiftDataError(.modelValidationFailure, "\(unreadable.problem); that value cannot be written back")
        }
    }

    /// The value a stored slot held when this context read it (before its first change since
    /// the last save); `nil` if the context never read it.
    func original(_ data: BackingData, slot: Int) -> StoredValue? {
        let property = data.layout.properties[slot]
        switch data.originals[slot] {
        case .value(let value)?:
            if let codec = property.codec { return try? encode(value, codec, property) }
            guard let access = property.relationshipAccess else { return nil }
            guard let related = access.first(value) else { return .null }
            return related.persistentBackingData.primaryKey.map { .integer($0) }
        case .toOneKey(let key)?:
            return .integer(key)
        case .unloaded?, .unreadable?, .pendingMembers?, nil:
            return nil
        }
    }

    /// The primary key a reference to `model` stores; NULL for a model deleted in this save.
    func key(of model: any PersistentModel) -> StoredValue {
        if !deletedIDs.isEmpty && deletedIDs.contains(ObjectIdentifier(model)) { return .null }
        let data = model.persistentBackingData
        if let key = data.primaryKey ?? data.pendingKey {
            return .integer(key)
        }
        Log.general.warning("a relationship refers to a \(data.layout.entityName) that is not inserted in this context; it is saved as nil")
        return .null
    }
}
