import Foundation

/// The values of one model at one moment, as the context and a ``DataStore`` exchange them:
/// `Codable` and `Sendable`, with related models named by ``PersistentIdentifier``.
///
/// Most stores use ``DefaultSnapshot``. A store with a snapshot type of its own must be able to
/// decode it from a ``DefaultSnapshot``'s encoding and encode it back the same way: the context
/// converts between the two through `Codable`.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The model's identifier.
    var persistentIdentifier: PersistentIdentifier { get }
    /// The snapshot under another identifier (a permanent one for an inserted model), with
    /// references to related models renamed by `remappedIdentifiers`.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> Self
}

/// The values a snapshot holds: anything `Codable` and `Sendable`.
public typealias DataStoreSnapshotValue = Codable & Sendable
