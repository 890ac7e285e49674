#if Studio
import Foundation
import Hummingbird

/// The sign-in page of account mode: `GET /login` asks for a token once; `POST /login` checks it
/// and keeps it in a session cookie (`HttpOnly`: the page's scripts never read it;
/// `SameSite=Strict`: another site's page never sends it) for as long as the token is valid,
/// then sends the browser to the page. A wrong token gets the form again, with 401.
struct LoginController {
    let accounts: Accounts

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        router.get("login") { _, _ in Self.form(status: .ok, error: nil) }
        router.post("login", use: signIn)
        router.post("logout", use: signOut)
    }

    /// Signs the browser out: its session cookie is cleared (the token itself counts until it
    /// expires, or until `expenses-web revoke USER` ends every token of its user).
    @Sendable func signOut(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        var response = Response.redirect(to: "/login", type: .normal)
        response.setCookie(Cookie(name: AccountsMiddleware.cookie, value: "", maxAge: 0, path: "/", secure: accounts.secureCookies, httpOnly: true, sameSite: .strict))
        return response
    }

    struct Form: Decodable {
        var token: String?
    }

    @Sendable func signIn(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let form = try await URLEncodedFormDecoder().decode(Form.self, from: String(buffer: try await request.body.collect(upTo: 8192)))
        let token = (form.token ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard await accounts.user(of: token) != nil else {
            return Self.form(status: .unauthorized, error: "That token is not one of this server's, or it has expired.")
        }
        var response = Response.redirect(to: "/", type: .normal)
        // A token is base64url and dots, always a valid cookie value; one that is not was refused above.
        response.setCookie(try Cookie.validated(name: AccountsMiddleware.cookie, value: token, path: "/", secure: accounts.secureCookies, httpOnly: true, sameSite: .strict))
        return response
    }

    static func form(status: HTTPResponse.Status, error: String?) -> Response {
        let message = error.map { "<p role=\"alert\">\($0)</p>" } ?? ""
        let html = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in — Expenses</title></head>
        <body><h1>Sign in</h1>\(message)
        <form method="post" action="/login"><label>Token <input name="token" type="password" autocomplete="off" required></label>
        <button>Sign in</button></form>
        <p>Ask the server's operator for a token (<code>expenses-web token USER</code>).</p></body></html>
        """
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
#endif
