#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// What an attacker can send: text that tries to break out of the page's HTML, requests another
/// site's page makes a browser send, and requests that make the store fail — answered without
/// running their script, without writing, and without telling internals.
@Suite struct WebSecurityTests {
    static let form = "application/x-www-form-urlencoded"

    @Test func textIsEscapedPerUnicodeScalarInTheHTML() async throws {
        let app = try TestApp(.sqlite)
        // A quote followed by a combining mark is one Character but still a quote to the browser.
        let note = "x\"\u{301} autofocus onfocus=alert(1) x=\"<b>'"
        try await app.test { client in
            let created = try await client.send(.post, "/api/expenses", json: ExpenseInputJSON(amount: 1.5, note: note))
            #expect(created.status == .created)
            let page = try await client.send(.get, "/?search=" + (note.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
            // (Kept out of #expect's own source text, which a combining mark confuses.)
            let raw = "\"\u{301} autofocus", escaped = "x&quot;\u{301} autofocus onfocus=alert(1) x=&quot;&lt;b&gt;&#39;"
            let html = page.text
            #expect(!html.contains(raw))
            #expect(!html.contains("<b>"))
            #expect(html.contains(escaped))
            // Ranked, the note comes in runs, the match marked: every run is escaped all the same.
            let ranked = try await client.send(.get, "/?search=autofocus&order=best").text
            #expect(ranked.contains("<mark>autofocus</mark> onfocus=alert(1) x=&quot;&lt;b&gt;&#39;"))
            #expect(!ranked.contains(raw) && !ranked.contains("<b>"))
        }
    }

    @Test func requestsFromAnotherSitesPagesAreRefusedAndWriteNothing() async throws {
        let app = try TestApp(.sqlite)
        try await app.test { client in
            let forged = try await client.send(.post, "/expenses", body: "amount=99&note=forged", contentType: Self.form, headers: [.origin: "https://evil.example"])
            #expect(forged.status == .forbidden)
            let marked = try await client.send(.post, "/expenses", body: "amount=99&note=forged", contentType: Self.form, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"])
            #expect(marked.status == .forbidden)
            let deleted = try await client.send(.delete, "/api/expenses/1", headers: [.origin: "null"])
            #expect(deleted.status == .forbidden)
            // The API takes JSON only: a form encoding (what another site's form can send) is refused.
            let asForm = try await client.send(.post, "/api/expenses", body: "amount=99", contentType: Self.form)
            #expect(asForm.status == .unsupportedMediaType)
            let asText = try await client.send(.post, "/api/categories", body: "{\"name\": \"Forged\"}", contentType: "text/plain")
            #expect(asText.status == .unsupportedMediaType)
        }
        let fresh = try app.freshViewModel()
        #expect(try fresh.total().count == 6)
        #expect(try fresh.categoryTotals().count == 5)
    }

    @Test func aFailingStoreAnswersWithARequestIdNotItsInternals() async throws {
        let seeded = try TestApp(.sqlite)
        let file = try #require(seeded.file)
        _ = try seeded.freshViewModel().total()
        let app = try TestApp.readOnly(seeded)
        try await app.test { client in
            let response = try await client.send(.post, "/api/expenses", json: ExpenseInputJSON(amount: 2))
            #expect(response.status == .internalServerError)
            let message = try response.error.message
            #expect(message.contains("logged as request"), "\(message)")
            #expect(!message.contains(file.path) && !message.contains("SQLite") && !message.contains("store"), "\(message)")
        }
    }
}
#endif
