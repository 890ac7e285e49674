import Foundation
import OpenSwiftData

/// The shared trees one user reads on a server (``SyncShare``), each by the owner its rows have
/// (``SyncZone``): those the user shared, and those shared with the user to edit or only to read.
struct SyncSpaces: Sendable, Equatable {
    /// Zones of trees the user shared.
    var shared: [String] = []
    /// Zones of trees shared with the user as a writer.
    var writable: [String] = []
    /// Zones of trees shared with the user as a reader.
    var readable: [String] = []

    /// Every zone the user reads besides its own objects.
    var all: [String] { shared + writable + readable }

    /// A fingerprint of the trees shared with the user: when it changes, the user's devices
    /// have objects to drop or to receive that their position in the server's changes has
    /// passed, so they start again. The trees the user shared are left out: their objects were
    /// the user's before.
    var fingerprint: String {
        var hash = SyncFingerprint()
        for zone in (writable + readable).sorted() { hash.add("\(zone);") }
        return hash.text
    }

    /// The zones `user` reads in `container`, whose schema has ``SyncSchema/sharingModels``:
    /// two indexed lookups, of the trees the user shared and of the shares naming the user.
    static func of(_ user: String, in container: ModelContainer) throws -> SyncSpaces {
        let context = ModelContext(container)
        var spaces = SyncSpaces()
        spaces.shared = try context.fetch(FetchDescriptor<SyncZone>(predicate: #Predicate { $0.sharer == user }, sortBy: [SortDescriptor(\.name)])).map(\.name)
        let shares = try context.fetch(FetchDescriptor<SyncShare>(predicate: #Predicate { $0.grantee == user }))
        for share in shares.sorted(by: { $0.root.uuidString < $1.root.uuidString }) where share.owner != user {
            switch share.grantedRole {
            case .writer: spaces.writable.append(SyncZone.name(of: share.root))
            case .reader: spaces.readable.append(SyncZone.name(of: share.root))
            case nil: continue
            }
        }
        return spaces
    }
}
