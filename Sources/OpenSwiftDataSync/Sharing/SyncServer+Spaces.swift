import Foundation
import OpenSwiftData

/// The shared trees a user reads, for a server's pages to list.
extension SyncServer {
    /// The owners (``SyncZone`` names) of every shared tree `user` reads besides its own
    /// objects: the trees `user` shared, and those shared with `user` and accepted, to write or
    /// only to read — offers not yet accepted are not among them. For a list to show; to read
    /// and write what `user`'s devices do, make the context with `includingGrants: true`: it
    /// reads every tree here, and its saves refuse a change to a tree `user` may only read
    /// (`SwiftDataError.readOnlyOwner`). Passing these names to `alsoReading`
    /// reads the same trees, all read-only.
    ///
    /// ```swift
    /// let ledgers = try await container.perform(owner: user, includingGrants: true) { context in
    ///     try context.fetch(FetchDescriptor<Ledger>()).map(\.name)
    /// }
    /// let treeCount = try server.sharedSpaces(for: user).count
    /// ```
    public func sharedSpaces(for user: String) throws -> [String] {
        guard keepsOwners, access.sharing else { return [] }
        return try SyncSpaces.zones(of: user, in: replica.container)
    }

    /// The owners of the shared trees `user` reads in `container`, a sync server's store, as
    /// ``sharedSpaces(for:)`` says — for code that has the container but not the server. Empty
    /// where the schema lacks ``SyncSchema/sharingModels``.
    ///
    /// ```swift
    /// let trees = try SyncServer.sharedSpaces(for: user, in: container)
    /// ```
    public static func sharedSpaces(for user: String, in container: ModelContainer) throws -> [String] {
        let names = Set(container.schema.entities.map(\.name))
        guard names.contains(SyncShare.entityName), names.contains("SyncZone") else { return [] }
        return try SyncSpaces.zones(of: user, in: container)
    }
}
