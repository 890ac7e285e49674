import Foundation
import OpenSwiftData

/// A server's record of one shared tree (see ``SyncShare``): the objects of a tree move to an
/// owner of their own, named after the root, which its sharer and its grantees read besides
/// their own objects. Kept by the server only, without an owner (``SyncSchema/sharedModels``);
/// never synced. It stays when the last share of its root ends: the tree's objects stay where
/// they are, and its sharer goes on reading them.
@Model
public final class SyncZone {
    #Unique<SyncZone>([\.name])
    #Index<SyncZone>([\.sharer])
    /// The owner the tree's rows have: `share:` and the root's identity.
    public var name: String
    /// The user who shared the root.
    public var sharer: String
    /// The global identity of the root.
    public var root: UUID

    /// The zone of `root`, shared by `sharer`.
    public init(root: UUID, sharer: String) {
        self.name = Self.name(of: root)
        self.sharer = sharer
        self.root = root
    }

    /// The owner name of the zone of `root`.
    public static func name(of root: UUID) -> String { prefix + root.uuidString }

    /// The root whose zone `name` is; `nil` for a name that is no zone's.
    public static func root(of name: String) -> UUID? {
        name.hasPrefix(prefix) ? UUID(uuidString: String(name.dropFirst(prefix.count))) : nil
    }

    /// What every zone's owner name begins with; no principal's user may begin so.
    public static let prefix = "share:"
}
