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

/// Saves main contexts with autosave enabled when the process ends: at a normal exit (when it
/// happens on the main thread) and on SIGINT or SIGTERM, after which the process exits with the
/// signal's conventional status. Installed when a container's `mainContext` is first used.
enum ExitAutosave {
    private static let contexts = Locked<[MainContextReference]>([])
    private static let installed = Locked(false)
    private static let signalQueue = DispatchQueue(label: "OpenSwiftData.exit-signals")
    /// Keeps the signal sources alive. `nonisolated(unsafe)` is sound: it is only appended to by the
    /// one `register` call that wins `installed`, and never read.
    nonisolated(unsafe) private static var signalSources: [any DispatchSourceSignal] = []

    static func register(_ context: ModelContext) {
        contexts.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(MainContextReference(context: context))
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
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: signalQueue)
            source.setEventHandler {
                // Save on the main actor, but do not wait forever if the main thread is busy.
                let done = DispatchSemaphore(value: 0)
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { ExitAutosave.saveAll() }
                    done.signal()
                }
                _ = done.wait(timeout: .now() + 2)
                _exit(128 + signalNumber)
            }
            source.resume()
            signalSources.append(source)
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
