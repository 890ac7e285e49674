import Foundation

/// The identity of a model: the store it lives in, its entity, and its primary key in that store.
///
/// A model inserted but not yet saved has a *temporary* identifier; saving replaces it with a
/// permanent one. Permanent identifiers can be encoded, sent to another context or actor, and
/// resolved there:
///
/// ```swift
/// let id = trip.persistentModelID            // after `try context.save()`
/// let data = try JSONEncoder().encode(id)
/// let same = try JSONDecoder().decode(PersistentIdentifier.self, from: data)
/// let trip2 = otherContext.model(for: same) as? Trip
/// ```
///
/// The SQLite store's primary keys are integers. A custom ``DataStore`` chooses its own (a `UUID`,
/// a `String`, …) and makes identifiers with ``identifier(for:entityName:primaryKey:)``.
public struct PersistentIdentifier: Hashable, Identifiable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// The identifier itself, so lists of identifiers work with `ForEach` and `id:` parameters
    /// as SwiftData's do: `ids.map(\.id)`.
    public var id: PersistentIdentifier { self }

    /// The name of the model's entity (its class name).
    public let entityName: String
    /// The identifier of the store holding the model, or `nil` while the identifier is temporary.
    public let storeIdentifier: String?
    let key: Key

    enum Key: Hashable, Comparable, Codable, Sendable {
        case temporary(UInt64)
        /// A non-negative integer key: the SQLite store's, or a custom store's integer key.
        case permanent(Int64)
        /// Any other key a custom store chose. Boxed: its payload is 81 bytes, and inline it made
        /// every identifier 120 bytes (a save's `didSave` lists hold one per saved model).
        indirect case custom(CustomPrimaryKey)
    }

    init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    /// The identifier of the model stored under `storedKey`, the key the context's identity map
    /// uses: a store's own integer key, or (negative) the stand-in for a custom store's key.
    init(entityName: String, storeIdentifier: String?, storedKey: Int64) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        if storedKey < 0, let custom = CustomKeyTable.shared.customKey(for: storedKey) {
            self.key = .custom(custom)
        } else {
            self.key = .permanent(storedKey)
        }
    }

    /// Makes the permanent identifier of a model in a custom store, from the store's own key.
    ///
    /// ```swift
    /// let id = try PersistentIdentifier.identifier(for: store.identifier, entityName: "Trip", primaryKey: UUID())
    /// ```
    ///
    /// Two identifiers made from equal keys (of the same type, store and entity) are equal, also
    /// after one went through `Codable`: keys compare by their type and their `description`, so
    /// the description must tell keys apart (as it does for `UUID`, `String` and integers).
    public static func identifier<T>(for storeIdentifier: String, entityName: String, primaryKey: T) throws -> PersistentIdentifier
    where T: Comparable & CustomStringConvertible & Codable & Hashable & Sendable {
        if let integer = primaryKey as? Int64, integer >= 0 {
            return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .permanent(integer))
        }
        if let integer = primaryKey as? Int, integer >= 0 {
            return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .permanent(Int64(integer)))
        }
        return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .custom(CustomPrimaryKey(primaryKey)))
    }

    /// The identifier under its class hierarchy's top entity: equal for a model whether it was
    /// named as a `Trip` or as the `BusinessTrip` it is (their keys are shared).
    var inHierarchy: PersistentIdentifier {
        let root = ModelLayout.rootEntityName(of: entityName)
        return root == entityName ? self : PersistentIdentifier(entityName: root, storeIdentifier: storeIdentifier, key: key)
    }

    /// Whether the identifier is temporary: the model has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The key the context's identity map and the stores use for the model, for permanent
    /// identifiers: the integer key itself, or the stand-in for a custom store's key — `nil` for a
    /// custom key no row was returned with yet (a lookup enters nothing; the store resolves it,
    /// ``RowStore/storedKey(resolving:layout:editingState:)``).
    var primaryKey: Int64? {
        switch key {
        case .permanent(let value): return value
        case .custom(let custom): return CustomKeyTable.shared.existingStoredKey(for: custom, entityName: entityName, storeIdentifier: storeIdentifier ?? "")
        case .temporary: return nil
        }
    }

    /// ``primaryKey``, entering a custom key in the table: only for identifiers a store returned
    /// with a row.
    var storedPrimaryKey: Int64? {
        switch key {
        case .custom(let custom): return CustomKeyTable.shared.storedKey(for: custom, entityName: entityName, storeIdentifier: storeIdentifier ?? "")
        default: return primaryKey
        }
    }

    /// Whether the key is a custom store's own (not an integer).
    var hasCustomKey: Bool {
        if case .custom = key { return true }
        return false
    }

    /// The custom store's own key, when it is of type `T`.
    func primaryKey<T: LosslessStringConvertible>(as type: T.Type) -> T? {
        switch key {
        case .permanent(let value): return value as? T ?? T(String(value))
        case .custom(let custom): return custom.value as? T ?? T(custom.description)
        case .temporary: return nil
        }
    }

    private enum CodingKeys: String, CodingKey {
        case entityName, storeIdentifier, primaryKey, primaryKeyType, temporaryKey
        /// The form written before custom primary keys existed.
        case key
    }

    /// Decodes an identifier, also in the form earlier versions wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        entityName = try container.decode(String.self, forKey: .entityName)
        storeIdentifier = try container.decodeIfPresent(String.self, forKey: .storeIdentifier)
        if let old = try container.decodeIfPresent(Key.self, forKey: .key) {
            key = old
        } else if let temporary = try container.decodeIfPresent(UInt64.self, forKey: .temporaryKey) {
            key = .temporary(temporary)
        } else if let type = try container.decodeIfPresent(String.self, forKey: .primaryKeyType) {
            key = .custom(CustomPrimaryKey(typeName: type, description: try container.decode(String.self, forKey: .primaryKey)))
        } else {
            key = .permanent(try container.decode(Int64.self, forKey: .primaryKey))
        }
    }

    /// Encodes the entity, the store and the primary key (with its type, for a custom store's key).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entityName, forKey: .entityName)
        try container.encodeIfPresent(storeIdentifier, forKey: .storeIdentifier)
        switch key {
        case .temporary(let value):
            try container.encode(value, forKey: .temporaryKey)
        case .permanent(let value):
            try container.encode(value, forKey: .primaryKey)
        case .custom(let custom):
            try container.encode(custom.description, forKey: .primaryKey)
            try container.encode(custom.typeName, forKey: .primaryKeyType)
        }
    }

    /// Orders values for sorting.
    public static func < (lhs: PersistentIdentifier, rhs: PersistentIdentifier) -> Bool {
        if lhs.entityName != rhs.entityName { return lhs.entityName < rhs.entityName }
        if lhs.storeIdentifier != rhs.storeIdentifier { return (lhs.storeIdentifier ?? "") < (rhs.storeIdentifier ?? "") }
        return lhs.key < rhs.key
    }

    /// A readable description, for logs and debugging.
    public var description: String {
        switch key {
        case .temporary(let value):
            return "\(entityName)/t\(value)"
        case .permanent(let value):
            return "\(storeIdentifier ?? "?")/\(entityName)/p\(value)"
        case .custom(let value):
            return "\(storeIdentifier ?? "?")/\(entityName)/\(value.description)"
        }
    }

    private static let nextTemporary = Locked<UInt64>(0)

    static func makeTemporaryKey() -> Key {
        .temporary(makeTemporaryNumber())
    }

    /// The next temporary key's number, unique in the process.
    static func makeTemporaryNumber() -> UInt64 {
        nextTemporary.withLock { value in
            value += 1
            return value
        }
    }
}
