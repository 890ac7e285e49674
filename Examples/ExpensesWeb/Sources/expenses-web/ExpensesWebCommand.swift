import ArgumentParser
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus

/// `expenses-web`: the expense tracker as a web app, on the default SQLite store or on
/// PostgreSQL (`--store postgres://…` or `DATABASE_URL`), where several instances can serve one
/// database.
@main
struct ExpensesWebCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expenses-web",
        abstract: "Serve the expense tracker: a JSON API under /api and a page at /.")

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (default: PORT if set, else 8080).")
    var port: Int?

    @Option(help: "The store: a file, or a postgres://user:password@host:port/database URL (default: DATABASE_URL if set, else a file in the application data folder).")
    var store: String?

    @Option(help: "On PostgreSQL, the namespace (schema) the tables live in.")
    var schema = "expenses"

    @Option(name: .customLong("allowed-host"), help: "A host name the server answers to besides loopback ones (repeatable; also EXPENSES_ALLOWED_HOSTS, comma-separated). Requests for any other Host get 421.")
    var allowedHosts: [String] = []

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let port = try port ?? environment["PORT"].map { text in
            guard let number = Int(text), (0...65_535).contains(number) else { throw ValidationError("PORT='\(text)' is not a port number.") }
            return number
        } ?? 8080
        var logger = Logger(label: "expenses-web")
        logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info

        let service: ExpensesService
        do {
            service = try ExpensesService(container: try ExpensesStore.container(try ExpensesStore.configuration(store, schema: schema, environment: environment)))
        } catch let error as ExpenseInputError {
            throw ValidationError(error.message)
        }
        // Metrics for Prometheus at /metrics: Hummingbird's per route, OpenSwiftData's per fetch and save.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        // Sync for `expenses sync --server URL` at /sync, when a token is set.
        let hosts = allowedHosts + (environment["EXPENSES_ALLOWED_HOSTS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let app = try await ExpensesApplication.build(service: service, metrics: registry, syncToken: environment["EXPENSES_SYNC_TOKEN"], host: host, port: port,
                                                      allowedHosts: hosts, logger: logger)
        // Runs until SIGINT or SIGTERM: the server finishes its requests in flight, then the
        // service closes the store. Every request saved its own changes: nothing is left to save.
        try await app.runService()
        logger.info("stopped; the store is closed")
    }
}
