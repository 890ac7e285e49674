import Foundation

/// Running a custom stage's closures: a context over the store being migrated, on the models of
/// one version, its unsaved changes saved when the closure returns. A store's migration calls this
/// with a store of its own on the migration's transaction; it never makes the context itself.
extension MigrationStage {
    /// Which closure of a custom stage.
    enum Moment {
        case willMigrate, didMigrate
    }

    /// Whether the stage has a closure to run at `moment`.
    func hasClosure(_ moment: Moment) -> Bool {
        closure(moment) != nil
    }

    private func closure(_ moment: Moment) -> (@Sendable (ModelContext) throws -> Void)? {
        guard case .custom(_, _, let willMigrate, let didMigrate) = self else { return nil }
        return moment == .willMigrate ? willMigrate : didMigrate
    }

    /// Runs the closure for `moment`, if there is one, with a context on `store`, which holds the
    /// models of `layouts` as of `version`; `configuration` is what that context's container reports.
    func runClosure(_ moment: Moment, on store: any RowStore, layouts: [ModelLayout], version: Schema.Version, configuration: ModelConfiguration?) throws {
        guard let body = closure(moment) else { return }
        let container = ModelContainer(migrationStage: Schema(layouts.map(\.modelType), version: version), store: store, configuration: configuration)
        let context = ModelContext(container)
        try body(context)
        if context.hasChanges { try context.save() }
    }
}
