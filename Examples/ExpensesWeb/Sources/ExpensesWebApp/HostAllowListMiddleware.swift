#if Studio
import Hummingbird

/// Answers 421 to a request whose `Host` is not a name this server was told it answers to
/// (loopback names by default, and the names given with `--allowed-host`), on every route — the
/// page, the API, `/events`, `/sync`, `/health` and `/metrics`.
///
/// Why: a page on another site can point a name of its own at this machine's address (DNS
/// rebinding); the browser then treats this server as that site's, same origin and all. The
/// request still carries the other site's name as its `Host`, so it reaches nothing here.
struct HostAllowListMiddleware: RouterMiddleware {
    typealias Context = ExpensesRequestContext

    /// The names a server answers to without being told: this machine, by name and address.
    static let loopback: Set<String> = ["localhost", "127.0.0.1", "[::1]", "::1"]

    /// Host names, lower-cased, without ports.
    let allowed: Set<String>

    /// A middleware allowing loopback names and `names` (host names, with or without a port).
    init(names: [String] = []) {
        allowed = Self.loopback.union(names.map { Self.hostName($0) })
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, allowed.contains(Self.hostName(authority)) else {
            throw APIError(.init(code: 421), "This server does not answer to that host name; start it with --allowed-host NAME to add one.")
        }
        return try await next(request, context)
    }

    /// The host of an authority, lower-cased and without its port: `Example.com:8080` →
    /// `example.com`, `[::1]:8080` → `[::1]`.
    static func hostName(_ authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") {
            guard let end = lowered.firstIndex(of: "]") else { return lowered }
            return String(lowered[...end])
        }
        guard let colon = lowered.lastIndex(of: ":"), lowered.firstIndex(of: ":") == colon else { return lowered }
        return String(lowered[..<colon])
    }
}
#endif
