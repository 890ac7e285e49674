#if PostgreSQL
import Foundation
import NIOSSL
import OpenSwiftData
import PostgresNIO

/// The parts of a `postgres://user:password@host:port/database?sslmode=…` URL, checked, and the
/// servers to try after its own for failover (libpq's multi-host form,
/// `postgres://user:password@host1:port1,host2:port2/database`, split by ``splitting(_:)``), with
/// `target_session_attrs=read-write` to take only one that accepts writes.
struct PostgresURL: Hashable, Sendable {
    /// One server of the URL.
    struct Host: Hashable, Sendable {
        let host: String
        let port: Int
    }

    /// Which server of several a connection may use (`target_session_attrs`).
    enum SessionTarget: String, Hashable, Sendable {
        /// Any that answers (libpq's `any`; the default for one host).
        case any
        /// One that accepts writes, not a standby (`read-write` or `primary`; the default for
        /// several hosts).
        case readWrite = "read-write"
    }

    /// How the connection uses TLS (`sslmode`, as libpq names them): `disable` (the default on
    /// loopback; elsewhere the URL must say), `prefer`, `require`, `verify-ca` or `verify-full`.
    enum TLSMode: String, Hashable, Sendable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// The servers, in the order they are tried; the first is ``host``:``port``.
    let hosts: [Host]
    var host: String { hosts[0].host }
    var port: Int { hosts[0].port }
    let target: SessionTarget
    let username: String
    let password: String?
    let database: String?
    let tls: TLSMode
    /// `sslrootcert`: a PEM file of the certificates to trust; `nil` (or `system`) for the
    /// system's trust store.
    let rootCertificates: String?
    /// `pgbouncer=true`: a pooler in transaction mode lends the server sessions
    /// (``PostgresConnectionPooling/transaction``).
    let poolsTransactions: Bool

    /// Reads `url`, or throws an error that says what is wrong with it (never showing the password).
    /// `failoverHosts`: more servers (`host:port`) tried after the URL's own, in order.
    init(_ url: URL, failoverHosts: [String] = []) throws {
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
        self.hosts = [Host(host: host, port: components.port ?? 5432)] + (try failoverHosts.map { try Self.host($0, in: url) })
        let target = components.queryItems?.first(where: { $0.name == "target_session_attrs" })?.value
        switch target {
        case nil: self.target = hosts.count > 1 ? .readWrite : .any
        case "any": self.target = .any
        case "read-write", "primary": self.target = .readWrite
        default:
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' has target_session_attrs=\(target ?? ""); use read-write (or primary, any): a store's standbys are named as replicas")
        }
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.database = path.isEmpty ? nil : (path.removingPercentEncoding ?? path)
        // No default across a network: the URL says how, or the connection would send the
        // password and every value in clear without anyone having chosen that.
        guard let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? (hosts.allSatisfy({ Self.isLoopback($0.host) }) ? "disable" : nil) else {
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
        switch components.queryItems?.first(where: { $0.name == "pgbouncer" })?.value?.lowercased() {
        case nil, "false", "0": poolsTransactions = false
        case "true", "1": poolsTransactions = true
        case let other?:
            throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(Self.redacted(url))' has pgbouncer=\(other); use pgbouncer=true behind a pooler in transaction mode, or leave it out")
        }
    }

    /// A server as libpq lists it: `host:5433`, `[::1]:5433`, or a host alone (port 5432).
    static func host(_ entry: String, in url: URL) throws -> Host {
        var name = Substring(entry), port = 5432
        if let colon = entry.lastIndex(of: ":"), !entry[colon...].contains("]") {
            guard let number = Int(entry[entry.index(after: colon)...]), (1...65535).contains(number) else {
                throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(redacted(url))' lists the host \(entry), whose port is not a number from 1 to 65535")
            }
            name = entry[..<colon]
            port = number
        }
        guard !name.isEmpty else { throw SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL '\(redacted(url))' lists an empty host") }
        return Host(host: String(name), port: port)
    }

    /// A libpq connection URL that may list several servers
    /// (`postgres://user:password@host1:port1,host2:port2/database`), which `URL` cannot hold: the
    /// URL with its first server, and the others (`host:port`).
    static func splitting(_ text: String) throws -> (url: URL, others: [String]) {
        let cannotRead = SwiftDataError(.loadIssueModelContainer, "the PostgreSQL URL cannot be read (it was not shown because it may hold a password); use postgres://user:password@host:port/database")
        guard let schemeEnd = text.range(of: "://") else {
            guard let url = URL(string: text) else { throw cannotRead }
            return (url, [])
        }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let at = authority.lastIndex(of: "@")
        let hostList = at.map { authority[authority.index(after: $0)...] } ?? authority
        let entries = hostList.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let single = String(text[..<hostList.startIndex]) + entries[0] + String(text[hostList.endIndex...])
        guard let url = URL(string: single) else { throw cannotRead }
        return (url, Array(entries.dropFirst()))
    }

    /// Whether `host` is this machine (`localhost`, `127.x.x.x`, `::1`) or a Unix socket folder,
    /// where no `sslmode` means `disable`.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.") || host.hasPrefix("/")
    }

    /// The URL with its password replaced, for messages and logs (read by hand, as a URL
    /// URLComponents cannot read must not be shown whole either).
    static func redacted(_ url: URL) -> String {
        let text = url.absoluteString
        guard let schemeEnd = text.range(of: "://") else { return text }
        let authority = text[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":•••" + String(text[at...])
    }

    /// Where it connects, for messages: `user@host:port/database` (hosts separated by commas).
    var place: String { "\(username)@\(hosts.map { "\($0.host):\($0.port)" }.joined(separator: ","))/\(database ?? username)" }

    /// postgres-nio's configuration for these parts, to the server `host` (by default the first).
    func connectionConfiguration(connectTimeout: TimeAmount, host: Host? = nil) throws -> PostgresConnection.Configuration {
        let host = host ?? hosts[0]
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
                throw SwiftDataError(.loadIssueModelContainer, "cannot set up TLS for PostgreSQL at \(host.host):\(host.port): \(error)")
            }
            tlsConfiguration = tls == .prefer ? .prefer(context) : .require(context)
        }
        var configuration = PostgresConnection.Configuration(
            host: host.host, port: host.port, username: username, password: password, database: database, tls: tlsConfiguration)
        configuration.options.connectTimeout = connectTimeout
        return configuration
    }
}
#endif
