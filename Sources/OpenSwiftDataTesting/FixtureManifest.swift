import Foundation

/// What a fixture held when it was taken (``MigrationFixtures/snapshot(of:named:into:)``), kept
/// beside it as `<name>.json`: whose layout, the schema version it records, and its rows per
/// entity — so that a replay can check models survived (``FixtureExpectation/keepsEveryModel(of:)``).
public struct FixtureManifest: Codable, Sendable, Hashable {
    /// `"openswiftdata"` for this library's files, `"coredata"` for files SwiftData or Core Data
    /// wrote on an Apple platform.
    public var layout: String
    /// The schema version an OpenSwiftData file records (`nil` for Core Data's files).
    public var schemaVersion: String?
    /// The rows of each entity when the fixture was taken.
    public var rows: [String: Int]

    /// A manifest as given.
    public init(layout: String, schemaVersion: String?, rows: [String: Int]) {
        self.layout = layout
        self.schemaVersion = schemaVersion
        self.rows = rows
    }
}
