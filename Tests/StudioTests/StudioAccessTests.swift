#if Studio
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import OpenSwiftData
@testable import StudioApp

/// Safe by construction: every page behind the access token, the token exchanged for a cookie
/// that other sites cannot send, and every value from the store escaped.
@Suite struct StudioAccessTests {
    @Test func pagesNeedTheTokenAndTheTokenBecomesACookie() async throws {
        let fixture = try StudioFixture(.file)
        try await StudioClient.with(fixture.browser) { client in
            for path in ["/schema", "/entity/Book", "/history", "/statistics", "/events"] {
                let page = try await client.get(path, authorised: false)
                #expect(page.status == .unauthorized, "\(path) answered without the token")
                #expect(pageText(page.html).contains("Open the URL the studio printed"))
            }
            let wrong = try await client.get("/schema?token=\(String(repeating: "0", count: 64))", authorised: false)
            #expect(wrong.status == .unauthorized)
            try await client.client.execute(uri: "/schema?token=\(client.token.value)", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/schema")
                let cookie = try #require(response.headers[.setCookie])
                #expect(cookie.hasPrefix("\(client.token.cookie)=\(client.token.value);"))
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            }
            #expect(try await client.get("/schema").status == .ok)
            let posted = try await client.post("/entity/Book/1/delete", form: [], authorised: false)
            #expect(posted.status == .unauthorized)
        }
    }

    /// Another page on the same machine — another port of 127.0.0.1 is the same site, so its
    /// requests carry the cookie — gets nothing: a change from another origin, or naming none,
    /// is refused, and so is any request its browser says came from another site.
    @Test func pagesOfOtherOriginsAreRefusedWithTheCookie() async throws {
        let fixture = try StudioFixture(.file, allowsEdits: true)
        let key = try #require(try fixture.browser.page(BrowseQuery(entity: "Book")).rows.first?.key)
        try await StudioClient.with(fixture.browser) { client in
            for origin in ["http://127.0.0.1:9999", "http://localhost:8080", "null", "https://localhost"] {
                let edit = try await client.post("/entity/Book/\(key)/edit", form: [("property", "title"), ("value", "Taken")], origin: origin)
                #expect(edit.status == .forbidden, "\(origin)")
            }
            let unnamed = try await client.post("/entity/Book/\(key)/delete", form: [], origin: nil)
            #expect(unnamed.status == .forbidden)
            let sameSite = try await client.post("/entity/Book/\(key)/delete", form: [], site: "same-site")
            #expect(sameSite.status == .forbidden)
            var headers: HTTPFields = [.cookie: "\(client.token.cookie)=\(client.token.value)"]
            headers[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
            let read = try await client.client.execute(uri: "/entity/Book", method: .get, headers: headers) { $0.status }
            #expect(read == .forbidden)
            // The studio's own page still works, and nothing above changed the row.
            #expect(try await client.get("/entity/Book").status == .ok)
        }
        #expect(try fixture.browser.row("Book", key: key)?.values["title"] != .text("Taken", truncated: false))
        #expect(try fixture.browser.row("Book", key: key) != nil)
    }

    @Test func valuesAndNamesFromTheStoreAreEscaped() async throws {
        let fixture = try StudioFixture(.file)
        let html = try await StudioClient.with(fixture.browser) { try await $0.get("/entity/Book?fp=title&fo=contains&fv=script").html }
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(&#39;Book 09&#39;)&lt;/script&gt;"))
        // A condition's value comes back escaped in the form.
        let form = try await StudioClient.with(fixture.browser) { try await $0.get("/entity/Book?fp=title&fo=equals&fv=%22%3E%3Cimg%20src%3Dx%3E").html }
        #expect(!form.contains("<img src=x>"))
        #expect(form.contains("value=\"&quot;&gt;&lt;img src=x&gt;\""))
    }

    @Test func theTokenIsLongAndComparedWhole() {
        let token = AccessToken.random()
        #expect(token.value.count == 64)
        #expect(token.value != AccessToken.random().value)
        #expect(token.matches(token.value))
        #expect(!token.matches(String(token.value.dropLast())))
        #expect(!token.matches(String(token.value.dropLast()) + "x"))
    }
}
#endif
