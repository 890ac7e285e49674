import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reaches a sync server over HTTP: each request is a `POST` of JSON to `url`, with the token,
/// if any, as a bearer token.
///
/// ```swift
/// let token = ProcessInfo.processInfo.environment["SYNC_TOKEN"]
/// let transport = HTTPSyncTransport(url: URL(string: "https://example.com/sync")!, token: token)
/// ```
///
/// The token goes only to the origin of `url` (its scheme, host and port): a redirect within
/// that origin is followed, one to any other origin is not, and the request fails naming where
/// it pointed. Plain `http://` is refused except to a loopback host (`localhost`, `127.0.0.1`,
/// `::1`); put a TLS-terminating proxy in front of a server reached over a network. The token
/// never appears in an error. Errors name the server: ``SyncError/server(_:)`` when it cannot be
/// reached or fails, ``SyncError/unauthorized(_:)`` for a refused token,
/// ``SyncError/refused(_:)`` for a record it refused (the client goes back to the server's version),
/// ``SyncError/tooLarge(_:)`` for a request too large (the client sends smaller pages),
/// ``SyncError/resetRequired(reason:serverLost:)`` where the client must start again from a fresh
/// copy (answer 410), and ``SyncError/schemaMismatch(local:remote:)`` or ``SyncError/malformed(_:)`` as the server
/// explains. A reply larger than ``SyncServer/maximumReplyBytes`` is cut off and refused.
public struct HTTPSyncTransport: SyncTransport {
    /// Where requests are posted (the server's sync route).
    public let url: URL
    private let token: String?
    private let timeout: TimeInterval

    /// A transport to `url`, sending `token` as a bearer token, waiting at most `timeout` seconds per request.
    public init(url: URL, token: String? = nil, timeout: TimeInterval = 60) {
        self.url = url
        self.token = token
        self.timeout = timeout
    }

    /// The URL without its user and password.
    public var serverDescription: String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "the sync server" }
        components.user = nil
        components.password = nil
        return components.string ?? "the sync server"
    }

    /// Whether `url` may carry a token: `https`, or `http` to a loopback host.
    static func isSecure(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http":
            let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return host == "localhost" || host == "::1" || host.hasPrefix("127.")
        default: return false
        }
    }

    /// Posts `body` and returns the reply's body (see the errors above).
    public func send(_ body: Data) async throws -> Data {
        guard Self.isSecure(url) else {
            throw SyncError.server("\(serverDescription) is not reached over https (plain http is only for a loopback host); nothing was sent")
        }
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await HTTPSyncExchange(origin: url, limit: SyncServer.maximumReplyBytes + 1024).run(request, describing: serverDescription)
        // The server's explanation, shortened: it is shown, not trusted.
        let message = String(decoding: data.prefix(500), as: UTF8.self)
        switch response.statusCode {
        case 200:
            return data
        case 401, 403:
            throw SyncError.unauthorized("\(serverDescription) refused the sync token (HTTP \(response.statusCode))")
        case 409:
            if let users = (try? JSONDecoder().decode(SyncErrorBody.self, from: data))?.userChanged, users.count == 2 {
                throw SyncError.userChanged(synced: String(users[0].prefix(256)), now: String(users[1].prefix(256)))
            }
            throw SyncError.server("\(serverDescription) has another schema: \(message)")
        case 413:
            throw SyncError.tooLarge("\(serverDescription) refused a request of \(body.count) bytes (HTTP 413)")
        case 422:
            if let refusal = (try? JSONDecoder().decode(SyncErrorBody.self, from: data))?.refused {
                throw SyncError.refused(refusal)
            }
            throw SyncError.malformed("\(serverDescription) refused the request (HTTP 422): \(message)")
        case 410:
            let body = try? JSONDecoder().decode(SyncErrorBody.self, from: data)
            throw SyncError.resetRequired(reason: body?.reset.map { String($0.prefix(500)) } ?? "\(serverDescription) answered HTTP 410: \(message)",
                                          serverLost: body?.serverLost ?? true)
        case 429, 503:
            throw SyncError.busy("\(serverDescription) is busy (HTTP \(response.statusCode)); sync again shortly")
        case 400:
            throw SyncError.malformed("\(serverDescription) refused the request (HTTP 400): \(message)")
        case 300..<400:
            throw SyncError.server("\(serverDescription) redirected the request elsewhere (HTTP \(response.statusCode)); sync sends its token only to the URL it was given, so give the server's own URL")
        default:
            throw SyncError.server("\(serverDescription) answered HTTP \(response.statusCode): \(message)")
        }
    }
}
