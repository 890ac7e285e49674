import Foundation

extension ModelContext {
    /// Posted when an autosave fails; the notification's object is the context and
    /// `userInfo["error"]` the error. The changes stay in the context, to be saved (or rolled
    /// back) later. (An OpenSwiftData addition: SwiftData reports autosave failures only in logs.)
    public static let autosaveFailed = Notification.Name("OpenSwiftData.ModelContext.autosaveFailed")

    /// Called when models change: schedules a save of the main context if autosave is on.
    ///
    /// The save runs on the main actor right after the code making the changes yields (the end of
    /// the current main-actor job), so changes made together are saved together; if a save is in
    /// progress then, it runs after it. Contexts other than `mainContext` save only when asked.
    func scheduleAutosave() {
        guard autosaveEnabled, isMainContext, !autosaveScheduled else { return }
        autosaveScheduled = true
        let reference = MainContextReference(context: self)
        Task { @MainActor in
            reference.context?.performAutosave()
        }
    }

    func performAutosave() {
        autosaveScheduled = false
        guard autosaveEnabled, hasChanges else { return }
        if isSaving {
            scheduleAutosave()
            return
        }
        do {
            try save()
        } catch {
            Log.general.error("autosave of the main context failed: \(error)")
            NotificationCenter.default.post(name: ModelContext.autosaveFailed, object: self, userInfo: ["error": error])
        }
    }
}

/// Carries the main context into its autosave task. `@unchecked Sendable`: the main context is only
/// used on the main actor, and the task that reads the reference runs on the main actor.
struct MainContextReference: @unchecked Sendable {
    weak var context: ModelContext?
}

/// Saves main contexts with autosave enabled at a normal exit (when `exit` runs on the main
/// thread), for applications that ask for it with ``ModelContainer/saveMainContextAtExit()``.
/// Nothing here touches signals: the application owns them (see that method).
enum ExitAutosave {
    private static let contexts = Locked<[MainContextReference]>([])
    private static let installed = Locked(false)

    static func register(_ context: ModelContext) {
        contexts.withLock { list in
            list.removeAll { $0.context == nil }
            if !list.contains(where: { $0.context === context }) { list.append(MainContextReference(context: context)) }
        }
        let first = installed.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        atexit {
            guard Thread.isMainThread else { return }
            MainActor.assumeIsolated { ExitAutosave.saveAll() }
        }
    }

    @MainActor
    static func saveAll() {
        for reference in contexts.withLock({ $0 }) {
            guard let context = reference.context, context.autosaveEnabled, context.hasChanges, !context.isSaving else { continue }
            context.performAutosave()
        }
    }
}
