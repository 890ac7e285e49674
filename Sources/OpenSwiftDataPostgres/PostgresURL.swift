#if PostgreSQL
import Foundation
import NIOSSL
import OpenSwiftData
import PostgresNIO

/// The parts of a `postgres://user:password@host:port/database?sslmode=…` URL, checked.
struct PostgresURL: Hashable, Sendable {
    /// How the connection uses TLS (`sslmode`, as libpq names them): `disable` (the default on
    /// loopback; elsewhere the URL must say), `prefer`, `require`, `verify-ca` or `verify-full`.
    enum TLSMode: String, Hashable, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    let host: String
    let port: Int
    let username: String
    let password: String?
    let database: String?
    let tls: TLSMode
    /// `sslrootcert`: a PEM file of the certificates to trust; `nil` (or `system`) for the
    /// system's trust store.
    let rootCertificates: String?

    /// Reads `url`, or throws an error that says what is wrong with it (never showing the password).
    init(_ url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw SwiftDataError(.loadIssueModelContainer, "'\(Self.redacted(url))' is not a PostgreSQL URL; use postgres://user:password@host:port/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' names no host; use postgres://user:password@host:port/database")
        }
        guard let user = components.user, !user.isEmpty else {
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' names no user; use postgres://user:password@host:port/database")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : (path.removingPercentEncoding ?? path)
        // No default across a network: the URL says how, or the connection would send the
        // password and every value in clear without anyone having chosen that.
        guard let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? (Self.isLoopback(host) ? "disable" : nil) else {
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' reaches \(host) without saying how to use TLS; add sslmode=verify-full (or sslmode=disable on a network you trust)")
        }
        guard let tls = TLSMode(rawValue: mode) else {
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' has sslmode=\(mode); use verify-full (or verify-ca, require, prefer, disable)")
        }
        self.tls = tls
        let root = components.queryItems?.first { $0.name == "sslrootcert" }?.value
        rootCertificates = root == "system" || root?.isEmpty == true ? nil : root
        if let rootCertificates, !FileManager.default.isReadableFile(atPath: rootCertificates) {
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' has sslrootcert=\(rootCertificates), which is not a readable file")
        }
    }

    /// Whether `host` is this machine (`localhost`, `127.x.x.x`, `::1`) or a Unix socket folder,
    /// where no `sslmode` means `disable`.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.") || host.hasPrefix("/")
    }

    /// The URL with its password replaced, for messages and logs.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.password != nil else {
            return url.absoluteString
        }
        components.password = "•••"
        return components.string ?? "(a URL)"
    }

    /// Where it connects, for messages: `user@host:port/database`.
    var place: String { "\(username)@\(host):\(port)/\(database ?? username)" }

    /// postgres-nio's configuration for these parts.
    func connectionConfiguration(connectTimeout: TimeAmount) throws -> PostgresConnection.Configuration {
        let tlsConfiguration: PostgresConnection.Configuration.TLS
        if tls == .disable {
            tlsConfiguration = .disable
        } else {
            // Every mode checks the certificate's chain (against sslrootcert, else the system's
            // roots); all but verify-ca check that it names the host too.
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = tls == .verifyCA ? .noHostnameVerification : .fullVerification
            if let rootCertificates { settings.trustRoots = .file(rootCertificates) }
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: settings)
            } catch {
                throw SwiftDataError(.loadIssueModelContainer, "cannot set up TLS for PostgreSQL at \(place): \(error)")
            }
            tlsConfiguration = tls == .prefer ? .prefer(context) : .require(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tlsConfiguration)
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }
}
#endif
