import Foundation

/// One fixture replayed: what it was and which stages brought it to the models' version.
public struct FixtureReplay: Sendable, CustomStringConvertible {
    /// The fixture's file name.
    public let fixture: String
    /// The schema version its manifest records, if it has one.
    public let fromVersion: String?
    /// The stages that ran, as `1.0.0 → 2.0.0, lightweight` (none for a fixture already at the
    /// models' version).
    public let stages: [String]
    /// The expectations it met.
    public let expectations: [String]

    public var description: String {
        "\(fixture)\(fromVersion.map { " (\($0))" } ?? ""): \(stages.isEmpty ? "no migration" : stages.joined(separator: "; "))"
            + (expectations.isEmpty ? "" : "; kept: \(expectations.joined(separator: ", "))")
    }
}
