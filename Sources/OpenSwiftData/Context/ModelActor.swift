import Foundation

/// An executor that owns a model context: code running on it may use the context.
public protocol ModelExecutor: Executor {
    /// The context jobs on this executor use.
    var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time, so it can isolate an actor.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// Runs a model actor's jobs one at a time on a private dispatch queue, and owns the actor's
/// context.
///
/// `@unchecked Sendable`: the context is only used by jobs this executor runs, and it runs them
/// serially on its own queue, so the context is never used by two threads at once.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    /// The context of the actor this executor isolates.
    public let modelContext: ModelContext
    private let queue = DispatchQueue(label: "OpenSwiftData.DefaultSerialModelExecutor")

    /// Creates an executor that owns `modelContext`.
    ///
    /// ```swift
    /// let executor = DefaultSerialModelExecutor(modelContext: ModelContext(container))
    /// ```
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
    }

    /// Runs `job` after the jobs already enqueued.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }

    /// This executor as an actor's serial executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor with its own model context, for work off the main actor: imports, syncing, batch
/// processing. Write `@ModelActor` on an actor to conform.
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importTrips(_ names: [String]) throws {
///         for name in names { modelContext.insert(Trip(name: name)) }
///         try modelContext.save()
///     }
/// }
///
/// let importer = Importer(modelContainer: container)
/// try await importer.importTrips(["Kyoto", "Hanoi"])
/// ```
///
/// Models stay on the actor; pass ``PersistentIdentifier``s in and out, and look them up with
/// `self[id, as: Trip.self]`.
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that isolates the actor and owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its model executor, so its code may use ``modelContext``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        if let serial = modelExecutor as? any SerialExecutor {
            return serial.asUnownedSerialExecutor()
        }
        Log.general.error("\(Self.self)'s modelExecutor is not a SerialExecutor; the actor runs on a private serial executor instead")
        return FallbackExecutor.shared.asUnownedSerialExecutor()
    }

    /// The actor's context.
    public var modelContext: ModelContext {
        modelExecutor.modelContext
    }

    /// The model with an identifier in this actor's context, or `nil` if it does not exist.
    ///
    /// ```swift
    /// if let trip = self[tripID, as: Trip.self] { trip.name = "Kyoto" }
    /// ```
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        if let registered: T = modelContext.registeredModel(for: id) { return registered }
        guard let layout = modelContext.container.schema.layout(named: id.entityName),
              let primaryKey = try? modelContext.storedKey(of: id, layout: layout) else { return nil }
        return (try? modelContext.existingModel(layout: layout, primaryKey: primaryKey)) as? T
    }
}

/// Serialises an actor whose model executor is not serial. `@unchecked Sendable`: it holds only a
/// serial dispatch queue.
private final class FallbackExecutor: SerialExecutor, @unchecked Sendable {
    static let shared = FallbackExecutor()
    private let queue = DispatchQueue(label: "OpenSwiftData.FallbackExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
