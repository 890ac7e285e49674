import Foundation

extension ModelContext {
    /// Posted before a context saves; the notification's object is the context. Observers may
    /// still change models: those changes are saved too.
    public static let willSave = Notification.Name("OpenSwiftData.ModelContext.willSave")

    /// Posted after a context's save is committed; the notification's object is the context, and
    /// its `userInfo` lists the identifiers saved, under ``NotificationKey`` raw values.
    ///
    /// ```swift
    /// let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
    ///     let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
    /// }
    /// ```
    public static let didSave = Notification.Name("OpenSwiftData.ModelContext.didSave")

    /// Keys of a ``didSave`` notification's `userInfo`.
    public enum NotificationKey: String, Sendable {
        /// Not used by this store (there is no query generation).
        case queryGeneration
        /// Not used by this store.
        case invalidatedAllIdentifiers
        /// `[PersistentIdentifier]`: models inserted by the save, with their permanent identifiers.
        case insertedIdentifiers
        /// `[PersistentIdentifier]`: stored models the save updated.
        case updatedIdentifiers
        /// `[PersistentIdentifier]`: models the save deleted (cascaded deletes included).
        case deletedIdentifiers
    }

    /// Runs `block` and saves what it changed, all or nothing: if `block` (or the save) throws,
    /// its changes are rolled back and the error is rethrown.
    ///
    /// Changes the context already had are saved first, so a failure discards only the block's.
    ///
    /// ```swift
    /// try context.transaction {
    ///     let trip = Trip(name: "Kyoto")
    ///     context.insert(trip)
    ///     guard trip.isValid else { throw ImportError.invalid }
    /// }
    /// ```
    public func transaction(block: () throws -> Void) throws {
        try save()
        do {
            try block()
            try save()
        } catch {
            rollback()
            throw error
        }
    }

    /// Ends the current group of undoable changes, so the next `undo()` reverts only what follows.
    /// Relationship inverses and change tracking are applied as changes happen, so there is
    /// nothing else pending to process.
    public func processPendingChanges() {
        undoManager?.closeImplicitGroup()
    }

    /// Runs `body` without recording undo actions (for changes the context makes itself).
    func withUndoRegistrationDisabled<R>(_ body: () -> R) -> R {
        guard let undoManager, undoManager.isUndoRegistrationEnabled else { return body() }
        undoManager.disableUndoRegistration()
        defer { undoManager.enableUndoRegistration() }
        return body()
    }
}
