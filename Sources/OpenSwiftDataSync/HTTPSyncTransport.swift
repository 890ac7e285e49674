import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reaches a sync server over HTTP: each request is a `POST` of JSON to `url`, with the token,
/// if any, as a bearer token.
///
/// ```swift
/// let transport = HTTPSyncTransport(url: URL(string: "https://example.com/sync")!, token: token)
/// ```
///
/// The token is sent only in the `Authorization` header and never appears in an error. Errors
/// name the server: ``SyncError/server(_:)`` when it cannot be reached or fails,
/// ``SyncError/unauthorized(_:)`` for a refused token, ``SyncError/schemaMismatch(local:remote:)``
/// or ``SyncError/malformed(_:)`` as the server explains.
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

    /// Posts `body` and returns the reply's body (see the errors above).
    public func send(_ body: Data) async throws -> Data {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw SyncError.server("could not reach \(serverDescription) (\(error.localizedDescription))")
        }
        guard let http = response as? HTTPURLResponse else {
            throw SyncError.server("\(serverDescription) did not answer over HTTP")
        }
        // The server's explanation, shortened: it is shown, not trusted.
        let message = String(decoding: data.prefix(500), as: UTF8.self)
        switch http.statusCode {
        case 200:
            return data
        case 401, 403:
            throw SyncError.unauthorized("\(serverDescription) refused the sync token (HTTP \(http.statusCode))")
        case 409:
            throw SyncError.server("\(serverDescription) has another schema: \(message)")
        case 400, 413:
            throw SyncError.malformed("\(serverDescription) refused the request (HTTP \(http.statusCode)): \(message)")
        default:
            throw SyncError.server("\(serverDescription) answered HTTP \(http.statusCode): \(message)")
        }
    }
}
