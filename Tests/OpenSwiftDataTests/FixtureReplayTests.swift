import Foundation
import OpenSwiftDataTesting
import Testing
import StoreTestSupport
@testable import OpenSwiftData
import TestModels

/// `OpenSwiftDataTesting`: fixtures snapshotted from stores (their WAL included, the source only
/// read), replayed through a plan into copies, and failures that name the fixture, the stage, the
/// entity and the property — for this library's files and for Core Data's.
@Suite struct FixtureReplayTests {
    /// A folder with one fixture: a DiffV1 store holding one shop, taken while its WAL holds the rows.
    private func folderWithAVersionOneStore() throws -> (folder: URL, source: URL) {
        let source = TestStore.temporaryURL()
        let container = try ModelContainer(for: Schema(versionedSchema: DiffV1.self), configurations: [ModelConfiguration(url: source)])
        let context = ModelContext(container)
        context.insert(DiffV1.Shop(code: "first"))
        try context.save()
        let folder = source.deletingLastPathComponent().appendingPathComponent("fixtures-\(UUID().uuidString)")
        try MigrationFixtures.snapshot(of: source, named: "release-1", into: folder)
        return (folder, source)
    }

    @Test func aSnapshotIsOneFileWithAManifestAndLeavesTheSourceAsItWas() throws {
        let source = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: source) }
        let container = try ModelContainer(for: Schema(versionedSchema: DiffV1.self), configurations: [ModelConfiguration(url: source)])
        let context = ModelContext(container)
        for code in ["a", "b", "c"] { context.insert(DiffV1.Shop(code: code)) }
        context.insert(DiffV1.Legacy(x: 1))
        try context.save()
        #expect(FileManager.default.fileExists(atPath: source.path + "-wal"))
        let before = try Data(contentsOf: URL(fileURLWithPath: source.path + "-wal"))
        let folder = source.deletingLastPathComponent().appendingPathComponent("fixtures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }

        let fixture = try MigrationFixtures.snapshot(of: source, named: "release-1", into: folder)
        #expect(try Data(contentsOf: URL(fileURLWithPath: source.path + "-wal")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["release-1.json", "release-1.store"])
        let fixtures = try MigrationFixtures(folder: folder)
        #expect(fixtures.manifest(of: fixture) == FixtureManifest(layout: "openswiftdata", schemaVersion: "1.0.0", rows: ["Shop": 3, "Legacy": 1, "Keeper": 0, "Tag": 0]))
        // The copy alone holds the rows.
        let reopened = try ModelContainer(for: Schema(versionedSchema: DiffV1.self), configurations: [ModelConfiguration(url: fixture, allowsSave: false)])
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<DiffV1.Shop>()) == 3)
        // A name that is not a file name, and a fixture that exists, are refused.
        #expect(throws: SwiftDataError.self) { try MigrationFixtures.snapshot(of: source, named: "../x", into: folder) }
        #expect(throws: SwiftDataError.self) { try MigrationFixtures.snapshot(of: source, named: "release-1", into: folder) }
    }

    @Test func aBrokenPlanFailsNamingTheStageEntityAndProperty() throws {
        let (folder, source) = try folderWithAVersionOneStore()
        defer {
            TestStore.removeFiles(at: source)
            try? FileManager.default.removeItem(at: folder)
        }
        let fixture = folder.appendingPathComponent("release-1.store")
        let bytes = try Data(contentsOf: fixture)
        let error = try #require(throws: FixtureReplayError.self) {
            try MigrationFixtures(folder: folder).replay(Schema(versionedSchema: DiffV2.self), migrationPlan: DiffLightweightPlan.self)
        }
        #expect(error.fixture == "release-1.store")
        #expect(error.stage == "1.0.0 → 2.0.0")
        #expect(error.entityName == "Shop" && error.propertyName == "label", "\(error)")
        #expect(error.change == "type changed: needs a custom stage")
        #expect(error.description.hasPrefix("release-1.store: stage 1.0.0 → 2.0.0 failed on Shop.label (type changed: needs a custom stage):"), "\(error)")
        // The fixture itself was never opened.
        #expect(try Data(contentsOf: fixture) == bytes)
        #expect(!FileManager.default.fileExists(atPath: fixture.path + "-wal"))
    }

    @Test func aValueThatDoesNotSurviveFailsTheReplay() throws {
        let (folder, source) = try folderWithAVersionOneStore()
        defer {
            TestStore.removeFiles(at: source)
            try? FileManager.default.removeItem(at: folder)
        }
        let fixtures = try MigrationFixtures(folder: folder)
        let replays = try fixtures.replay(Schema(versionedSchema: DiffV1.self), expecting: [
            .keepsEveryModel(of: DiffV1.Shop.self), .models(DiffV1.Shop.self, where: #Predicate { $0.code == "first" }, count: 1),
        ])
        #expect(replays.map(\.expectations.count) == [2])
        let error = try #require(throws: FixtureReplayError.self) {
            try fixtures.replay(Schema(versionedSchema: DiffV1.self), expecting: [.models(DiffV1.Shop.self, where: #Predicate { $0.code == "second" })])
        }
        #expect(error.fixture == "release-1.store" && error.stage == nil)
        #expect(error.message.contains("expected some Shop models matching the predicate, found none"), "\(error)")
    }

    @Test(.enabled(if: ResourcesManager.fixture != nil, ResourcesManager.skipReason))
    func anAppleStoreIsAFixtureToo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apple-fixtures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let apple = try #require(ResourcesManager.fixture)
        try MigrationFixtures.snapshot(of: apple, named: "ios-1.0", into: folder)
        let fixtures = try MigrationFixtures(folder: folder)
        #expect(fixtures.manifest(of: fixtures.fixtures[0])?.layout == "coredata")
        #expect(fixtures.manifest(of: fixtures.fixtures[0])?.rows["Item"] == 4)
        // With the models that wrote it, it opens; its items are all there.
        let replays = try fixtures.replay(Schema(ResourcesManager.types), expecting: [.keepsEveryModel(of: ResourcesManager.Item.self)])
        #expect(replays[0].stages.isEmpty)
        // With models that declare a name as a number, the replay says which property.
        let error = try #require(throws: FixtureReplayError.self) {
            try fixtures.replay(Schema([ResourcesManager.WrongType.Item.self, ResourcesManager.Trimmed.Component.self, ResourcesManager.Trimmed.CraftingRecipe.self]))
        }
        #expect(error.fixture == "ios-1.0.store")
        #expect(error.message.contains("Item.name"), "\(error)")
    }
}
