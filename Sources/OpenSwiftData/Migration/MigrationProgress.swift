import Foundation

/// How far a schema migration has come, reported while a container opens a store that needs one.
///
/// A migration runs inside `ModelContainer`'s initializer. To watch it, open the container inside
/// ``observe(_:during:)``; the handler is called on the opening thread as each table is copied
/// (every 100,000 rows at most) and as each stage ends. The same events go to the `OpenSwiftData`
/// swift-log logger: each stage's end at `info` level, the rows copied at `debug`.
///
/// ```swift
/// let container = try MigrationProgress.observe({ progress in
///     print(progress)   // "Expenses: stage 1 of 2 (1.0.0 → 2.0.0, lightweight), Expense 200000 of 1000000 rows"
/// }, during: {
///     try ModelContainer(for: Schema(versionedSchema: ExpensesV2.self), migrationPlan: ExpensesPlan.self)
/// })
/// ```
public struct MigrationProgress: Sendable, CustomStringConvertible {
    /// The name of the configuration whose store is migrating.
    public let storeName: String
    /// The stage running, from 1 to ``stageCount``. An automatic migration without a plan is one stage.
    public let stage: Int
    /// How many stages this migration runs.
    public let stageCount: Int
    /// The stage, as `from → to, kind` (for example `1.0.0 → 2.0.0, lightweight`).
    public let stageDescription: String
    /// The entity whose rows are being copied; `nil` when a stage has finished.
    public let entityName: String?
    /// How many of the entity's rows have been copied.
    public let completedRows: Int
    /// How many rows the entity has.
    public let totalRows: Int

    /// The fraction of the current entity's rows copied, from 0 to 1.
    public var fractionCompleted: Double {
        totalRows == 0 ? 1 : Double(completedRows) / Double(totalRows)
    }

    public var description: String {
        let position = "\(storeName): stage \(stage) of \(stageCount) (\(stageDescription))"
        guard let entityName else { return position + " done" }
        return position + ", \(entityName) \(completedRows) of \(totalRows) rows"
    }

    @TaskLocal static var observer: (@Sendable (MigrationProgress) -> Void)?

    /// Runs `body` (typically opening a `ModelContainer`) and calls `handler` with the progress of
    /// every migration it runs.
    public static func observe<Result>(
        _ handler: @escaping @Sendable (MigrationProgress) -> Void, during body: () throws -> Result
    ) rethrows -> Result {
        try $observer.withValue(handler, operation: body)
    }
}

/// Tells the observer and the log how one stage of a migration is going.
struct MigrationReporter {
    let storeName: String
    let stage: Int
    let stageCount: Int
    let stageDescription: String

    func rows(of entityName: String, completed: Int, total: Int) {
        send(MigrationProgress(
            storeName: storeName, stage: stage, stageCount: stageCount, stageDescription: stageDescription,
            entityName: entityName, completedRows: completed, totalRows: total))
    }

    func finished() {
        send(MigrationProgress(
            storeName: storeName, stage: stage, stageCount: stageCount, stageDescription: stageDescription,
            entityName: nil, completedRows: 0, totalRows: 0))
    }

    private func send(_ progress: MigrationProgress) {
        if progress.entityName == nil {
            Log.general.info("migration: \(progress)")
            Telemetry.migrationStage(store: storeName)
        } else {
            Log.general.debug("migration: \(progress)")
        }
        MigrationProgress.observer?(progress)
    }
}
