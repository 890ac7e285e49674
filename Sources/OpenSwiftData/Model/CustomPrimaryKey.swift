import Foundation

/// A custom store's primary key of any type, inside a ``PersistentIdentifier``.
///
/// Equality and hashing use the key's type name and `description`, so a key that went through
/// `Codable` (which cannot restore an arbitrary type) still equals the original; ordering uses the
/// type's own `<` while both keys hold their values.
struct CustomPrimaryKey: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    let typeName: String
    let description: String
    /// The key itself; `nil` after decoding.
    let value: (any Sendable)?
    private let less: (@Sendable (any Sendable) -> Bool)?

    init<T: Comparable & CustomStringConvertible & Hashable & Sendable>(_ key: T) {
        // The plain type name: module names differ between platforms (Foundation's `UUID` lives
        // in FoundationEssentials on Linux), and identifiers travel between them.
        typeName = String(describing: T.self)
        description = key.description
        value = key
        less = { other in (other as? T).map { key < $0 } ?? false }
    }

    /// A key read back from its encoding: its value is not known, only its type and description.
    init(typeName: String, description: String) {
        self.typeName = typeName
        self.description = description
        value = nil
        less = nil
    }

    private enum CodingKeys: String, CodingKey { case type, key }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(typeName: try container.decode(String.self, forKey: .type), description: try container.decode(String.self, forKey: .key))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(typeName, forKey: .type)
        try container.encode(description, forKey: .key)
    }

    static func == (lhs: CustomPrimaryKey, rhs: CustomPrimaryKey) -> Bool {
        lhs.typeName == rhs.typeName && lhs.description == rhs.description
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(typeName)
        hasher.combine(description)
    }

    static func < (lhs: CustomPrimaryKey, rhs: CustomPrimaryKey) -> Bool {
        if lhs.typeName != rhs.typeName { return lhs.typeName < rhs.typeName }
        if let less = lhs.less, let other = rhs.value { return less(other) }
        return lhs.description < rhs.description
    }
}

/// Stand-ins for custom stores' keys: the context's identity map and the model layer key models
/// by `Int64`, so each custom key of a row a store returned gets a negative integer for the life of
/// the process (a few dozen bytes per row). Only keys of rows that exist are entered: looking up an
/// identifier (``existingStoredKey(for:entityName:storeIdentifier:)``) never enters anything, so
/// identifiers from clients (random ones included) cannot grow the table. Integer keys a store
/// gives as `Int`/`Int64` (non-negative) are used as they are.
final class CustomKeyTable: Sendable {
    static let shared = CustomKeyTable()

    private struct Entry: Hashable {
        let storeIdentifier: String
        let entityName: String
        let key: CustomPrimaryKey
    }

    private let state = Locked<(byKey: [Entry: Int64], byStoredKey: [Int64: CustomPrimaryKey])>(([:], [:]))

    /// The stand-in for the key of a row a store returned, given on first use.
    func storedKey(for key: CustomPrimaryKey, entityName: String, storeIdentifier: String) -> Int64 {
        let entry = Self.entry(key, entityName: entityName, storeIdentifier: storeIdentifier)
        return state.withLock { state in
            if let existing = state.byKey[entry] { return existing }
            let stored = -Int64(state.byKey.count) - 2  // -1 is the key no row has
            state.byKey[entry] = stored
            state.byStoredKey[stored] = key
            return stored
        }
    }

    /// The stand-in for `key` if it was given one; enters nothing.
    func existingStoredKey(for key: CustomPrimaryKey, entityName: String, storeIdentifier: String) -> Int64? {
        let entry = Self.entry(key, entityName: entityName, storeIdentifier: storeIdentifier)
        return state.withLock { $0.byKey[entry] }
    }

    private static func entry(_ key: CustomPrimaryKey, entityName: String, storeIdentifier: String) -> Entry {
        // A class hierarchy's models share keys, so a `Trip` identifier and a `BusinessTrip` one
        // with the same key stand for the same model.
        Entry(storeIdentifier: storeIdentifier, entityName: ModelLayout.rootEntityName(of: entityName), key: key)
    }

    /// The custom key a stand-in was given for.
    func customKey(for storedKey: Int64) -> CustomPrimaryKey? {
        state.withLock { $0.byStoredKey[storedKey] }
    }
}
