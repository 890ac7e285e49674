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
    /// The client's position in the server's changes and the object it was sent there
    /// (``SyncReply/cursorObject``), sent with every request: the server first checks it still
    /// has that change (``SyncError/resetRequired(reason:serverLost:)``), before it merges or sends anything.
    var position: Int64?
    var positionObject: UUID?
    /// The server's epoch as the client last heard it (``SyncReplicaState/epoch``).
    var epoch: String?
    /// The fingerprint of the shared trees the client's user read when it last pulled
    /// (``SyncReply/view``): another one now means the client cannot go on from where it is.
    var view: String?
    /// The subscriptions the client holds (name → values, ``SyncSubscription``): a pull sends
    /// only the objects they select of their entities; `nil` for all objects.
    var subscriptions: [String: SyncSubscription.Values]?
    /// With subscriptions, on a first pull: where the matching stands (``SyncReply/matching``),
    /// and once it is done, the change number it covered (``SyncReply/matchedThrough``).
    var matching: SyncMatching?
    var matchedThrough: Int64?
    /// The most records to pull.
    var pullLimit: Int = SyncClient.defaultPageSize
    /// The most bytes the reply should take (the server may take less; one record larger than
    /// that travels alone).
    var pullBytes: Int = SyncClient.defaultPageBytes
    /// Instead of pushing and pulling: a chunk of a large value sent, or asked for (``SyncChunk``).
    var chunk: SyncChunk? = nil
    /// The user this device last synced as (``SyncReplicaState/user``): a server serving another
    /// user refuses the request before it merges anything (``SyncError/userChanged(synced:now:)``).
    var user: String? = nil
    /// The fingerprint of the offers this device last heard (``SyncReply/offersFingerprint``).
    var offers: String? = nil
    /// The device's answers to offers, applied before anything else.
    var answers: [SyncOfferAnswer] = []
    /// A wait (a long poll): no push and no pull, but hold the reply up to this many seconds
    /// until a change after `position` may be read (``SyncReply/changed``).
    var wait: Double? = nil

    init(schema: String, node: String, push: [SyncRecord] = [], pullAfter: Int64? = nil, position: Int64? = nil, positionObject: UUID? = nil, epoch: String? = nil, view: String? = nil,
         subscriptions: [String: SyncSubscription.Values]? = nil, matching: SyncMatching? = nil, matchedThrough: Int64? = nil, pullLimit: Int = SyncClient.defaultPageSize, pullBytes: Int = SyncClient.defaultPageBytes) {
        self.schema = schema
        self.node = node
        self.push = push
        self.pullAfter = pullAfter
        self.position = position
        self.positionObject = positionObject
        self.epoch = epoch
        self.view = view
        self.subscriptions = subscriptions
        self.matching = matching
        self.matchedThrough = matchedThrough
        self.pullLimit = pullLimit
        self.pullBytes = pullBytes
    }

    private enum CodingKeys: String, CodingKey {
        case schema, node, push, pullAfter, position, positionObject, epoch, view, subscriptions, matching, matchedThrough, pullLimit, pullBytes, chunk, user, offers, answers, wait
    }

    /// The most answers to offers one request carries.
    static let maximumAnswers = 1_000

    /// Refuses more than ``SyncServer/maximumPushRecords`` records before decoding any of them
    /// (a body of a million empty records costs its parse, not a million records).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schema = try container.decode(String.self, forKey: .schema)
        node = try container.decode(String.self, forKey: .node)
        pullAfter = try container.decodeIfPresent(Int64.self, forKey: .pullAfter)
        position = try container.decodeIfPresent(Int64.self, forKey: .position)
        positionObject = try container.decodeIfPresent(UUID.self, forKey: .positionObject)
        epoch = try container.decodeIfPresent(String.self, forKey: .epoch)
        view = try container.decodeIfPresent(String.self, forKey: .view)
        subscriptions = try container.decodeIfPresent([String: SyncSubscription.Values].self, forKey: .subscriptions)
        matching = try container.decodeIfPresent(SyncMatching.self, forKey: .matching)
        matchedThrough = try container.decodeIfPresent(Int64.self, forKey: .matchedThrough)
        pullLimit = try container.decodeIfPresent(Int.self, forKey: .pullLimit) ?? SyncClient.defaultPageSize
        pullBytes = try container.decodeIfPresent(Int.self, forKey: .pullBytes) ?? SyncClient.defaultPageBytes
        chunk = try container.decodeIfPresent(SyncChunk.self, forKey: .chunk)
        user = try container.decodeIfPresent(String.self, forKey: .user)
        offers = try container.decodeIfPresent(String.self, forKey: .offers)
        answers = try container.decodeIfPresent([SyncOfferAnswer].self, forKey: .answers) ?? []
        wait = try container.decodeIfPresent(Double.self, forKey: .wait)
        guard answers.count <= Self.maximumAnswers else {
            throw SyncError.malformed("a request answers \(answers.count) offers; the most is \(Self.maximumAnswers)")
        }
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
