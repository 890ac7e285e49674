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

/// Saves main contexts with autosave enabled at a normal exit (`exit` on the main actor, or the
/// end of `main`, async or not), then closes their containers, for applications that ask for it
/// with ``ModelContainer/saveMainContextAtExit()``.
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
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
        atexit {
            // On the main actor: the main thread, or the thread draining the main queue after the
            // main thread left (an async `main` on Linux ends in `dispatch_main`, and its last job,
            // which calls `exit`, runs there).
            if Thread.isMainThread || DispatchQueue.getSpecific(key: ExitAutosave.mainQueueKey) == true {
                ExitAutosave.saveAll()
                return
            }
            // `exit` on another thread while the main queue is served: the save runs there, and
            // the exit waits for it a bounded time (the main actor may be busy for good).
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.main.async {
                ExitAutosave.saveAll()
                done.signal()
            }
            if done.wait(timeout: .now() + ExitAutosave.mainThreadWait) == .timedOut {
                Log.general.error("the main context was not saved at exit: the main actor did not answer within \(Int(ExitAutosave.mainThreadWait)) s")
            }
        }
    }

    /// Marks the main queue, so an exit running on it is known to be on the main actor.
    private static let mainQueueKey = DispatchSpecificKey<Bool>()

    /// How long an exit off the main thread waits for the save on it, in seconds.
    static let mainThreadWait: Double = 10

    /// Saves and closes each registered main context; called on the main actor only (above).
    static func saveAll() {
        for reference in contexts.withLock({ $0 }) {
            guard let context = reference.context else { continue }
            if context.autosaveEnabled, context.hasChanges, !context.isSaving { context.performAutosave() }
            context.container.close()
        }
    }
}
