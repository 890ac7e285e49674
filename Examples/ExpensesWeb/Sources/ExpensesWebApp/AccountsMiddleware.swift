#if Studio
import Foundation
import HTTPTypes
import Hummingbird

/// In account mode, every route but `/health`, `/metrics` and the sign-in page needs a user: a
/// token in `Authorization: Bearer TOKEN` (the API, devices' sync) or in the session cookie the
/// sign-in page sets (the page). A request without a valid one gets 401 and changes nothing — a
/// page request is sent to the sign-in page instead. The request then runs as that user
/// (``RequestUser``).
struct AccountsMiddleware: RouterMiddleware {
    typealias Context = ExpensesRequestContext
    let accounts: Accounts

    /// The session cookie's name.
    static let cookie = "expenses_session"
    /// Paths open without a user.
    static let open: Set<String> = ["health", "metrics", "login", "logout"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let first = request.uri.path.split(separator: "/").first.map(String.init) ?? ""
        if Self.open.contains(first) { return try await next(request, context) }
        guard let token = Self.token(in: request), let user = await accounts.user(of: token) else {
            if request.method == .get, first.isEmpty {
                return .redirect(to: "/login", type: .normal)
            }
            throw APIError(.unauthorized, "Sign in: send Authorization: Bearer TOKEN with a token of this server's (expenses-web token USER).")
        }
        return try await RequestUser.$current.withValue(user) {
            try await next(request, context)
        }
    }

    /// The token a request carries: the bearer token, else the session cookie.
    static func token(in request: Request) -> String? {
        if let authorization = request.headers[.authorization] {
            return authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst("Bearer ".count)) : nil
        }
        return request.cookies[cookie]?.value
    }
}
#endif
