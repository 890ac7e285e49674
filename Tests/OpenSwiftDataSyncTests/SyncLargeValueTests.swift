import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataSync

/// A server reached in-process that notes every body's size and the bytes of large values sent
/// each way, and — once armed — fails the request after `failAfter` more chunk requests, as a
/// network gone part way through a transfer would.
final class ChunkCountingTransport: SyncTransport, @unchecked Sendable {
    let server: SyncServer
    private let lock = NSLock()
    private(set) var largestBody = 0
    private(set) var uploaded = 0
    private(set) var downloaded = 0
    private(set) var pushedRecords: [SyncRecord] = []
    var failAfter: Int?

    init(server: SyncServer) {
        self.server = server
    }

    var serverDescription: String { "the test server" }

    func reset() {
        lock.withLock { largestBody = 0; uploaded = 0; downloaded = 0; pushedRecords = [] }
    }

    func send(_ body: Data) async throws -> Data {
        let request = try JSONDecoder().decode(SyncRequest.self, from: body)
        if request.chunk != nil {
            let fail = lock.withLock {
                guard let left = failAfter else { return false }
                failAfter = left - 1
                return left <= 0
            }
            if fail { throw SyncError.server("the test network went away") }
        }
        let reply = try server.respond(to: body)
        let decoded = try JSONDecoder().decode(SyncReply.self, from: reply)
        lock.withLock {
            largestBody = max(largestBody, body.count, reply.count)
            uploaded += request.chunk?.bytes?.count ?? 0
            downloaded += decoded.chunk?.bytes?.count ?? 0
            pushedRecords += request.push
        }
        return reply
    }
}

/// Large values (the Sync article's *Large values*): `Data` attributes declared
/// `.externalStorage`, or larger than the threshold, travel apart from records, by content
/// hash, in chunks; a transfer stopped part way goes on from where it stopped.
@Suite struct SyncLargeValueTests {
    /// A server over `kind` and two devices on SQLite files, whose transports count chunks;
    /// chunks of 64 KB.
    final class World {
        let server: TestStore
        let syncServer: SyncServer
        let devices: [TestStore]
        let transports: [ChunkCountingTransport]
        let clients: [SyncClient]
        let folders: [URL]

        /// `onDemand`: the second device fetches attachments' large values on demand.
        init(_ kind: StoreKind, onDemand: Bool = false) throws {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("sync-large-\(UUID().uuidString)")
            folders = (0..<3).map { base.appendingPathComponent("\($0)") }
            server = try TestStore(kind, SyncModels.types)
            syncServer = try SyncServer(container: server.container, largeValueFolder: folders[0])
            let devices = try (0..<2).map { _ in try TestStore(.file, SyncModels.types) }
            let server = syncServer, folders = folders
            let transports = devices.map { _ in ChunkCountingTransport(server: server) }
            clients = try (0..<2).map {
                try SyncClient(container: devices[$0].container, transport: transports[$0], chunkBytes: 64 << 10, largeValueFolder: folders[$0 + 1],
                               largeValuesOnDemand: onDemand && $0 == 1 ? [Attachment.self] : [])
            }
            self.devices = devices
            self.transports = transports
        }

        deinit {
            if let base = folders.first?.deletingLastPathComponent() { try? FileManager.default.removeItem(at: base) }
        }

        func context(_ device: Int) -> ModelContext { ModelContext(devices[device].container) }

        @discardableResult
        func sync(_ device: Int) async throws -> SyncClient.Result { try await clients[device].sync() }

        /// Each attachment's name and the hash of its photo and thumbnail, read in a fresh context.
        func attachments(_ container: ModelContainer) throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<Attachment>(sortBy: [SortDescriptor(\.name)])).map {
                "\($0.name) \(SyncSHA256.hex(of: $0.photo).prefix(12)) \($0.photo.count) \($0.thumbnail.map { "\(SyncSHA256.hex(of: $0).prefix(12)) \($0.count)" } ?? "-")"
            }
        }
    }

    /// Bytes that differ from chunk to chunk (a chunk sent twice or out of place shows).
    static func bytes(_ count: Int, seed: UInt8) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8 &+ Int(seed)) })
    }

    @Test func sha256MatchesTheStandardsVectorsWholeOrInPieces() {
        #expect(SyncSHA256.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SyncSHA256.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let two = Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(SyncSHA256.hex(of: two) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SyncSHA256.hex(of: million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var pieces = SyncSHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 127, 999_680] {
            pieces.update(million.subdata(in: offset..<offset + size))
            offset += size
        }
        #expect(pieces.finish() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: SyncTests.serverKinds.filter { $0 != .logged })
    func aLargeValueTravelsApartInChunksAndArrivesWhole(_ kind: StoreKind) async throws {
        let world = try World(kind)
        let photo = Self.bytes(300_000, seed: 1)
        let thumbnail = Self.bytes((1 << 20) + 10, seed: 2)
        let a = world.context(0)
        a.insert(Attachment(name: "beach", photo: photo, thumbnail: thumbnail))
        a.insert(Attachment(name: "icon", photo: Data([1, 2, 3]), thumbnail: Data([4, 5])))
        try a.save()
        try await world.sync(0)
        // The records carried no bytes of the large values; the small thumbnail went inline.
        let pushed = world.transports[0].pushedRecords
        #expect(pushed.flatMap { $0.fields.values.compactMap(\.large) }.map(\.size).sorted() == [3, 300_000, (1 << 20) + 10])
        #expect(world.transports[0].uploaded == 3 + 300_000 + (1 << 20) + 10)
        #expect(world.transports[0].largestBody < 200_000)

        // The server's folder emptied (another machine's instance, or a day later): the values
        // are read from its rows, a chunk at a time.
        try FileManager.default.removeItem(at: world.folders[0])
        try await world.sync(1)
        let expected = try world.attachments(world.devices[0].container)
        #expect(try world.attachments(world.devices[1].container) == expected)
        #expect(try world.attachments(world.server.container) == expected)
        #expect(world.transports[1].downloaded == 3 + 300_000 + (1 << 20) + 10)
        #expect(world.transports[1].largestBody < 200_000)
        // What the device received is in its store now, not in its folder.
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: world.folders[2].path)) ?? []).isEmpty)

        // An edit of another attribute sends no bytes again; an edit of the photo sends the new one.
        world.transports[1].reset()
        let b = world.context(1)
        let beach = try #require(try b.fetch(FetchDescriptor<Attachment>(predicate: #Predicate { $0.name == "beach" })).first)
        beach.name = "beach 2"
        try b.save()
        try await world.sync(1)
        #expect(world.transports[1].uploaded == 0)
        beach.photo = Self.bytes(200_000, seed: 3)
        beach.thumbnail = nil
        try b.save()
        try await world.sync(1)
        #expect(world.transports[1].uploaded == 200_000)
        world.transports[0].reset()
        try await world.sync(0)
        #expect(world.transports[0].downloaded == 200_000)
        #expect(try world.attachments(world.devices[0].container) == world.attachments(world.devices[1].container))
        #expect(try world.attachments(world.devices[0].container).first == "beach 2 \(SyncSHA256.hex(of: Self.bytes(200_000, seed: 3)).prefix(12)) 200000 -")
    }

    @Test(arguments: SyncTests.serverKinds.filter { $0 != .logged })
    func anInterruptedTransferGoesOnFromWhereItStopped(_ kind: StoreKind) async throws {
        let world = try World(kind)
        let photo = Self.bytes(640 << 10, seed: 4)
        let a = world.context(0)
        a.insert(Attachment(name: "scan", photo: photo))
        try a.save()

        // The upload stops after the probe and four chunks: nothing of the record is pushed.
        world.transports[0].failAfter = 5
        await #expect(throws: SyncError.self) { try await world.sync(0) }
        #expect(try world.attachments(world.server.container).isEmpty)
        #expect(world.transports[0].uploaded == 4 * (64 << 10))
        world.transports[0].failAfter = nil
        try await world.sync(0)
        #expect(world.transports[0].uploaded == 640 << 10)

        // The download stops after three chunks; the device keeps them and asks for the rest.
        world.transports[1].failAfter = 3
        await #expect(throws: SyncError.self) { try await world.sync(1) }
        #expect(try world.attachments(world.devices[1].container).isEmpty)
        world.transports[1].failAfter = nil
        try await world.sync(1)
        #expect(world.transports[1].downloaded == 640 << 10)
        #expect(try world.attachments(world.devices[1].container) == world.attachments(world.devices[0].container))
    }

    @Test func aPushNamingAValueNeverSentOrBytesOfAnotherHashAreRefused() async throws {
        let world = try World(.memory)
        let hostile = HostileClient(server: world.syncServer)
        let value = SyncLargeValue(of: Self.bytes(1000, seed: 5))
        var field = HostileClient.field(.null)
        field.value = nil
        field.large = value
        let record = SyncRecord(id: UUID(), entity: "Attachment", deleted: nil, fields: ["name": HostileClient.field(.text("forged")), "photo": field])
        let error = hostile.refusal([record])
        #expect(error.map { "\($0)" }?.contains("was not sent whole before its record") == true)
        #expect(try world.attachments(world.server.container).isEmpty)

        // Bytes that do not have the hash they were sent under are thrown away.
        var request = SyncRequest(schema: world.syncServer.replica.schemaVersion, node: "hostile")
        request.chunk = SyncChunk(value: value, offset: 0, bytes: Self.bytes(1000, seed: 6))
        #expect(throws: SyncError.self) { try world.syncServer.respond(to: JSONEncoder().encode(request)) }
        #expect(world.syncServer.replica.largeValues.received(value) == 0)
        // A hash that is not 64 hexadecimal digits (it would name a file) is no request.
        let body = String(decoding: try JSONEncoder().encode(request), as: UTF8.self).replacingOccurrences(of: value.sha256, with: "../../etc/passwd")
        #expect(throws: SyncError.self) { try world.syncServer.respond(to: Data(body.utf8)) }
    }

    /// A chunk of `value` at `offset` (`bytes` from `data`), sent as `user`; the offset the server says it has.
    static func upload(_ data: Data, of value: SyncLargeValue, at offset: Int, count: Int, to server: SyncServer, as user: String) throws -> Int64? {
        var request = SyncRequest(schema: server.replica.schemaVersion, node: "\(user)'s device")
        request.chunk = SyncChunk(value: value, offset: Int64(offset), bytes: data.subdata(in: offset..<(offset + count)))
        return try JSONDecoder().decode(SyncReply.self, from: server.respond(to: JSONEncoder().encode(request), as: SyncPrincipal(user: user))).chunk?.offset
    }

    @Test(arguments: StoreKind.keepingOwners)
    func eachUsersUploadsAreTheirOwn(_ kind: StoreKind) async throws {
        let users = try SyncUsersTests.Users(kind)
        let server = users.server
        let photo = Self.bytes(3000, seed: 11)
        let value = SyncLargeValue(of: photo)
        #expect(try Self.upload(photo, of: value, at: 0, count: 3000, to: server, as: "alice") == 3000)
        // Bob learns nothing of alice's upload: his starts at 0, and a push naming the value
        // without his own bytes is refused.
        var ask = SyncRequest(schema: server.replica.schemaVersion, node: "bob's device")
        ask.chunk = SyncChunk(value: value, offset: 0)
        #expect(try JSONDecoder().decode(SyncReply.self, from: server.respond(to: JSONEncoder().encode(ask), as: SyncPrincipal(user: "bob"))).chunk?.offset == 0)
        var field = HostileClient.field(.null)
        field.value = nil
        field.large = value
        let record = SyncRecord(id: UUID(), entity: "Attachment", deleted: nil, fields: ["name": HostileClient.field(.text("borrowed")), "photo": field])
        let push = try JSONEncoder().encode(SyncRequest(schema: server.replica.schemaVersion, node: "bob's device", push: [record]))
        #expect { try server.respond(to: push, as: SyncPrincipal(user: "bob")) } throws: { "\($0)".contains("was not sent whole before its record") }
        #expect(try ModelContext(users.serverStore.container).fetchCount(FetchDescriptor<Attachment>()) == 0)
        // Alice's own push of it goes through.
        let mine = try JSONEncoder().encode(SyncRequest(schema: server.replica.schemaVersion, node: "alice's device", push: [record]))
        _ = try server.respond(to: mine, as: SyncPrincipal(user: "alice"))
        #expect(try ModelContext(users.serverStore.container, owner: "alice").fetch(FetchDescriptor<Attachment>()).map(\.photo) == [photo])
    }

    @Test func uploadsHaveLimitsAndUnfinishedOnesExpire() throws {
        let serverStore = try TestStore(.memory, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels))
        var limits = SyncLargeValueLimits()
        limits.bytesPerUser = 10_000
        limits.bytesInAll = 15_000
        limits.partialUploadRetention = 600
        let server = try SyncServer(container: serverStore.container, largeValueLimits: limits)
        // A value larger than a user may upload at once can never come: 413.
        let huge = SyncLargeValue(sha256: String(repeating: "a", count: 64), size: 20_000)
        #expect { try Self.upload(Data(count: 100), of: huge, at: 0, count: 100, to: server, as: "alice") } throws: { ($0 as? SyncError)?.httpStatus == 413 }
        // Unfinished uploads fill a user's room: the next chunk waits (429), another user's goes on.
        let first = Self.bytes(8000, seed: 1), second = Self.bytes(8000, seed: 2), third = Self.bytes(8000, seed: 3)
        #expect(try Self.upload(first, of: SyncLargeValue(of: first), at: 0, count: 6000, to: server, as: "alice") == 6000)
        #expect { try Self.upload(second, of: SyncLargeValue(of: second), at: 0, count: 6000, to: server, as: "alice") } throws: { ($0 as? SyncError)?.httpStatus == 429 }
        #expect(try Self.upload(second, of: SyncLargeValue(of: second), at: 0, count: 6000, to: server, as: "bob") == 6000)
        // The server's room for all users is full now too.
        #expect { try Self.upload(third, of: SyncLargeValue(of: third), at: 0, count: 6000, to: server, as: "carol") } throws: { ($0 as? SyncError)?.httpStatus == 429 }
        // Unfinished uploads expire: after the sweep, the room is there again.
        server.replica.largeValues.sweep(now: Date().addingTimeInterval(601))
        #expect(try Self.upload(third, of: SyncLargeValue(of: third), at: 0, count: 6000, to: server, as: "carol") == 6000)
        #expect(try Self.upload(first, of: SyncLargeValue(of: first), at: 0, count: 8000, to: server, as: "alice") == 8000)
    }

    @Test func theFolderIsTheStoresOwnAndOnlyTrustedBytesAreUsed() throws {
        // By default beside the store's file, and closed to other users.
        let store = try TestStore(.file, SyncModels.types, ownedRows: .allEntities(except: SyncSchema.sharedModels))
        let server = try SyncServer(container: store.container)
        let folder = server.replica.largeValues.url
        #expect(folder.pathExtension == "sync-values")
        // Made when a value first needs it.
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        let upload = Self.bytes(500, seed: 12)
        #expect(try Self.upload(upload, of: SyncLargeValue(of: upload), at: 0, count: 100, to: server, as: "alice") == 100)
        #expect(folder.deletingLastPathComponent().standardizedFileURL == (try #require(store.url)).deletingLastPathComponent().standardizedFileURL)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o077 == 0)
        // On a database server (here: in memory), a new folder with a random name each time.
        let memory = try TestStore(.memory, SyncModels.types)
        let one = try SyncServer(container: memory.container).replica.largeValues.url, two = try SyncServer(container: memory.container).replica.largeValues.url
        #expect(one != two)

        // A folder another user owns, or a link, is refused.
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("sync-folders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let foreign = base.appendingPathComponent("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        if geteuid() == 0 {
            try FileManager.default.setAttributes([.ownerAccountID: 65534], ofItemAtPath: foreign.path)
            #expect(throws: SyncError.self) { try SyncServer(container: memory.container, largeValueFolder: foreign) }
        }
        let link = base.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: base)
        #expect(throws: SyncError.self) { try SyncServer(container: memory.container, largeValueFolder: link) }

        // A whole value put in the folder by another hand is hashed again before it is used:
        // bytes that are not the value's are thrown away.
        let photo = Self.bytes(2000, seed: 9)
        let value = SyncLargeValue(of: photo)
        let planted = try SyncServer(container: memory.container, largeValueFolder: base.appendingPathComponent("own"))
        let space = planted.replica.largeValues.space(for: nil)
        try FileManager.default.createDirectory(at: space.url, withIntermediateDirectories: true)
        try Self.bytes(2000, seed: 10).write(to: space.url.appendingPathComponent(value.sha256))
        #expect(space.file(value) == nil)
        #expect(!FileManager.default.fileExists(atPath: space.url.appendingPathComponent(value.sha256).path))
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aDownloadIsAnsweredOnlyForAnObjectThePrincipalReads(_ kind: StoreKind) async throws {
        let users = try SyncUsersTests.Users(kind)
        let alice = try users.device("alice")
        let context = users.context(alice)
        let photo = Self.bytes(5000, seed: 7)
        context.insert(Attachment(name: "private", photo: photo))
        try context.save()
        try await users.sync(alice)
        let server = users.server
        let object = try #require(try ModelContext(server.replica.container).fetch(FetchDescriptor<SyncedObject>(predicate: #Predicate { $0.entity == "Attachment" })).first)
        var request = SyncRequest(schema: server.replica.schemaVersion, node: "bob's device")
        request.chunk = SyncChunk(value: SyncLargeValue(of: photo), offset: 0, length: 5000, object: object.globalID, property: "photo")
        let body = try JSONEncoder().encode(request)
        let asBob = try JSONDecoder().decode(SyncReply.self, from: server.respond(to: body, as: SyncPrincipal(user: "bob")))
        #expect(asBob.chunk?.bytes == nil)
        let asAlice = try JSONDecoder().decode(SyncReply.self, from: server.respond(to: body, as: SyncPrincipal(user: "alice")))
        #expect(asAlice.chunk?.bytes == photo)
    }

    @Test(arguments: SyncTests.serverKinds.filter { $0 != .logged })
    func valuesFetchedOnDemandWaitOnTheServerUntilAskedFor(_ kind: StoreKind) async throws {
        let world = try World(kind, onDemand: true)
        let photo = Self.bytes(200_000, seed: 8)
        let a = world.context(0)
        a.insert(Attachment(name: "receipt", photo: photo, thumbnail: Self.bytes((1 << 20) + 1, seed: 9)))
        a.insert(Attachment(name: "other", photo: Self.bytes(1000, seed: 10)))
        try a.save()
        try await world.sync(0)

        // The objects come; their large values do not: the photo is empty, the thumbnail none.
        try await world.sync(1)
        #expect(world.transports[1].downloaded == 0)
        #expect(try world.attachments(world.devices[1].container) == ["other \(SyncSHA256.hex(of: Data()).prefix(12)) 0 -", "receipt \(SyncSHA256.hex(of: Data()).prefix(12)) 0 -"])
        let client = world.clients[1]
        #expect(try await client.awaitedLargeValues().count == 2)

        // An edit of another attribute there sends nothing of the values it lacks.
        let b = world.context(1)
        let receipt = try #require(try b.fetch(FetchDescriptor<Attachment>(predicate: #Predicate { $0.name == "receipt" })).first)
        receipt.name = "receipt (paid)"
        try b.save()
        try await world.sync(1)
        try await world.sync(0)
        #expect(try world.attachments(world.devices[0].container).contains("receipt (paid) \(SyncSHA256.hex(of: photo).prefix(12)) 200000 \(SyncSHA256.hex(of: Self.bytes((1 << 20) + 1, seed: 9)).prefix(12)) \((1 << 20) + 1)"))

        // Asked for, one object's values come, and only its.
        #expect(try await client.fetchLargeValues(of: [receipt.persistentModelID]) == 2)
        #expect(world.transports[1].downloaded == 200_000 + (1 << 20) + 1)
        let both = try world.attachments(world.devices[1].container)
        #expect(both.contains(try world.attachments(world.devices[0].container).first { $0.hasPrefix("receipt") } ?? "none"))
        #expect(try await client.awaitedLargeValues().count == 1)

        // A value set here while awaited is this device's edit: it replaces the awaited one everywhere.
        let other = try #require(try b.fetch(FetchDescriptor<Attachment>(predicate: #Predicate { $0.name == "other" })).first)
        other.photo = Self.bytes(3000, seed: 11)
        try b.save()
        try await world.sync(1)
        #expect(try await client.awaitedLargeValues().isEmpty)
        try await world.sync(0)
        #expect(try world.attachments(world.devices[0].container) == world.attachments(world.devices[1].container))
    }

    @Test(arguments: SyncTests.serverKinds.filter { $0 != .logged })
    func aValueTheServersOwnCodeSavesReachesADevice(_ kind: StoreKind) async throws {
        let world = try World(kind)
        let photo = Self.bytes(150_000, seed: 12)
        let server = ModelContext(world.server.container)
        server.insert(Attachment(name: "made on the server", photo: photo))
        try server.save()
        try await world.sync(0)
        #expect(world.transports[0].downloaded == 150_000)
        #expect(try world.attachments(world.devices[0].container) == world.attachments(world.server.container))
    }
}
