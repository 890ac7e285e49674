import Foundation

/// A fixture that did not open through the plan, or lost what was expected of it: which fixture,
/// which stage, and — where the diff of that stage names it — which entity and property.
///
/// ```
/// release-2.store: stage 2.0.0 → 3.0.0 failed on Category.name (unique constraint added: depends on the data — …):
/// SwiftDataError.constraintViolation: …
/// ```
public struct FixtureReplayError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The fixture's file name.
    public let fixture: String
    /// The stage that failed, as `2.0.0 → 3.0.0` (with its kind where it started), if a
    /// migration was running.
    public let stage: String?
    /// The entity whose change broke the stage (or whose expectation failed), where known.
    public let entityName: String?
    /// The property whose change broke the stage, where known.
    public let propertyName: String?
    /// The change the stage's `SchemaDiff` lists for that entity and property.
    public let change: String?
    /// What went wrong: the migration's error, or the expectation that failed.
    public let message: String

    public var description: String {
        var text = fixture
        if let stage { text += ": stage \(stage) failed" }
        if let entityName { text += " on \(entityName)\(propertyName.map { ".\($0)" } ?? "")" }
        if let change { text += " (\(change))" }
        return text + ":\n" + message
    }

    public var errorDescription: String? { description }
}
