#if Studio
import Foundation
import Hummingbird

/// The studio's access token, as Jupyter has one: printed in the URL at start, exchanged on first
/// visit for a cookie (`HttpOnly`, `SameSite=Strict`, so another site's page can neither read it
/// nor send it), and required on every request after.
package struct AccessToken: Sendable {
    package let value: String
    /// The cookie's name, from the token's first characters: cookies are not kept per port, and
    /// two studios on one machine must not overwrite each other's.
    let cookie: String

    /// A new random token (32 bytes from the system's generator, in hexadecimal).
    package static func random() -> AccessToken {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return AccessToken(value: bytes.map { String(format: "%02x", $0) }.joined())
    }

    package init(value: String) {
        self.value = value
        cookie = "openswiftdata-studio-" + value.prefix(8).filter { $0.isLetter || $0.isNumber }
    }

    /// Whether `given` is the token, compared in time that does not depend on where they differ.
    func matches(_ given: String) -> Bool {
        let a = Array(given.utf8), b = Array(value.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Lets through requests that carry the token's cookie; answers `?token=` with the cookie and a
/// redirect to the same page without the token; refuses the rest with a page saying what to open.
struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let given = request.uri.queryParameters.get("token") {
            guard token.matches(given) else { return refusal("This link's access token is not this studio's. Open the URL the studio printed when it started.") }
            var headers = HTTPFields()
            headers[.location] = request.uri.path
            headers[.setCookie] = "\(token.cookie)=\(token.value); Path=/; HttpOnly; SameSite=Strict"
            headers[.cacheControl] = "no-store"
            return Response(status: .seeOther, headers: headers)
        }
        guard let cookie = request.cookies[token.cookie], token.matches(cookie.value) else {
            return refusal("Open the URL the studio printed when it started: it carries the access token.")
        }
        return try await next(request, context)
    }

    private func refusal(_ message: String) -> Response {
        Response(
            status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "<!doctype html><meta charset=\"utf-8\"><title>Studio</title><p>\(HTML.escape(message))</p>")))
    }
}
#endif
