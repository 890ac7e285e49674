#if Studio
import ExpensesCore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import Mustache
import NIOCore
import OpenSwiftData
import Prometheus

/// Builds the web app: the JSON API, the HTML page, `/health`, request logging, and — given a
/// Prometheus registry that `MetricsSystem` was bootstrapped with — `/metrics`, where
/// Hummingbird's request metrics and OpenSwiftData's fetch and save metrics are scraped.
///
/// Every route answers only to the host names it is given (loopback by default,
/// ``HostAllowListMiddleware``), `/metrics` included. Idle connections are closed, and open
/// connections and event streams are capped (``ServerLimits``).
///
/// ```swift
/// let registry = PrometheusCollectorRegistry()
/// MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
/// let service = try ExpensesService(container: try ExpensesStore.container(ModelConfiguration()))
/// let app = try await ExpensesApplication.build(service: service, metrics: registry, host: "127.0.0.1", port: 8080)
/// try await app.runService()   // until SIGINT or SIGTERM; in-flight requests finish, then the store closes
/// ```
///
/// The service runs in the application's service group, after the HTTP server, so a graceful
/// shutdown stops the server (its requests in flight finish) before the service closes the store.
public enum ExpensesApplication {
    public static func build(service: ExpensesService, metrics: PrometheusCollectorRegistry? = nil, metricsToken: String? = nil, syncToken: String? = nil, accounts: Accounts? = nil,
                             host: String = "127.0.0.1", port: Int = 8080,
                             allowedHosts: [String] = [], limits: ServerLimits = ServerLimits(), logger: Logger = Logger(label: "expenses-web")) async throws -> some ApplicationProtocol {
        let router = try router(service: service, metrics: metrics, metricsToken: metricsToken, syncToken: syncToken, accounts: accounts, allowedHosts: allowedHosts, limits: limits)
        return Application(
            router: router, server: .http1(configuration: .init(idleTimeout: limits.idleTimeout)),
            configuration: .init(address: .hostname(host, port: port), serverName: "expenses-web", availableConnectionsDelegate: MaximumAvailableConnections(limits.maximumConnections)),
            services: [service], logger: logger)
    }

    /// The routes, for tests that drive them without a server. With a `syncToken`, `POST /sync`
    /// serves sync to clients that send it (``SyncController``). With `accounts` (account mode,
    /// on a store that keeps owners: ``Accounts/storeConfiguration(_:)``), every route but
    /// `/health`, `/metrics` and `/login` needs a user's token, and answers for that user only
    /// (``AccountsMiddleware``).
    public static func router(service: ExpensesService, metrics: PrometheusCollectorRegistry? = nil, metricsToken: String? = nil, syncToken: String? = nil, accounts: Accounts? = nil,
                              allowedHosts: [String] = [], limits: ServerLimits = ServerLimits()) throws -> Router<ExpensesRequestContext> {
        let router = Router(context: ExpensesRequestContext.self)
        router.add(middleware: LogRequestsMiddleware(.info))
        router.add(middleware: HostAllowListMiddleware(names: allowedHosts))
        if let metrics {
            router.add(middleware: MetricsMiddleware())
            // With a metrics token (EXPENSES_METRICS_TOKEN), /metrics answers only to it; without
            // one it answers only to the allowed host names (loopback by default) — and in account
            // mode, where users reach this server, not at all: its counts are every user's.
            let token = metricsToken.flatMap { $0.isEmpty ? nil : $0 }
            if token != nil || accounts == nil {
                router.get("metrics") { request, _ in
                    if let token, !BearerToken.matches(request, token) {
                        throw APIError(.unauthorized, "The metrics need the metrics token: Authorization: Bearer TOKEN.")
                    }
                    return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: metrics.emitToBuffer())))
                }
            }
        }
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: SameOriginMiddleware())
        if let accounts {
            router.add(middleware: AccountsMiddleware(accounts: accounts))
            LoginController(accounts: accounts).addRoutes(to: router)
        }
        router.get("health") { _, _ in
            // Healthy when the store answers a query.
            _ = try await service.perform { _, context in try context.fetchCount(FetchDescriptor<Category>()) }
            return try APIController.json(["status": "ok"])
        }
        let sync = try SyncController(service: service, token: accounts == nil ? syncToken : nil, accounts: accounts != nil)
        APIController(service: service).addRoutes(to: router)
        // In account mode the page lists the ledgers other users offer, and answers them.
        WebController(service: service, templates: try templates(), sharing: accounts == nil ? nil : sync.server, signsOut: accounts != nil).addRoutes(to: router)
        LiveEvents(service: service, maximumStreams: limits.maximumEventStreams, perUser: accounts != nil).addRoutes(to: router)
        sync.addRoutes(to: router)
        return router
    }

    /// The page template, from the target's resources.
    static func templates() throws -> MustacheLibrary {
        guard let url = Bundle.module.url(forResource: "page", withExtension: "mustache", subdirectory: "Resources") else {
            throw APIError(.internalServerError, "page.mustache is missing from the app's resources.")
        }
        // Registered under a name of its own (the library's "HTML" stays as it is); the template
        // asks for it.
        MustacheContentTypes.register(ScalarHTMLContentType(), named: ScalarHTMLContentType.name)
        var library = MustacheLibrary()
        library.register(try MustacheTemplate(string: String(contentsOf: url, encoding: .utf8)), named: "page")
        return library
    }
}
#endif
