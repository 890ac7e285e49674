#if Studio
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import Testing
import TestModels
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
@testable import StudioApp

/// Where a studio test's store lives: an OpenSwiftData file, or a PostgreSQL namespace when a
/// server is given (`OPENSWIFTDATA_POSTGRES_URL`, as `Scripts/postgres-server.sh start` prints;
/// without one `.postgres` is left out, as the library's own PostgreSQL suites say when skipped).
enum StudioStoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file, postgres

    var testDescription: String { rawValue }

    static let postgresURL: URL? = ProcessInfo.processInfo.environment["OPENSWIFTDATA_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : URL(string: $0) }
    static let appleSkipReason: Comment = "the SwiftData store fixture is not at ../shared/fixtures/swiftdata-apple-store/default.store beside the project; place the shared folder there (CI does) to run these tests"

    static var allCases: [StudioStoreKind] { postgresURL == nil ? [.file] : [.file, .postgres] }
}

/// A seeded store (``StudioModels/seed(_:)``) with a container over it for checking what the
/// studio shows and changes, and the studio's browser over the same store.
final class StudioFixture {
    let kind: StudioStoreKind
    let container: ModelContainer
    let browser: StoreBrowser
    private let folder: URL?
    private let namespace: String?
    private let configuration: PostgresConfiguration?

    /// `types`: models of the test's own instead of ``StudioModels`` (then nothing is seeded).
    init(_ kind: StudioStoreKind, allowsEdits: Bool = false, seed: Bool = true, types: [any PersistentModel.Type]? = nil) throws {
        self.kind = kind
        let schema = Schema(types ?? StudioModels.types)
        let seed = seed && types == nil
        switch kind {
        case .file:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let url = folder.appendingPathComponent("library.store")
            container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
            if seed { try StudioModels.seed(container) }
            browser = try StoreBrowser.open(file: url, allowsEdits: allowsEdits, inflate: RawInflate.inflate)
            self.folder = folder
            namespace = nil
            configuration = nil
        case .postgres:
            let server = try #require(StudioStoreKind.postgresURL)
            let namespace = "studio_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let configuration = PostgresConfiguration("studio", url: server, schema: schema, postgresSchema: namespace)
            container = try ModelContainer(for: schema, configurations: configuration)
            if seed { try StudioModels.seed(container) }
            browser = try configuration.browser(allowsEdits: allowsEdits)
            self.namespace = namespace
            self.configuration = configuration
            folder = nil
        }
    }

    /// A fresh context on the store: what an app sees now.
    var context: ModelContext { ModelContext(container) }

    deinit {
        browser.close()
        if let folder { try? FileManager.default.removeItem(at: folder) }
        if let namespace, let server = StudioStoreKind.postgresURL {
            try? dropNamespace(namespace, server: server)
        }
    }

    private func dropNamespace(_ namespace: String, server: URL) throws {
        let pool = try PostgresConnectionPool(url: try PostgresURL(server), maximum: 1, connectTimeout: .seconds(5))
        defer { pool.shutDown() }
        _ = try pool.withConnection { connection in
            try pool.run(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \"\(namespace)\" CASCADE"), on: connection)
        }
    }
}

/// A copy of the SwiftData store written on an Apple platform, opened by the studio's browser.
final class AppleFixture {
    let url: URL
    let browser: StoreBrowser

    init(allowsEdits: Bool = false) throws {
        url = try ResourcesManager.copyOfFixture()
        browser = try StoreBrowser.open(file: url, allowsEdits: allowsEdits, inflate: RawInflate.inflate)
    }

    deinit {
        browser.close()
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }
}

/// The studio's pages, requested in memory with the access token's cookie (or without it).
struct StudioClient {
    let client: any TestClientProtocol
    let token: AccessToken

    /// Runs `body` with a client of a studio over `browser`.
    static func with<R: Sendable>(_ browser: StoreBrowser, _ body: @Sendable (StudioClient) async throws -> R) async throws -> R {
        let token = AccessToken.random()
        let app = Application(router: Studio.router(store: StudioStore(browser), token: token))
        return try await app.test(.router) { client in try await body(StudioClient(client: client, token: token)) }
    }

    /// A page's status and HTML; `authorised: false` sends no cookie.
    func get(_ path: String, authorised: Bool = true) async throws -> (status: HTTPResponse.Status, html: String) {
        try await client.execute(uri: path, method: .get, headers: authorised ? [.cookie: "\(token.cookie)=\(token.value)"] : [:]) { response in
            (response.status, String(buffer: response.body))
        }
    }

    /// A form posted as a browser posts it, from the studio's own page (the test client asks
    /// for the host `localhost`), or from the page of `origin`.
    func post(_ path: String, form: [(String, String)], authorised: Bool = true, origin: String? = "http://localhost",
              site: String? = nil) async throws -> (status: HTTPResponse.Status, html: String, location: String?) {
        let body = form.map { "\(HTML.component($0.0))=\(HTML.component($0.1))" }.joined(separator: "&")
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if authorised { headers[.cookie] = "\(token.cookie)=\(token.value)" }
        if let origin { headers[.origin] = origin }
        if let site { headers[HTTPField.Name("Sec-Fetch-Site")!] = site }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)) { response in
            (response.status, String(buffer: response.body), response.headers[.location])
        }
    }
}

/// What a page says, without its markup and script: for checks on the words a person reads.
func pageText(_ html: String) -> String {
    let main = html.range(of: "<main>").map { String(html[$0.upperBound...]) } ?? html
    let content = main.range(of: "</main>").map { String(main[..<$0.lowerBound]) } ?? main
    var text = content.replacingOccurrences(of: "<[^>]+>", with: " ", options: .regularExpression)
    for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
        text = text.replacingOccurrences(of: entity, with: character)
    }
    return text.replacingOccurrences(of: "\\s+", with: " ", options: .regularExpression)
}

/// The `data-key` of each row in a rows page's table, in order.
func rowKeys(_ html: String) -> [Int64] {
    let pattern = /<tr data-key="(\d+)">/
    return html.matches(of: pattern).compactMap { Int64($0.output.1) }
}
#endif
