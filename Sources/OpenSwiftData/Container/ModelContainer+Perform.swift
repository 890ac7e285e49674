import Foundation

/// Using a container from async server code without blocking Swift's cooperative threads.
extension ModelContainer {
    /// Runs `body` with a new ``ModelContext`` on a thread the container keeps for blocking work,
    /// and returns what it returns — without holding one of Swift's cooperative threads while the
    /// store answers.
    ///
    /// A `ModelContext`'s API is synchronous, as SwiftData's: a fetch or save on PostgreSQL waits
    /// for the server, and on SQLite for the disk or another writer. Called from a request handler
    /// (Hummingbird, Vapor) that wait would take one of the few threads every task of the process
    /// shares. `perform` runs the work on threads of the container's own (up to
    /// ``maximumPerformThreads``; calls beyond wait their turn) and suspends the caller meanwhile:
    ///
    /// ```swift
    /// router.post("orders") { request, context in
    ///     let order = try await request.decode(as: OrderInput.self, context: context)
    ///     let number = try await container.perform { context in
    ///         let stored = Order(number: order.number, total: order.total)
    ///         context.insert(stored)
    ///         try context.save()
    ///         return stored.number          // a Sendable value, never a model
    ///     }
    ///     return number
    /// }
    /// ```
    ///
    /// The context is the job's alone and goes away with it, with every model it held — also
    /// models that reference each other through a relationship and its inverse, which a context
    /// of your own keeps alive as long as any of them is: return values (or
    /// `persistentModelID`s), not models; unsaved changes are dropped. A job whose calling task
    /// is cancelled before a thread takes it is dropped (the call throws `CancellationError`: a
    /// request whose client went away costs nothing); once started it runs to its end. At most
    /// ``maximumPerformQueue`` jobs wait for a thread; beyond that the call throws
    /// ``SwiftDataError/busy`` at once, for a server to answer 503. A `@ModelActor` suits work
    /// that keeps state between calls; its methods run on the cooperative threads.
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (ModelContext) throws -> Result) async throws -> Result {
        try await perform(owner: nil, body)
    }

    /// Runs `body` as ``perform(_:)`` does, with a context made for `owner`: in a store that
    /// keeps owners (``OwnedRows``) it reads and writes only that owner's rows — and reads the
    /// rows of the owners in `alsoReading` too, writes those of `alsoWriting`, and with
    /// `includingGrants` those the store's grants open to `owner`
    /// (``ModelContext/init(_:owner:alsoReading:alsoWriting:includingGrants:)``).
    ///
    /// ```swift
    /// let mine = try await container.perform(owner: user.id) { context in
    ///     try context.fetch(FetchDescriptor<Expense>()).map(ExpenseJSON.init)
    /// }
    /// ```
    public func perform<Result: Sendable>(owner: String?, alsoReading: [String] = [], alsoWriting: [String] = [], includingGrants: Bool = false,
                                          _ body: @escaping @Sendable (ModelContext) throws -> Result) async throws -> Result {
        try await workThreads.run { [self] in
            let context = owner.map { ModelContext(self, owner: $0, alsoReading: alsoReading, alsoWriting: alsoWriting, includingGrants: includingGrants) } ?? ModelContext(self)
            // The job's models go with it, even those that reference each other.
            defer { context.releaseModels() }
            return try body(context)
        }
    }

    /// The most threads ``perform(_:)`` runs work on at once: 8 (as many as a PostgreSQL store's
    /// connections by default) unless set. More calls at once wait for a thread.
    public var maximumPerformThreads: Int {
        get { workThreads.limit }
        set { workThreads.limit = newValue }
    }

    /// The most ``perform(_:)`` calls waiting for a thread: 1,000 unless set. A call beyond it
    /// throws ``SwiftDataError/busy`` without waiting.
    ///
    /// ```swift
    /// container.maximumPerformQueue = 200   // a server answers 503 past 200 waiting requests
    /// ```
    public var maximumPerformQueue: Int {
        get { workThreads.queueLimit }
        set { workThreads.queueLimit = newValue }
    }
}
