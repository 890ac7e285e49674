#if Studio
import Foundation
import HTTPTypes
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
///
/// The cookie alone is not enough: a page another program serves on another port of
/// 127.0.0.1 is the same *site* as the studio, so its browser requests carry the cookie too.
/// A request a browser says came from another origin (`Sec-Fetch-Site`) is refused with 403, and
/// so is a changing request (`POST`) whose `Origin` is not the studio's own (the host it was
/// asked for), or that names no origin at all.
struct AccessTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: AccessToken

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = Self.crossOrigin(request) {
            return Response(
                status: .forbidden, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: "<!doctype html><meta charset=\"utf-8\"><title>Studio</title><p>\(HTML.escape(refusal))</p>")))
        }
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

    /// The header browsers send saying whose page a request comes from.
    private static var secFetchSite: HTTPField.Name { HTTPField.Name("Sec-Fetch-Site")! }

    /// Why `request` comes from another origin than the studio's own; `nil` where it does not.
    static func crossOrigin(_ request: Request) -> String? {
        // Browsers say where a request comes from: the studio's own pages, or the address bar.
        if let site = request.headers[secFetchSite], site != "same-origin", site != "none" {
            return "This request came from another site's page (\(site)); the studio answers only its own pages."
        }
        guard request.method != .get, request.method != .head else { return nil }
        let host = request.head.authority ?? ""
        guard let origin = request.headers[.origin] else {
            return "A change must come from the studio's own page (the request names no origin); nothing was changed."
        }
        guard !host.isEmpty, origin.lowercased() == "http://\(host.lowercased())" else {
            return "A change must come from the studio's own page, not from \(origin); nothing was changed."
        }
        return nil
    }

    private func refusal(_ message: String) -> Response {
        Response(
            status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "<!doctype html><meta charset=\"utf-8\"><title>Studio</title><p>\(HTML.escape(message))</p>")))
    }
}
#endif
