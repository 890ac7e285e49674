import Foundation

/// What a client sends: the records it pushes, and where its pull starts.
struct SyncRequest: Codable, Sendable {
    /// The client's schema version; the server refuses another.
    var schema: String
    /// The client's replica name: records whose every edit came from it are not sent back.
    var node: String
    /// Records of objects edited on the client.
    var push: [SyncRecord] = []
    /// Pull the changes after this position in the server's (``SyncReplicaState/serverCursor``);
    /// `nil` to pull nothing.
    var pullAfter: Int64?
    /// The most records to pull.
    var pullLimit: Int = SyncClient.defaultPageSize
}
