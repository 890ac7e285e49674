import Foundation

/// What a client sends: the records it pushes, and where its pull starts.
struct SyncRequest: Codable, Sendable {
    /// The client's schema version; the server refuses another.
    var schema: String
    /// The client's replica name, as it says (for logs; nothing is decided by it).
    var node: String
    /// Records of objects edited on the client.
    var push: [SyncRecord] = []
    /// Pull the changes after this position in the server's (``SyncReplicaState/serverCursor``);
    /// `nil` to pull nothing.
    var pullAfter: Int64?
    /// The most records to pull.
    var pullLimit: Int = SyncClient.defaultPageSize
    /// The most bytes the reply should take (the server may take less; one record larger than
    /// that travels alone).
    var pullBytes: Int = SyncClient.defaultPageBytes

    init(schema: String, node: String, push: [SyncRecord] = [], pullAfter: Int64? = nil, pullLimit: Int = SyncClient.defaultPageSize, pullBytes: Int = SyncClient.defaultPageBytes) {
        self.schema = schema
        self.node = node
        self.push = push
        self.pullAfter = pullAfter
        self.pullLimit = pullLimit
        self.pullBytes = pullBytes
    }

    private enum CodingKeys: String, CodingKey {
        case schema, node, push, pullAfter, pullLimit, pullBytes
    }

    /// Refuses more than ``SyncServer/maximumPushRecords`` records before decoding any of them
    /// (a body of a million empty records costs its parse, not a million records).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schema = try container.decode(String.self, forKey: .schema)
        node = try container.decode(String.self, forKey: .node)
        pullAfter = try container.decodeIfPresent(Int64.self, forKey: .pullAfter)
        pullLimit = try container.decodeIfPresent(Int.self, forKey: .pullLimit) ?? SyncClient.defaultPageSize
        pullBytes = try container.decodeIfPresent(Int.self, forKey: .pullBytes) ?? SyncClient.defaultPageBytes
        push = []
        guard container.contains(.push) else { return }
        var records = try container.nestedUnkeyedContainer(forKey: .push)
        if let count = records.count, count > SyncServer.maximumPushRecords {
            throw SyncError.malformed("a request pushes \(count) records; the most is \(SyncServer.maximumPushRecords)")
        }
        push.reserveCapacity(records.count ?? 0)
        while !records.isAtEnd {
            push.append(try records.decode(SyncRecord.self))
        }
    }
}
