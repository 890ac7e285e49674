import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// `ModelContainer.perform`: context work from async code on threads of the container's own, so
/// blocking store calls never hold Swift's cooperative threads.
@Suite struct ContainerPerformTests {
    @Test(arguments: StoreKind.allCases)
    func workRunsWithAContextOfItsOwnAndReturnsValues(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let container = store.container
        let id = try await container.perform { context in
            let expense = Expense(amount: 12.5, note: "lunch")
            context.insert(expense)
            try context.save()
            return expense.persistentModelID
        }
        let note = try await container.perform { context in (context.model(for: id) as? Expense)?.note }
        #expect(note == "lunch")
        await #expect(throws: SwiftDataError.self) {
            try await container.perform { context in
                context.insert(Expense(amount: 1))
                context.insert(Expense(amount: 2))
                throw SwiftDataError(.modelValidationFailure, "refused by the job")
            }
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 1)
    }

    /// More jobs than the machine has cores each block until all of them are running: only
    /// threads that may block (not the cooperative pool's one per core) can get there.
    @Test func blockingJobsRunTogetherUpToTheLimit() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let container = store.container
        let jobs = ProcessInfo.processInfo.activeProcessorCount + 4
        container.maximumPerformThreads = jobs
        let running = Locked(0)
        let allRunning = DispatchSemaphore(value: 0)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<jobs {
                group.addTask {
                    try await container.perform { _ in
                        if running.withLock({ $0 += 1; return $0 }) == jobs {
                            for _ in 0..<jobs { allRunning.signal() }
                        }
                        return allRunning.wait(timeout: .now() + 30) == .success
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: jobs))
    }

    @Test func noMoreJobsRunAtOnceThanTheLimit() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let container = store.container
        container.maximumPerformThreads = 2
        let counts = Locked((now: 0, most: 0))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await container.perform { context in
                        counts.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                        _ = try context.fetchCount(FetchDescriptor<Expense>())
                        counts.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(counts.withLock { $0.most } <= 2)
        #expect(container.maximumPerformThreads == 2)
    }
}

extension ContainerPerformTests {
    /// Weak references to models, filled inside a job, read after it.
    final class Watched: @unchecked Sendable {
        private let lock = NSLock()
        private var references: [() -> AnyObject?] = []
        func watch(_ model: AnyObject) { lock.withLock { references.append { [weak model] in model } } }
        var alive: Int { lock.withLock { references.filter { $0() != nil }.count } }
        var count: Int { lock.withLock { references.count } }
    }

    /// A job that reads both sides of a relationship (a category's expenses, and each expense's
    /// category) builds a graph of models referencing each other; it goes away with the job.
    @Test(arguments: StoreKind.allCases)
    func aJobsModelsGoAwayWithIt(_ kind: StoreKind) async throws {
        let store = try TestStore(kind, [Expense.self])
        let setup = store.context()
        let food = Category(name: "Food")
        setup.insert(food)
        for amount in 1...50 { setup.insert(Expense(amount: Double(amount), category: food)) }
        try setup.save()
        let watched = Watched()
        let total = try await store.container.perform { context in
            let category = try context.fetch(FetchDescriptor<Category>())[0]
            watched.watch(category)
            var total = 0.0
            for expense in category.expenses where expense.category === category {
                watched.watch(expense)
                total += expense.amount
            }
            category.expenses[0].note = "unsaved"  // a change the job drops
            return total
        }
        #expect(total == 1275)
        #expect(watched.count == 51)
        #expect(watched.alive == 0)
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == "unsaved" })) == 0)
    }
}

extension ContainerPerformTests {
    /// Something a job captures, watched weakly.
    final class Payload: Sendable {}

    /// A job that holds its thread until released (blocking a work thread, never a cooperative one).
    final class Blocker: @unchecked Sendable {
        private let running = Locked(false)
        private let release = DispatchSemaphore(value: 0)
        private(set) var task: Task<Void, any Error>!

        init(_ container: ModelContainer) {
            task = Task { [running, release] in
                try await container.perform { _ in
                    running.withLock { $0 = true }
                    _ = release.wait(timeout: .now() + 60)
                }
            }
        }

        /// Waits, without blocking, until the job runs.
        func started() async {
            while !running.withLock({ $0 }) { await Task.yield() }
        }

        /// Lets the job end, and waits for it.
        func finish() async throws {
            release.signal()
            try await task.value
        }
    }

    /// Waits (without sleeping) until `count` jobs wait for the container's threads.
    static func waitUntil(_ container: ModelContainer, hasWaiting count: Int) async {
        while container.workThreads.waitingCount < count { await Task.yield() }
    }

    @Test func aJobWhoseCallerIsCancelledBeforeItStartsIsDropped() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let container = store.container
        container.maximumPerformThreads = 1
        let blocking = Blocker(container)
        await blocking.started()
        let ran = Locked(false)
        let dropped = Task { try await container.perform { _ in ran.withLock { $0 = true } } }
        await Self.waitUntil(container, hasWaiting: 1)
        dropped.cancel()
        await #expect(throws: CancellationError.self) { try await dropped.value }
        try await blocking.finish()
        // Jobs run in order on the one thread: once a later job has run, the dropped one would have.
        try await container.perform { _ in }
        #expect(!ran.withLock { $0 })
    }

    @Test func jobsBeyondTheQueueLimitAreRefusedAtOnce() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let container = store.container
        container.maximumPerformThreads = 1
        container.maximumPerformQueue = 2
        let blocking = Blocker(container)
        await blocking.started()
        let queued = (0..<2).map { _ in Task { try await container.perform { context in try context.fetchCount(FetchDescriptor<Expense>()) } } }
        await Self.waitUntil(container, hasWaiting: 2)
        await #expect(throws: SwiftDataError.busy) { try await container.perform { _ in } }
        try await blocking.finish()
        for job in queued { #expect(try await job.value == 0) }
        #expect(container.maximumPerformQueue == 2)
    }

    @Test func aFinishedJobIsLetGoWhileLaterJobsStillWait() async throws {
        let store = try TestStore(.memory, [Expense.self])
        let container = store.container
        container.maximumPerformThreads = 1
        let blocking = Blocker(container)
        await blocking.started()
        weak var watched: Payload?
        let first: Task<Int, any Error> = {
            let payload = Payload()
            watched = payload
            return Task { try await container.perform { _ in withExtendedLifetime(payload) { 1 } } }
        }()
        await Self.waitUntil(container, hasWaiting: 1)
        // Two more behind it: the second holds the thread, the third keeps the queue from draining.
        let second = Blocker(container)
        await Self.waitUntil(container, hasWaiting: 2)
        let third = Task { try await container.perform { _ in 3 } }
        await Self.waitUntil(container, hasWaiting: 3)
        try await blocking.finish()
        #expect(try await first.value == 1)
        await second.started()
        #expect(watched == nil)
        try await second.finish()
        #expect(try await third.value == 3)
    }
}
