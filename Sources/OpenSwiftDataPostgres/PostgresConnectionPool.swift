#if PostgreSQL
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import OpenSwiftData
import PostgresNIO

/// Connections to one PostgreSQL server, each lent to one caller at a time.
///
/// Synchronous on purpose: a context's fetches and saves are synchronous. The work runs on the pool's own
/// event-loop threads — never Swift's cooperative threads — and the calling thread waits for it,
/// so a caller on an actor blocks only itself, and no event loop ever waits for a caller: no
/// deadlock however few cores there are. A call made on an event-loop thread would wait for
/// itself; it is refused with an error instead.
///
/// A connection the server closed (a restart, an idle timeout) is noticed when it is next lent
/// and replaced; one that fails during a call is dropped, so the call after reconnects.
///
/// Where the URL lists several servers, a connection tries them in order from the last that
/// served, and with `target_session_attrs=read-write` takes only one that is not a standby: after
/// a failover the next connection finds the promoted server. A pool of a read replica opens
/// read-only sessions, so nothing sent through it can write.
final class PostgresConnectionPool: @unchecked Sendable {
    static let logger = Logger(label: "OpenSwiftData.Postgres")

    let place: String
    let maximum: Int
    /// How long a caller waits for a busy pool before giving up.
    let waitTimeout: TimeInterval = 30
    /// How long a statement may go without an answer (or a query without a new row) before its
    /// connection is closed and the caller gets an error, rather than waiting forever on a server
    /// or network that stopped answering.
    static let answerTimeout: TimeInterval = 300
    /// postgres-nio's configuration per server of the URL, in the order they are tried.
    private let configurations: [(host: PostgresURL.Host, configuration: PostgresConnection.Configuration)]
    private let target: PostgresURL.SessionTarget
    /// Settings each new session makes before it is lent (name, value).
    private let sessionSettings: [(String, String)]
    /// Behind a pooler in transaction mode (``PostgresConnectionPooling/transaction``): the
    /// settings each transaction makes for itself (name, value), since no session keeps them;
    /// `nil` where sessions do.
    let transactionSettings: [(String, String)]?
    /// Whether the sessions may not write (a read replica's).
    let readOnly: Bool
    private let group: MultiThreadedEventLoopGroup
    /// The configuration name of the store the pool serves, for metrics.
    let store: String
    /// The server the last connection went to, tried first next time (none yet: the first).
    private let preferred = NIOLockedValueBox<Int?>(nil)
    // `condition` guards everything below it.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var open = 0
    private var nextID = 0
    private var isShutDown = false

    /// `namespace`: the PostgreSQL schema every connection's unqualified names resolve in.
    /// `readOnly`: sessions that cannot write (a read replica's).
    /// `pooling`: how a pooler between here and the server lends sessions; by transaction,
    /// nothing is set on a session (it would stay with the pooler's server connection, for
    /// whichever client gets it next) and each transaction sets the namespace itself.
    init(url: PostgresURL, maximum: Int, connectTimeout: TimeAmount, namespace: String? = nil, readOnly: Bool = false, store: String = "",
         pooling: PostgresConnectionPooling = .session) throws {
        var parameters = [("standard_conforming_strings", "on")]
        // Literals in the SQL (regular expressions, bytea) are written for standard strings,
        // where a backslash is an ordinary character; a server or role configured otherwise must
        // not read them differently (a session's startup setting outranks the role's).
        var settings: [(String, String)] = []
        if let namespace {
            // The name shows in pg_stat_activity, so an operator sees which store a session serves.
            parameters.append(("application_name", String("OpenSwiftData \(namespace)".prefix(63))))
            settings.append(("search_path", PostgresDialect().quote(namespace)))
        }
        self.readOnly = readOnly
        if pooling == .transaction || url.poolsTransactions {
            // A read-only transaction is begun as one (``PostgresSQLConnection``).
            transactionSettings = settings
            sessionSettings = []
        } else {
            if readOnly { settings.append(("default_transaction_read_only", "on")) }
            // Set once the session is open rather than as startup parameters: PgBouncer passes on
            // only a few of those (application_name and standard_conforming_strings among them) and
            // refuses a connection that names others.
            transactionSettings = nil
            sessionSettings = settings
        }
        configurations = try url.hosts.map { host in
            var configuration = try url.connectionConfiguration(connectTimeout: connectTimeout, host: host)
            configuration.options.additionalStartupParameters = parameters
            return (host, configuration)
        }
        target = url.target
        place = url.place
        self.store = store
        self.maximum = max(1, maximum)
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    deinit { shutDown() }

    /// Whether a pooler lends server sessions a transaction at a time, so that every statement
    /// must run in a transaction that sets the namespace itself (``transactionSettings``).
    var poolsTransactions: Bool { transactionSettings != nil }

    /// Closes every connection; later calls throw.
    func shutDown() {
        condition.lock()
        let connections = idle
        idle = []
        let wasShutDown = isShutDown
        isShutDown = true
        condition.broadcast()
        condition.unlock()
        guard !wasShutDown else { return }
        // The last reference may go in a callback of the pool's own event loop (a connection
        // attempt's), where nothing may be waited for: there the closing is only started.
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else {
            for connection in connections { connection.close().whenComplete { _ in } }
            group.shutdownGracefully { _ in }
            return
        }
        for connection in connections {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
        try? group.syncShutdownGracefully()
    }

    /// Runs `body` with a connection of its own.
    func withConnection<Result>(_ body: (PostgresConnection) throws -> Result) throws -> Result {
        let connection = try acquire()
        defer { release(connection) }
        return try body(connection)
    }

    /// Runs `query` (every value bound) on `connection` and returns its rows.
    func run(_ query: PostgresQuery, on connection: PostgresConnection) throws -> PostgresQueryResult {
        try wait(for: connection.query(query, logger: Self.logger), on: connection)
    }

    /// Waits for the answer to a statement sent on `connection`.
    func wait<Answer: Sendable>(for answer: EventLoopFuture<Answer>, on connection: PostgresConnection) throws -> Answer {
        let ending = NIOLockedValueBox(Ending.answered)
        // The caller waits for the first of the answer and the checks: a connection the server
        // closed (a primary stopping) may never fail a query sent just before, so each second the
        // connection is looked at, and the caller must not wait for good on a server that stopped
        // answering (the first to complete the promise wins; a later completion is ignored).
        let outcome = connection.eventLoop.makePromise(of: Answer.self)
        answer.cascade(to: outcome)
        let started = DispatchTime.now().uptimeNanoseconds
        let checks = connection.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { task in
            if connection.isClosed {
                ending.withLockedValue { $0 = .closed }
            } else if Double(DispatchTime.now().uptimeNanoseconds &- started) / 1e9 >= Self.answerTimeout {
                ending.withLockedValue { $0 = .timedOut }
                connection.close().whenComplete { _ in }
            } else {
                return
            }
            outcome.fail(ChannelError.ioOnClosedChannel)
            task.cancel()
        }
        defer { checks.cancel() }
        do {
            return try outcome.futureResult.wait()
        } catch {
            switch ending.withLockedValue({ $0 }) {
            case .timedOut:
                throw SwiftDataError(.storeIO, "PostgreSQL at \(place) did not answer within \(Int(Self.answerTimeout)) seconds; the connection was closed")
            case .closed:
                throw SwiftDataError(.storeIO, "could not run a query on PostgreSQL at \(place): the connection closed before the server answered (restarted or stopped?)")
            case .answered:
                break
            }
            // An error the server answered leaves the connection usable, unless the server ends the
            // session with it (a restart: FATAL, SQLSTATE 57P01); any other (the server went away,
            // the network failed) leaves it in doubt. Either way it is closed, so it is not lent
            // again even before the closing reaches this side.
            if Self.endsSession(error), !connection.isClosed {
                let closing: EventLoopFuture<Void> = connection.close()
                try? closing.wait()
            }
            throw Self.describe(error, doing: "run a query on", at: place)
        }
    }

    /// The server connections go to now (the last that served): for telemetry.
    var server: PostgresURL.Host { configurations[(preferred.withLockedValue { $0 } ?? 0) % configurations.count].host }
    /// ``server``'s host and port.
    var serverAddress: (address: String, port: Int) {
        let host = server
        return (host.host, host.port)
    }

    /// How a wait for an answer ended, when the answer did not end it.
    private enum Ending {
        case answered, closed, timedOut
    }

    /// A connection for the caller alone, until ``release(_:)``.
    func acquire() throws -> PostgresConnection {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw SwiftDataError(.storeIO, "a PostgreSQL store was used on a SwiftNIO event-loop thread, where waiting for the server would deadlock; use the model context from your own thread, a Task or an actor")
        }
        let deadline = Date().addingTimeInterval(waitTimeout)
        var waitStarted: UInt64?
        defer { if let waitStarted { Telemetry.poolWait(pool: place, since: waitStarted) } }
        condition.lock()
        while true {
            if isShutDown {
                condition.unlock()
                throw SwiftDataError(.storeIO, "the PostgreSQL store at \(place) was closed")
            }
            while let connection = idle.popLast() {
                if !connection.isClosed {
                    condition.unlock()
                    return connection
                }
                open -= 1
            }
            if open < maximum {
                open += 1
                nextID += 1
                let id = nextID
                condition.unlock()
                do {
                    return try connect(id: id)
                } catch {
                    condition.lock()
                    open -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            if waitStarted == nil { waitStarted = DispatchTime.now().uptimeNanoseconds }
            if !condition.wait(until: deadline) {
                condition.unlock()
                throw SwiftDataError(.storeIO, "all \(maximum) connections to PostgreSQL at \(place) stayed busy for \(Int(waitTimeout)) seconds; allow more (maximumConnections) or keep fewer contexts busy at once")
            }
        }
    }

    func release(_ connection: PostgresConnection) {
        condition.lock()
        var closing: EventLoopFuture<Void>?
        if connection.isClosed || isShutDown {
            open -= 1
            if !connection.isClosed { closing = connection.close() }
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
        // Given back after the pool shut down: closed before it goes away (never on an event
        // loop: `acquire` refuses those threads).
        try? closing?.wait()
    }

    /// A connection outside the pool, for a listener that keeps it (``PostgresCommitListener``);
    /// the caller closes it. Throws once the pool is shut down (its event loops are gone).
    func connectOutsidePool() throws -> EventLoopFuture<PostgresConnection> {
        let id = try condition.withLock {
            guard !isShutDown else { throw SwiftDataError(.storeIO, "the PostgreSQL store at \(place) was closed") }
            nextID += 1
            return nextID
        }
        return connecting(id: id)
    }

    private func connect(id: Int) throws -> PostgresConnection {
        do {
            return try connecting(id: id).wait()
        } catch {
            throw Self.describe(error, doing: "connect to", at: place)
        }
    }

    /// A new connection to the first server, from the one that served last, that answers — and
    /// for a pool that writes, that is not a standby.
    private func connecting(id: Int) -> EventLoopFuture<PostgresConnection> {
        let start = preferred.withLockedValue { $0 } ?? 0
        return attempt(id: id, at: start, left: configurations.count, failures: [])
    }

    private enum Outcome: Sendable {
        case connected(PostgresConnection)
        case standby
        case failed(any Error)
    }

    private func attempt(id: Int, at index: Int, left: Int, failures: [String]) -> EventLoopFuture<PostgresConnection> {
        let loop = group.next()
        guard left > 0 else { return loop.makeFailedFuture(NoServer(failures: failures, forWrites: target == .readWrite)) }
        let (host, configuration) = configurations[index % configurations.count]
        let readWrite = target == .readWrite
        let setup = sessionSetup, settles = !sessionSettings.isEmpty
        return PostgresConnection.connect(on: loop, configuration: configuration, id: id, logger: Self.logger).flatMap { connection -> EventLoopFuture<Outcome> in
            guard readWrite || settles else { return loop.makeSucceededFuture(.connected(connection)) }
            return connection.query(setup, logger: Self.logger).flatMap { result in
                if !readWrite || (result.rows.first?.first).flatMap({ try? $0.decode(Bool.self) }) == false {
                    return loop.makeSucceededFuture(.connected(connection))
                }
                return connection.close().map { .standby }
            }.flatMapError { error in
                connection.close().map { .failed(error) }.recover { _ in .failed(error) }
            }
        }.recover { .failed($0) }.flatMap { outcome in
            switch outcome {
            case .connected(let connection):
                self.served(by: index % self.configurations.count)
                return loop.makeSucceededFuture(connection)
            case .standby:
                return self.attempt(id: id, at: index + 1, left: left - 1, failures: failures + ["\(host.host):\(host.port) is a standby (read-only)"])
            case .failed(let error):
                // One server: its own error, as it always was.
                if self.configurations.count == 1 { return loop.makeFailedFuture(error) }
                let reason = Self.describe(error, doing: "connect to", at: "\(host.host):\(host.port)").message
                return self.attempt(id: id, at: index + 1, left: left - 1, failures: failures + [reason])
            }
        }
    }

    /// One statement that makes ``sessionSettings`` and says whether the server is a standby.
    private var sessionSetup: PostgresQuery {
        var binds = PostgresBindings(capacity: sessionSettings.count * 2)
        var text = "SELECT pg_is_in_recovery()"
        for (offset, (name, value)) in sessionSettings.enumerated() {
            binds.append(name)
            binds.append(value)
            text += ", set_config($\(offset * 2 + 1), $\(offset * 2 + 2), false)"
        }
        return PostgresQuery(unsafeSQL: text, binds: binds)
    }

    /// Notes that a connection went to the server at `index`: tried first from now on. Writes
    /// that move to another server are a failover, logged and counted.
    private func served(by index: Int) {
        let before = preferred.withLockedValue { value -> Int? in
            defer { value = index }
            return value
        }
        guard let before, before != index, target == .readWrite else { return }
        let (from, to) = (configurations[before].host, configurations[index].host)
        Self.logger.warning("PostgreSQL at \(place): writes now go to \(to.host):\(to.port), not \(from.host):\(from.port) (a standby was promoted?)")
        Telemetry.failover(store: store)
    }
}
#endif
