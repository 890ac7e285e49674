#if Studio
import ArgumentParser
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import Logging
import Metrics
import OpenSwiftData
import OpenSwiftDataSync
import Prometheus

/// `expenses-web`: the expense tracker as a web app, on the default SQLite store or on
/// PostgreSQL (`--store postgres://…` or `DATABASE_URL`), where several instances can serve one
/// database. With `EXPENSES_AUTH_SECRET` set it serves many users (account mode), each with
/// their own data; `expenses-web token USER` prints a user's token.
@main
struct ExpensesWebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expenses-web",
        abstract: "Serve the expense tracker: a JSON API under /api and a page at /.",
        subcommands: [Serve.self, Token.self, Revoke.self, NewSyncEpoch.self],
        defaultSubcommand: Serve.self)
}

/// `expenses-web token USER`: a signed token for USER, for the page's sign-in, the API and
/// `expenses sync --token`.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a token for USER, signed with EXPENSES_AUTH_SECRET (the example's stand-in for an identity provider).")

    @Argument(help: "The user's name: letters, digits, '.', '_', '-', '@'.")
    var user: String

    @Option(help: "How long the token is valid: a number of seconds, or with s, m, h or d (default 1h; a device that syncs for weeks needs a longer one, or a new one each time).")
    var expires = "1h"

    func run() async throws {
        guard let secret = ProcessInfo.processInfo.environment["EXPENSES_AUTH_SECRET"] else {
            throw ValidationError("Set EXPENSES_AUTH_SECRET to the server's signing secret.")
        }
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        let unit = expires.last.flatMap { units[$0] }
        guard let number = Int64(unit == nil ? expires : String(expires.dropLast())), number > 0, number <= 366 * 86_400 / (unit ?? 1) else {
            throw ValidationError("--expires takes a positive duration of at most a year, such as 3600, 90m, 12h or 30d.")
        }
        do {
            let accounts = try await Accounts(secret: secret)
            print(try await accounts.token(for: user, expiresIn: .seconds(number * (unit ?? 1))))
        } catch let error as AccountsError {
            throw ValidationError(error.description)
        }
    }
}

/// `expenses-web revoke USER`: signs a user out everywhere — every token given to them before
/// now counts no more, on every instance serving the store.
struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign USER out everywhere: every token given to them until now stops working (a lost device, a leaked token). Run with the options the server serves with.")

    @Argument(help: "The user's name.")
    var user: String

    @OptionGroup var location: StoreLocation

    func run() async throws {
        do {
            try await AccountRevocations(beside: try location.configuration()).revoke(user)
        } catch let error as ExpenseInputError {
            throw ValidationError(error.message)
        }
        print("Signed \(user) out everywhere: their tokens given until now no longer work; give them a new one (expenses-web token \(user)).")
    }
}

/// `expenses-web new-sync-epoch`: after restoring the store from a backup, makes every device
/// start again from a fresh copy at its next sync (``SyncServer/startNewEpoch()``).
struct NewSyncEpoch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "After restoring the store from a backup: make every syncing device start again from a fresh copy of it (run with the server stopped, with the options it serves with).")

    @OptionGroup var location: StoreLocation

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        do {
            var configuration = try location.configuration()
            // Account mode's store keeps an owner per row; it opens only as such.
            if environment["EXPENSES_AUTH_SECRET"] != nil { configuration = try Accounts.storeConfiguration(configuration) }
            let container = try ExpensesStore.container(configuration)
            try SyncServer(container: container).startNewEpoch()
            container.close()
        } catch let error as ExpenseInputError {
            throw ValidationError(error.message)
        }
        print("Started a new sync epoch: every device starts again from a fresh copy of this store at its next sync, sending back what it has that the store lost.")
    }
}

/// Serves the app (the default command).
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the expense tracker (the default).")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (default: PORT if set, else 8080).")
    var port: Int?

    @Option(help: "The store: a file, or a postgres://user:password@host:port/database URL (default: DATABASE_URL if set, else a file in the application data folder).")
    var store: String?

    @Option(help: "On PostgreSQL, the namespace (schema) the tables live in.")
    var schema = "expenses"

    @Option(name: .customLong("replica"), help: "On PostgreSQL, a read replica (a hot standby's postgres:// URL) that serves reads (repeatable; also DATABASE_REPLICA_URLS, comma-separated). For failover, give --store several hosts: postgres://…@host1:port1,host2:port2/db?target_session_attrs=read-write.")
    var replicas: [String] = []

    @Option(name: .customLong("allowed-host"), help: "A host name the server answers to besides loopback ones (repeatable; also EXPENSES_ALLOWED_HOSTS, comma-separated). Requests for any other Host get 421.")
    var allowedHosts: [String] = []

    @Option(name: .customLong("max-connections"), help: "The most connections open at once (default: as many as the open-file limit leaves room for, at most 10,000; each device waiting for live sync holds one).")
    var maximumConnections: Int?

    @Flag(help: "In account mode, mark the session cookie Secure: the page is served over https, by this server's proxy (also EXPENSES_SECURE_COOKIES=1).")
    var secureCookies = false

    func validate() throws {
        if let maximumConnections, maximumConnections < 1 { throw ValidationError("--max-connections takes a positive number.") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = try port ?? environment["PORT"].map { text in
            guard let number = Int(text), (0...65_535).contains(number) else { throw ValidationError("PORT='\(text)' is not a port number.") }
            return number
        } ?? 8080
        var logger = Logger(label: "expenses-web")
        logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

        // Account mode: many users, each with their own data, signed in with tokens.
        let secret = environment["EXPENSES_AUTH_SECRET"]
        if secret != nil, environment["EXPENSES_SYNC_TOKEN"] != nil {
            throw ValidationError("Set EXPENSES_AUTH_SECRET (many users) or EXPENSES_SYNC_TOKEN (one user), not both.")
        }
        var accounts: Accounts?
        let service: ExpensesService
        do {
            var configuration = try ExpensesStore.configuration(store, schema: schema, replicas: replicas, environment: environment)
            if let secret {
                configuration = try Accounts.storeConfiguration(configuration)
                accounts = try await Accounts(secret: secret, revocations: try AccountRevocations(beside: configuration),
                                              secureCookies: secureCookies || environment["EXPENSES_SECURE_COOKIES"] == "1")
            }
            service = try ExpensesService(container: try ExpensesStore.container(configuration), seeds: accounts == nil)
        } catch let error as ExpenseInputError {
            throw ValidationError(error.message)
        } catch let error as AccountsError {
            throw ValidationError(error.description)
        }
        // Metrics for Prometheus at /metrics: Hummingbird's per route, OpenSwiftData's per fetch and save.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        // Sync for `expenses sync --server URL` at /sync, when a token is set.
        let hosts = allowedHosts + (environment["EXPENSES_ALLOWED_HOSTS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let metricsToken = environment["EXPENSES_METRICS_TOKEN"]
        if accounts != nil, metricsToken == nil {
            logger.notice("/metrics is off in account mode without EXPENSES_METRICS_TOKEN (its counts are every user's); set one to serve it behind that token")
        }
        let app = try await ExpensesApplication.build(service: service, metrics: registry, metricsToken: metricsToken, syncToken: environment["EXPENSES_SYNC_TOKEN"], accounts: accounts,
                                                      host: host, port: port, allowedHosts: hosts,
                                                      limits: maximumConnections.map { ServerLimits(maximumConnections: $0) } ?? ServerLimits(), logger: logger)
        // Runs until SIGINT or SIGTERM: the server finishes its requests in flight, then the
        // service closes the store. Every request saved its own changes: nothing is left to save.
        try await app.runService()
        logger.info("stopped; the store is closed")
    }
}

/// Where the store the server serves is, for the commands run beside it.
struct StoreLocation: ParsableArguments {
    @Option(help: "The store: a file, or a postgres://… URL (default: DATABASE_URL if set, else the server's default file).")
    var store: String?

    @Option(help: "On PostgreSQL, the namespace (schema) the tables live in.")
    var schema = "expenses"

    /// The store's configuration, as the server opens it.
    func configuration() throws -> any DataStoreConfiguration {
        try ExpensesStore.configuration(store, schema: schema, environment: ProcessInfo.processInfo.environment)
    }
}
#else
import Foundation

/// Without the `Studio` trait there is no web server to run: say how to build one.
@main
enum ExpensesWebCommand {
    static func main() {
        FileHandle.standardError.write(Data("this build has no web app: run it with the Studio trait, swift run --traits Studio expenses-web\n".utf8))
        exit(64)
    }
}
#endif
