#if Studio
import HTTPTypes
import Hummingbird

/// Refuses state-changing requests another site's page makes a browser send (cross-site request
/// forgery): a `POST`, `PUT`, `PATCH` or `DELETE` whose `Origin` is not this server's own, or which
/// a browser marks as cross-site (`Sec-Fetch-Site`), gets 403. Requests without either header
/// (curl, other programs) are not a browser's and pass. The API's bodies must be JSON
/// (`Content-Type: application/json`, else 415): another site's form can send only form
/// encodings, never JSON, without the browser asking this server first.
///
/// This is not authentication: the example has none, so anyone who can reach the server can use it.
struct SameOriginMiddleware: RouterMiddleware {
    typealias Context = ExpensesRequestContext

    static let changing: Set<HTTPRequest.Method> = [.post, .put, .patch, .delete]
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.changing.contains(request.method) else { return try await next(request, context) }
        if let origin = request.headers[.origin] {
            guard let authority = request.head.authority, Self.host(ofOrigin: origin) == authority.lowercased() else {
                throw APIError(.forbidden, "Requests from another site's pages are refused.")
            }
        } else if let site = request.headers[Self.fetchSite], site != "same-origin", site != "none" {
            throw APIError(.forbidden, "Requests from another site's pages are refused.")
        }
        // By the path the router routes (`//api/expenses` is `/api/expenses` to it).
        if request.uri.path.split(separator: "/").first == "api", request.method != .delete {
            let type = request.headers[.contentType]?.lowercased() ?? ""
            guard type.hasPrefix("application/json") else {
                throw APIError(.unsupportedMediaType, "The API takes JSON bodies: send Content-Type: application/json.")
            }
        }
        return try await next(request, context)
    }

    /// `host:port` of an origin (`http://127.0.0.1:8080` → `127.0.0.1:8080`), lower-cased; `nil`
    /// for `null` or anything without a scheme.
    static func host(ofOrigin origin: String) -> String? {
        guard let range = origin.range(of: "://") else { return nil }
        return origin[range.upperBound...].lowercased()
    }
}
#endif
