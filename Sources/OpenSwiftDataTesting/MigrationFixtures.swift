import Foundation
import OpenSwiftData

/// A folder of store files, one per released version of an app's models, each opened through the
/// app's migration plan in a temporary copy — the corpus of older stores Apple's advice asks for,
/// replayed on Linux and in CI, from XCTest or Swift Testing (failures are thrown errors).
///
/// ```swift
/// @Test func everyReleasedStoreOpens() throws {
///     let fixtures = try MigrationFixtures(folder: URL(fileURLWithPath: "Fixtures"))
///     try fixtures.replay(Schema(versionedSchema: AppSchemaV3.self), migrationPlan: AppPlan.self,
///                         expecting: [.keepsEveryModel(of: Expense.self)])
/// }
/// ```
///
/// Fixtures are the folder's `.store` and `.sqlite` files, oldest first by name (`release-2`
/// before `release-10`): this library's own files and files SwiftData or Core Data wrote on an
/// Apple platform alike (with their `.<name>_SUPPORT` folder of external values, if any). The
/// fixtures themselves are never opened, only copies of them. ``snapshot(of:named:into:)`` adds
/// one (the example command `inspect-store snapshot` calls it).
public struct MigrationFixtures {
    /// The folder.
    public let folder: URL
    /// The fixtures, oldest first.
    public let fixtures: [URL]

    /// The fixtures in `folder`; throws if it has none.
    public init(folder: URL) throws {
        self.folder = folder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        fixtures = names.filter { $0.hasSuffix(".store") || $0.hasSuffix(".sqlite") }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            .map { folder.appendingPathComponent($0) }
        guard !fixtures.isEmpty else {
            throw SwiftDataError(.loadIssueModelContainer, "\(folder.path) holds no store file (.store or .sqlite) to replay")
        }
    }

    /// Copies the store at `store` into `folder` as the fixture `<name>.store`, one consistent
    /// file (what its `-wal` holds included), with `<name>.json`, its ``FixtureManifest``.
    /// Returns the fixture's URL. The store is only read.
    ///
    /// ```swift
    /// try MigrationFixtures.snapshot(of: appSupport.appendingPathComponent("default.store"),
    ///                                named: "release-4", into: URL(fileURLWithPath: "Fixtures"))
    /// ```
    @discardableResult
    public static func snapshot(of store: URL, named name: String, into folder: URL) throws -> URL {
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw SwiftDataError(.configurationFileNameContainsInvalidCharacters, "a fixture's name must be a file name, without '/' or a leading '.': \(name)")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fixture = folder.appendingPathComponent("\(name).store")
        let snapshot = try StoreFileSnapshot.take(of: store, to: fixture)
        let manifest = FixtureManifest(layout: snapshot.layout, schemaVersion: snapshot.schemaVersion, rows: snapshot.rowCounts)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(to: folder.appendingPathComponent("\(name).json"))
        return fixture
    }

    /// The manifest beside a fixture, if it has one.
    public func manifest(of fixture: URL) -> FixtureManifest? {
        let url = fixture.deletingPathExtension().appendingPathExtension("json")
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(FixtureManifest.self, from: data)
    }

    /// Opens a copy of each fixture, oldest first, with `schema`'s models through `migrationPlan`
    /// (without one, as automatic migration does), then checks `expecting` and calls `check`
    /// with a context on the migrated copy. Returns what each replay ran; throws a
    /// ``FixtureReplayError`` for the first fixture that fails, naming the stage and, where the
    /// stage's `SchemaDiff` names it, the entity and property that broke.
    @discardableResult
    public func replay(_ schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, expecting: [FixtureExpectation] = [],
                       check: ((_ fixture: URL, _ context: ModelContext) throws -> Void)? = nil) throws -> [FixtureReplay] {
        try fixtures.map { try replay($0, schema: schema, migrationPlan: migrationPlan, expecting: expecting, check: check) }
    }

    private func replay(_ fixture: URL, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, expecting: [FixtureExpectation],
                        check: ((URL, ModelContext) throws -> Void)?) throws -> FixtureReplay {
        let name = fixture.lastPathComponent
        let manifest = manifest(of: fixture)
        let place = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-fixture-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: place, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: place) }
        let copy = place.appendingPathComponent(name)
        try FileManager.default.copyItem(at: fixture, to: copy)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: fixture.path + suffix) {
            try FileManager.default.copyItem(atPath: fixture.path + suffix, toPath: copy.path + suffix)
        }
        let support = "." + fixture.deletingPathExtension().lastPathComponent + "_SUPPORT"
        let supportFolder = fixture.deletingLastPathComponent().appendingPathComponent(support)
        if FileManager.default.fileExists(atPath: supportFolder.path) {
            try FileManager.default.copyItem(at: supportFolder, to: place.appendingPathComponent(support))
        }

        let stages = StageLog()
        let container: ModelContainer
        do {
            container = try MigrationProgress.observe({ progress in
                stages.note(progress)
            }, during: {
                try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [ModelConfiguration(url: copy)])
            })
        } catch {
            throw failure(name, error: error, stages: stages, manifest: manifest, schema: schema, plan: migrationPlan)
        }
        let context = ModelContext(container)
        var met: [String] = []
        for expectation in expecting {
            let problem: String?
            do {
                problem = try expectation.failure(context, manifest)
            } catch {
                problem = "\(expectation.name): \(error)"
            }
            if let problem {
                throw FixtureReplayError(fixture: name, stage: nil, entityName: nil, propertyName: nil, change: nil,
                                         message: "after \(stages.finished.isEmpty ? "opening" : stages.finished.joined(separator: "; ")): \(problem)")
            }
            met.append(expectation.name)
        }
        do {
            try check?(fixture, context)
        } catch {
            throw FixtureReplayError(fixture: name, stage: nil, entityName: nil, propertyName: nil, change: nil, message: "\(error)")
        }
        return FixtureReplay(fixture: name, fromVersion: manifest?.schemaVersion, stages: stages.finished, expectations: met)
    }

    /// The replay error for a migration that threw: the stage that was running (the one after the
    /// last that finished), and the change of that stage's diff the error names.
    private func failure(_ fixture: String, error: any Error, stages: StageLog, manifest: FixtureManifest?, schema: Schema,
                         plan: (any SchemaMigrationPlan.Type)?) -> FixtureReplayError {
        let message = "\(error)"
        var stage = stages.running
        var diff: SchemaDiff?
        if let plan {
            let steps = SchemaDiff.steps(of: plan)
            // Where the migration was: after the last stage that finished, else from the fixture's version.
            let reached = stages.finishedVersions.last ?? manifest?.schemaVersion
            diff = steps.first { $0.fromVersion.description == reached }
                ?? steps.first { step in step.changes.contains { message.contains(Self.name(of: $0)) } }
            if stage == nil, let diff { stage = "\(diff.fromVersion) → \(diff.toVersion)" }
        }
        // The change the message names: the most work first, so a rename does not hide a type change.
        let named = diff?.changes.sorted { $0.verdict > $1.verdict }.first { $0.propertyName != nil && message.contains(Self.name(of: $0)) }
            ?? diff?.changes.sorted { $0.verdict > $1.verdict }.first { message.contains(Self.name(of: $0)) }
        return FixtureReplayError(fixture: fixture, stage: stage, entityName: named?.entityName, propertyName: named?.propertyName,
                                  change: named.map { "\($0.kind.rawValue): \($0.verdict)" }, message: message)
    }

    private static func name(of change: SchemaDiff.Change) -> String {
        change.entityName + (change.propertyName.map { ".\($0)" } ?? "")
    }
}

/// The stages a migration reported, as they finish (`MigrationProgress`).
private final class StageLog: @unchecked Sendable {
    // Reports arrive on the opening thread, during `replay`; the lock is for Sendable's sake.
    private let lock = NSLock()
    private var done: [MigrationProgress] = []
    private var current: MigrationProgress?

    func note(_ progress: MigrationProgress) {
        // Steps between versions only (a search index built on opening reports progress too).
        guard progress.stageDescription.contains(" → ") else { return }
        lock.lock()
        defer { lock.unlock() }
        if progress.entityName == nil {
            done.append(progress)
            current = nil
        } else {
            current = progress
        }
    }

    /// The stages that finished, as `1.0.0 → 2.0.0, lightweight`.
    var finished: [String] {
        lock.lock()
        defer { lock.unlock() }
        return done.map(\.stageDescription)
    }

    /// The version each finished stage reached.
    var finishedVersions: [String] {
        finished.compactMap { description in
            description.components(separatedBy: " → ").dropFirst().first?.components(separatedBy: ",").first
        }
    }

    /// The stage copying rows when the migration stopped, if one was.
    var running: String? {
        lock.lock()
        defer { lock.unlock() }
        return current?.stageDescription
    }
}
