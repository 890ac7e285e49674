import Foundation
import OpenSwiftData

extension SyncReplica {
    /// Goes back to the server's versions of objects whose pushed records it refused: what this
    /// replica knows of their edits is forgotten, so every property of the server's record wins
    /// (and a delete there is made here), in one save authored ``author`` (not an edit to send).
    /// Returns how many objects changed.
    ///
    /// A member added to or taken from a to-many that travels member by member keeps its edit
    /// unless the server's record names that member: such edits are refused only from hostile
    /// clients, whose devices need not be tidied.
    func revert(_ records: [SyncRecord], in context: ModelContext) throws -> Int {
        for object in try syncedObjects(records.map(\.id), in: context).values {
            object.clocks = [:]
            object.deletedClock = nil
        }
        return try apply(records, skew: Self.allowedServerSkew, in: context)
    }
}
