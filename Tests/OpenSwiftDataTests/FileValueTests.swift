import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Byte values written from a file a piece at a time (sync hands received large values to the
/// store this way, `ModelContext.setStoredValue(fromFileAt:of:_:)`), and saved values written to a
/// file a piece at a time (`ModelContext.writeSavedBytes`): what reads back is the file's bytes,
/// in every store; a value set since is the one saved.
@Suite struct FileValueTests {
    /// The scans of the stored-bytes tests: an `.externalStorage` image and an optional preview.
    typealias Scan = StoredBytesTests.Scan

    /// A file of `count` bytes that are not all alike.
    static func file(_ count: Int, seed: UInt8) throws -> (url: URL, bytes: Data) {
        let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) ^ seed })
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-tests", isDirectory: true)
            .appendingPathComponent("\(UUID().uuidString).bin")
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
        return (url, bytes)
    }

    static func scan(named name: String, in container: ModelContainer) throws -> Scan? {
        try ModelContext(container).fetch(FetchDescriptor<Scan>(predicate: #Predicate { $0.name == name })).first
    }

    @Test(arguments: StoreKind.allCases)
    func valuesSetFromFilesReadBackInAFreshContainer(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Scan.self])
        let big = try Self.file(2_500_000, seed: 1), small = try Self.file(70_000, seed: 2), other = try Self.file(1_200_000, seed: 3)
        defer { for file in [big, small, other] { try? FileManager.default.removeItem(at: file.url) } }
        let context = ModelContext(store.container)
        let stored = Scan(name: "stored", image: Data())
        context.insert(stored)
        try context.save()
        // A new model and a stored one, each given values from files.
        let new = Scan(name: "new", image: Data())
        context.insert(new)
        try context.setStoredValue(fromFileAt: big.url, of: new, "image")
        try context.setStoredValue(fromFileAt: small.url, of: new, "preview")
        try context.setStoredValue(fromFileAt: other.url, of: stored, "image")
        #expect(new.image == big.bytes)
        try context.save()

        let reopened = try store.reopen([Scan.self])
        let readNew = try #require(try Self.scan(named: "new", in: reopened))
        #expect(readNew.image == big.bytes)
        #expect(readNew.preview == small.bytes)
        #expect(try Self.scan(named: "stored", in: reopened)?.image == other.bytes)
        // Predicates see the value, and parts of it read back as they are.
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Scan>(predicate: #Predicate { $0.preview != nil })) == 1)
        let part = try #require(try ModelContext(reopened).storedBytes(of: readNew.persistentModelID, "image", offset: 1_000_000, length: 4096))
        #expect(part.total == 2_500_000)
        #expect(part.bytes == big.bytes.subdata(in: 1_000_000..<1_004_096))

        // Replaced by another file's bytes, then by a value set in memory; then gone with its row.
        try context.setStoredValue(fromFileAt: small.url, of: stored, "image")
        try context.save()
        #expect(try Self.scan(named: "stored", in: store.reopen([Scan.self]))?.image == small.bytes)
        stored.image = Data([7, 7, 7])
        try context.save()
        #expect(try Self.scan(named: "stored", in: store.reopen([Scan.self]))?.image == Data([7, 7, 7]))
        context.delete(new)
        try context.save()
        #expect(try Self.scan(named: "new", in: store.reopen([Scan.self])) == nil)
    }

    @Test(arguments: StoreKind.allCases)
    func aValueSetAfterTheFileIsTheOneSaved(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Scan.self])
        let big = try Self.file(1_500_000, seed: 4)
        defer { try? FileManager.default.removeItem(at: big.url) }
        let context = ModelContext(store.container)
        let scan = Scan(name: "changed", image: Data())
        context.insert(scan)
        try context.setStoredValue(fromFileAt: big.url, of: scan, "image")
        scan.image = Data("typed in".utf8)
        try context.save()
        #expect(try Self.scan(named: "changed", in: store.reopen([Scan.self]))?.image == Data("typed in".utf8))
    }

    @Test(arguments: StoreKind.allCases)
    func savedValuesWriteToFilesAPieceAtATime(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Scan.self])
        let big = try Self.file(3_300_000, seed: 5)
        let out = big.url.appendingPathExtension("out")
        defer { for url in [big.url, out] { try? FileManager.default.removeItem(at: url) } }
        let context = ModelContext(store.container)
        let scan = Scan(name: "kept", image: big.bytes)
        // Not saved yet: nothing to write.
        context.insert(scan)
        #expect(throws: SwiftDataError.self) { try context.writeSavedBytes(of: scan, \.image, to: out) }
        try context.save()

        let fresh = ModelContext(try store.reopen([Scan.self]))
        let read = try #require(try fresh.fetch(FetchDescriptor<Scan>()).first)
        #expect(try fresh.writeSavedBytes(of: read, \.image, to: out) == 3_300_000)
        #expect(try Data(contentsOf: out) == big.bytes)
        // An optional attribute holding nil writes an empty file.
        #expect(try fresh.writeSavedBytes(of: read, \.preview, to: out) == 0)
        #expect(try Data(contentsOf: out).isEmpty)
        // A file that cannot be made is refused.
        #expect(throws: (any Error).self) { try fresh.writeSavedBytes(of: read, \.image, to: URL(fileURLWithPath: "/nonexistent-folder/out.bin")) }
    }

    /// A migration that drops an attribute holding a value written from a file, and rebuilds the
    /// table for another change, keeps the other values; a custom stage reads them.
    @Test func migrationsKeepValuesWrittenFromFiles() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        let big = try Self.file(1_800_000, seed: 6), small = try Self.file(90_000, seed: 7)
        defer { for file in [big, small] { try? FileManager.default.removeItem(at: file.url) } }
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: PhotosV1.self), configurations: [ModelConfiguration(url: url)])
            let context = ModelContext(container)
            let photo = PhotosV1.Photo(name: "dune", image: Data(), thumbnail: nil)
            context.insert(photo)
            try context.setStoredValue(fromFileAt: big.url, of: photo, "image")
            try context.setStoredValue(fromFileAt: small.url, of: photo, "thumbnail")
            try context.save()
        }
        let container = try ModelContainer(for: Schema(versionedSchema: PhotosV3.self), migrationPlan: PhotosPlan.self, configurations: [ModelConfiguration(url: url)])
        let photo = try #require(try ModelContext(container).fetch(FetchDescriptor<PhotosV3.Photo>()).first)
        #expect(photo.image == big.bytes)
        #expect(photo.title == "dune")
        #expect(PhotosPlan.sizesSeenByTheStage.withLock { $0 } == [1_800_000])
        // The dropped attribute's value left with it.
        let store = try #require(container.stores[0] as? SQLStore)
        #expect(try SQLShapeTests.valuesKeptApart(in: store) == 1)
    }
}

enum PhotosV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Photo.self] }

    @Model final class Photo {
        var name: String
        @Attribute(.externalStorage) var image: Data
        var thumbnail: Data?
        init(name: String, image: Data, thumbnail: Data?) {
            self.name = name
            self.image = image
            self.thumbnail = thumbnail
        }
    }
}

enum PhotosV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Photo.self] }

    @Model final class Photo {
        var name: String
        @Attribute(.externalStorage) var image: Data
        init(name: String, image: Data) {
            self.name = name
            self.image = image
        }
    }
}

enum PhotosV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Photo.self] }

    @Model final class Photo {
        @Attribute(originalName: "name") var title: String
        @Attribute(.externalStorage) var image: Data
        var taken: Date = Date.distantPast
        init(title: String, image: Data) {
            self.title = title
            self.image = image
        }
    }
}

enum PhotosPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PhotosV1.self, PhotosV2.self, PhotosV3.self] }
    static var stages: [MigrationStage] {
        [.lightweight(fromVersion: PhotosV1.self, toVersion: PhotosV2.self),
         .custom(fromVersion: PhotosV2.self, toVersion: PhotosV3.self, willMigrate: { context in
             let sizes = try context.fetch(FetchDescriptor<PhotosV2.Photo>()).map(\.image.count)
             sizesSeenByTheStage.withLock { $0 = sizes }
         }, didMigrate: nil)]
    }
    static let sizesSeenByTheStage = Locked<[Int]>([])
}

