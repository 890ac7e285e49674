import ArgumentParser
import Foundation
import OpenSwiftData
import OpenSwiftDataTesting

/// `inspect-store snapshot PATH --name release-4 --into Fixtures`: copies a store file — this
/// library's or one SwiftData wrote on an Apple platform — into a folder of migration fixtures as
/// one consistent file, with a manifest of its version and rows (`MigrationFixtures`).
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Copy a store file into a folder of migration fixtures, with a manifest of what it holds.")

    @Argument(help: "The store file to copy (it is only read).")
    var path: String

    @Option(name: .long, help: "The fixture's name, such as the release that wrote it (release-4).")
    var name: String

    @Option(name: .long, help: "The fixtures folder.")
    var into: String

    func run() throws {
        let fixture: URL
        do {
            fixture = try MigrationFixtures.snapshot(of: URL(fileURLWithPath: path), named: name, into: URL(fileURLWithPath: into))
        } catch let error as SwiftDataError {
            throw ValidationError(error.description)
        }
        let fixtures = try MigrationFixtures(folder: URL(fileURLWithPath: into))
        guard let manifest = fixtures.manifest(of: fixture) else { return }
        print("\(fixture.path): \(manifest.layout) layout\(manifest.schemaVersion.map { ", schema \($0)" } ?? "")")
        for (entity, rows) in manifest.rows.sorted(by: { $0.key < $1.key }) {
            print("  \(entity): \(rows) \(rows == 1 ? "row" : "rows")")
        }
    }
}
