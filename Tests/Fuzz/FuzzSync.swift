import Foundation
import OpenSwiftData
import OpenSwiftDataSync
import TestModels

/// Sync under hostile input: what any holder of a sync token can send (a real device's requests,
/// mutated value by value or byte by byte) answered by a server, and a server whose sync
/// bookkeeping was mutated (its replica state, its objects' clocks, their identities) synced with
/// by a device and by a new one. Each input must end in a reply or a thrown error.
enum FuzzSync {
    static let types: [any PersistentModel.Type] = FuzzModels.types + SyncSchema.models

    /// What every sync input starts from: a server's store that a device synced with, the
    /// device's store, and the request bodies the device sent.
    struct Base {
        let server: URL
        let device: URL
        let requests: [Data]
    }

    /// Answers through a server in-process and keeps every request body.
    final class Recorder: SyncTransport, @unchecked Sendable {
        let server: SyncServer
        private let lock = NSLock()
        private var recorded: [Data] = []

        init(server: SyncServer) {
            self.server = server
        }

        var bodies: [Data] { lock.withLock { recorded } }
        var serverDescription: String { "the fuzzed server" }

        func send(_ body: Data) async throws -> Data {
            lock.withLock { recorded.append(body) }
            return try server.respond(to: body)
        }
    }

    /// A device filled with the fuzz models syncs with a server in small pages, edits, deletes
    /// and syncs again; both stores are left checkpointed in `work`.
    static func prepare(in work: URL) async throws -> Base {
        let serverURL = work.appendingPathComponent("sync-server.store")
        let deviceURL = work.appendingPathComponent("sync-device.store")
        let server = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: serverURL))
        let device = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: deviceURL))
        try FuzzModels.fill(device)
        let recorder = Recorder(server: try SyncServer(container: server))
        let client = try SyncClient(container: device, transport: recorder, pageSize: 7)
        _ = try await client.sync()
        let context = ModelContext(device)
        if let owner = try context.fetch(FetchDescriptor<FuzzOwner>()).first {
            owner.score = 42
            owner.items.first?.labels = []
        }
        if let item = try context.fetch(FetchDescriptor<FuzzItem>()).last { context.delete(item) }
        try context.save()
        _ = try await client.sync()
        let requests = recorder.bodies
        server.close()
        device.close()
        try FuzzStoreFile.checkpoint(serverURL)
        try FuzzStoreFile.checkpoint(deviceURL)
        return Base(server: serverURL, device: deviceURL, requests: requests)
    }

    // MARK: Users, shares and large values

    /// The models of the users' server: the fuzz models, sync's, and sharing's.
    static let sharingTypes: [any PersistentModel.Type] = types + SyncSchema.sharingModels

    /// A server keeping each user's objects apart, whose users share and answer offers, and the
    /// requests its users' devices sent — each with its user.
    struct UsersBase {
        let server: URL
        let requests: [(user: String, body: Data)]
    }

    /// A users' server on `url` (a copy of the base's).
    static func usersServer(_ url: URL) throws -> (SyncServer, ModelContainer) {
        var configuration = ModelConfiguration(url: url)
        configuration.ownedRows = .allEntities(except: SyncSchema.sharedModels)
        let container = try ModelContainer(for: Schema(sharingTypes), configurations: configuration)
        return (try SyncServer(container: container, largeValueFolder: url.deletingPathExtension().appendingPathExtension("values")), container)
    }

    /// Answers as `principal`'s device, keeping every request body with its user.
    final class UserRecorder: SyncTransport, @unchecked Sendable {
        let server: SyncServer
        let user: String
        private let lock = NSLock()
        private(set) var recorded: [(user: String, body: Data)] = []

        init(server: SyncServer, user: String) {
            self.server = server
            self.user = user
        }

        var serverDescription: String { "the fuzzed users' server" }

        func send(_ body: Data) async throws -> Data {
            lock.withLock { recorded.append((user, body)) }
            return try server.respond(to: body, as: SyncPrincipal(user: user))
        }
    }

    /// Alice's device syncs its objects — a photo of 1.5 MB among them, which travels apart in
    /// chunks — and shares an item with bob, whose device hears the offer and accepts it.
    static func prepareUsers(in work: URL) async throws -> UsersBase {
        let serverURL = work.appendingPathComponent("sync-users-server.store")
        let (server, container) = try usersServer(serverURL)
        var requests: [(user: String, body: Data)] = []
        for user in ["alice", "bob"] {
            let device = try ModelContainer(for: Schema(sharingTypes), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let recorder = UserRecorder(server: server, user: user)
            let client = try SyncClient(container: device, transport: recorder, pageSize: 7, chunkBytes: 512 << 10)
            let context = ModelContext(device)
            if user == "alice" {
                try FuzzModels.fill(device)
                try context.fetch(FetchDescriptor<FuzzOwner>()).first?.photo = Data(repeating: 7, count: 1_500_000)
                try context.save()
                _ = try await client.sync()
                if let item = try context.fetch(FetchDescriptor<FuzzItem>()).first {
                    try context.share(item, with: "bob", role: .writer)
                    try context.save()
                }
                _ = try await client.sync()
            } else {
                _ = try await client.sync()
                for offer in try context.shareOffers() { try context.accept(offer) }
                try context.save()
                _ = try await client.sync()
            }
            requests += recorder.recorded
        }
        container.close()
        try FuzzStoreFile.checkpoint(serverURL)
        return UsersBase(server: serverURL, requests: requests)
    }

    /// A users' server on `server` (a copy of the base's) answers `body` as `user`'s device:
    /// `true` if it replied.
    static func request(_ body: Data, as user: String, server: URL) -> Bool {
        do {
            let (syncServer, container) = try usersServer(server)
            defer { container.close() }
            _ = try syncServer.respond(to: body, as: SyncPrincipal(user: user))
            return true
        } catch {
            if ProcessInfo.processInfo.environment["OPENSWIFTDATA_FUZZ_VERBOSE"] != nil { print("refused: \(error)") }
            return false
        }
    }

    /// A server on `server` (a copy of the base's) answers `body`: `true` if it replied.
    static func request(_ body: Data, server: URL) -> Bool {
        do {
            let container = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: server))
            defer { container.close() }
            _ = try SyncServer(container: container).respond(to: body)
            return true
        } catch {
            if ProcessInfo.processInfo.environment["OPENSWIFTDATA_FUZZ_VERBOSE"] != nil { print("refused: \(error)") }
            return false
        }
    }

    /// The base device and a new one sync with a server on `server` (a copy of the base's, its
    /// bookkeeping mutated): `true` if both syncs succeeded.
    static func sync(server: URL, device: URL, newDevice: URL) async -> Bool {
        do {
            let container = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: server))
            defer { container.close() }
            let syncServer = try SyncServer(container: container)
            for url in [device, newDevice] {
                let deviceContainer = try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url))
                defer { deviceContainer.close() }
                _ = try await SyncClient(container: deviceContainer, transport: Recorder(server: syncServer), pageSize: 5).sync()
                _ = try ModelContext(deviceContainer).fetch(FetchDescriptor<FuzzOwner>()).map { ($0.name, $0.items.count) }
            }
            return true
        } catch {
            if ProcessInfo.processInfo.environment["OPENSWIFTDATA_FUZZ_VERBOSE"] != nil { print("refused: \(error)") }
            return false
        }
    }

    /// Sets one to three values anywhere in a request's JSON to hostile ones; returns the new
    /// body and what was done (`nil`: the body is not JSON, so its bytes are mutated instead).
    static func mutateJSON(_ body: Data, _ random: inout SplitMix64) -> (Data, String)? {
        guard var root = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return nil }
        var done: [String] = []
        for _ in 0..<(1 + random.below(3)) {
            var paths: [[PathStep]] = []
            collect(root, at: [], into: &paths)
            guard !paths.isEmpty else { break }
            let path = paths[random.below(paths.count)]
            let (value, description) = hostileJSON(&random)
            root = replacing(root, at: path[...], with: value)
            done.append("\(path.map(\.description).joined(separator: ".")) = \(description)")
        }
        guard let data = try? JSONSerialization.data(withJSONObject: root, options: [.fragmentsAllowed]) else { return nil }
        return (data, done.joined(separator: ", "))
    }

    enum PathStep: CustomStringConvertible {
        case key(String), index(Int)
        var description: String {
            switch self {
            case .key(let key): key
            case .index(let index): "[\(index)]"
            }
        }
    }

    /// Every position in a JSON value (at most a few thousand, so large bodies stay quick).
    private static func collect(_ value: Any, at path: [PathStep], into paths: inout [[PathStep]]) {
        guard paths.count < 4_000 else { return }
        paths.append(path)
        if let object = value as? [String: Any] {
            for (key, child) in object.sorted(by: { $0.key < $1.key }) { collect(child, at: path + [.key(key)], into: &paths) }
        } else if let array = value as? [Any] {
            for (index, child) in array.enumerated() { collect(child, at: path + [.index(index)], into: &paths) }
        }
    }

    private static func replacing(_ value: Any, at path: ArraySlice<PathStep>, with new: Any) -> Any {
        guard let step = path.first else { return new }
        switch step {
        case .key(let key):
            guard var object = value as? [String: Any], let child = object[key] else { return value }
            object[key] = replacing(child, at: path.dropFirst(), with: new)
            return object
        case .index(let index):
            guard var array = value as? [Any], array.indices.contains(index) else { return value }
            array[index] = replacing(array[index], at: path.dropFirst(), with: new)
            return array
        }
    }

    /// A JSON value a hostile client might send, and how to print it.
    private static func hostileJSON(_ random: inout SplitMix64) -> (Any, String) {
        let values: [(Any, String)] = [
            (NSNull(), "null"), (Int64.max, "Int64.max"), (Int64.min, "Int64.min"), (-1, "-1"), (0, "0"), (1e308, "1e308"),
            ("", "\"\""), ("-", "\"-\""), (".e5", "\".e5\""), ("1e", "\"1e\""), ("NaN", "\"NaN\""), ("inf", "\"inf\""),
            (UUID().uuidString, "a new UUID"), ("+" + UUID().uuidString, "a member edit"), (String(repeating: "x", count: 70_000), "70 kB of text"),
            ([Any](), "[]"), ([String: Any](), "{}"), (true, "true"), (["value": Int64.max, "node": "x"], "a clock at Int64.max"),
            (["value": 1, "node": ""], "a clock with no node"), (["n": NSNull()], "a null value"), (["i": 1, "t": "x"], "a value of two kinds"),
            ([["id": UUID().uuidString, "entity": "FuzzOwner", "fields": [String: Any](), "alias": UUID().uuidString]], "an alias record"),
        ]
        return values[random.below(values.count)]
    }
}
