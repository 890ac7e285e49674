#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import OpenSwiftData
import OpenSwiftDataPostgres
import Prometheus
import Testing

/// The stores the web app's tests run on: a SQLite file, and PostgreSQL when
/// `OPENSWIFTDATA_POSTGRES_URL` names a server (skipped otherwise; `.ci/run` starts one).
enum WebStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: URL? {
        ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_URL"].flatMap(URL.init(string:))
    }

    /// The stores available here.
    static var available: [WebStore] {
        if postgresURL == nil {
            print("ExpensesWebTests: PostgreSQL runs skipped; set OPENSWIFTDATA_POSTGRES_URL (eval \"$(Scripts/postgres-server.sh start /tmp/pg)\") to run them")
            return [.sqlite]
        }
        return allCases
    }
}

/// A web app on a fresh, seeded store, driven without a server.
struct TestApp {
    let service: ExpensesService
    let configuration: any DataStoreConfiguration
    let file: URL?

    init(_ store: WebStore) throws {
        (configuration, file) = try Self.newStore(store)
        service = try ExpensesService(container: try ExpensesStore.container(configuration), threadCount: 2)
    }

    /// An app in account mode: a store keeping an owner per row, not seeded.
    init(accounts store: WebStore) throws {
        let (configuration, file) = try Self.newStore(store)
        self.configuration = try Accounts.storeConfiguration(configuration)
        self.file = file
        service = try ExpensesService(container: try ExpensesStore.container(self.configuration), threadCount: 2, seeds: false)
    }

    /// A configuration of a new, empty store of the kind, and its file (SQLite).
    static func newStore(_ store: WebStore) throws -> (any DataStoreConfiguration, URL?) {
        switch store {
        case .sqlite:
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("expenses-web-tests/\(UUID().uuidString).store")
            return (ModelConfiguration(url: url), url)
        case .postgres:
            let url = try #require(WebStore.postgresURL)
            return (PostgresConfiguration("Expenses", url: url, postgresSchema: "web_\(UUID().uuidString.prefix(8).lowercased())"), nil)
        }
    }

    private init(configuration: any DataStoreConfiguration, file: URL?) throws {
        self.configuration = configuration
        self.file = file
        service = try ExpensesService(container: try ExpensesStore.container(configuration), threadCount: 2)
    }

    /// A second app on the same store (as after a restart).
    static func reusing(_ other: TestApp) throws -> TestApp {
        try TestApp(configuration: other.configuration, file: other.file)
    }

    /// A second app on the same SQLite file, opened read-only: every save fails inside the store.
    static func readOnly(_ other: TestApp) throws -> TestApp {
        let file = try #require(other.file)
        return try TestApp(configuration: ModelConfiguration(url: file, allowsSave: false), file: file)
    }

    /// Runs `body` with a client of the app's router (serving `/metrics` from `metrics`, if given).
    func test(metrics: PrometheusCollectorRegistry? = nil, metricsToken: String? = nil, accounts: Accounts? = nil, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: try ExpensesApplication.router(service: service, metrics: metrics, metricsToken: metricsToken, accounts: accounts))
        try await app.test(.router, body)
        service.container.close()
    }

    /// What a fresh container on the same store reads: the proof a request saved (or did not).
    func freshViewModel() throws -> ExpenseViewModel {
        ExpenseViewModel(context: ModelContext(try ExpensesStore.container(configuration)))
    }
}

extension TestClientProtocol {
    /// A request with a JSON body.
    @discardableResult
    func send<T: Encodable>(_ method: HTTPRequest.Method, _ uri: String, json: T) async throws -> TestResponse {
        try await executeRequest(uri: uri, method: method, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: try JSONEncoder().encode(json)))
    }

    /// A request with a raw body, or none.
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, body: String? = nil, contentType: String = "application/json", headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: contentType]
        headers.append(contentsOf: extra)
        return try await executeRequest(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    /// The body decoded from JSON.
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
    }

    var text: String { String(buffer: body) }

    /// The `{"error", "field"}` body of an error response.
    var error: (message: String, field: String?) {
        get throws {
            struct Body: Decodable { let error: String; let field: String? }
            let body = try json(Body.self)
            return (body.error, body.field)
        }
    }
}
#endif
