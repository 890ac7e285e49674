import Foundation

/// The snapshot the context gives every ``DataStore`` that does not define its own: the model's
/// identifier and its persisted values by property name.
///
/// Its `Codable` form is plain JSON a store can keep as it is — attributes as numbers, strings
/// and `null`; `Data` as `{"data": base64}`; a to-one relationship as `{"model": identifier}`, a
/// to-many one as `{"models": [identifiers]}`:
///
/// ```swift
/// let data = try JSONEncoder().encode(snapshots)          // [DefaultSnapshot]
/// let back = try JSONDecoder().decode([DefaultSnapshot].self, from: data)
/// ```
///
/// Values are kept as the SQLite store keeps them: dates as seconds since 2001-01-01, `UUID`s and
/// `Codable` composites as their encoded form, enums as raw values.
public struct DefaultSnapshot: DataStoreSnapshot, Hashable {
    /// The model's identifier.
    public let persistentIdentifier: PersistentIdentifier
    /// The values by property name.
    var values: [String: SnapshotValue]

    init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// The names of the properties the snapshot holds.
    public var propertyNames: [String] { values.keys.sorted() }

    /// A property's stored value: `nil`, an `Int64`, a `Double`, a `String`, a `Data`, a
    /// ``PersistentIdentifier`` (to-one) or `[PersistentIdentifier]` (to-many).
    ///
    /// ```swift
    /// let name = snapshot["name"] as? String
    /// ```
    public subscript(propertyName: String) -> (any DataStoreSnapshotValue)? {
        values[propertyName]?.publicValue
    }

    /// The snapshot under another identifier, with references to related models renamed by
    /// `remappedIdentifiers`.
    ///
    /// ```swift
    /// let stored = snapshot.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped)
    /// ```
    public func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]? = nil) -> DefaultSnapshot {
        guard let remappedIdentifiers, !remappedIdentifiers.isEmpty else {
            return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values)
        }
        return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.mapValues { value in
            switch value {
            case .model(let id): return .model(remappedIdentifiers[id] ?? id)
            case .models(let ids): return .models(ids.map { remappedIdentifiers[$0] ?? $0 })
            default: return value
            }
        })
    }

    private enum CodingKeys: String, CodingKey { case persistentIdentifier, values }
}
