#if Studio
import ExpensesCore
@testable import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Account mode: every user signs in with a token this server signed, and sees, changes and
/// syncs only their own data.
@Suite struct AccountsTests {
    static let secret = "an example secret of at least thirty-two bytes"

    static func bearer(_ token: String) -> HTTPFields { [.authorization: "Bearer \(token)"] }

    /// A JWT with the given header and payload, signed with nothing (or a made-up signature).
    static func unsigned(header: String, payload: String, signature: String = "") -> String {
        func encoded(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return "\(encoded(header)).\(encoded(payload)).\(signature)"
    }

    @Test(arguments: WebStore.available)
    func aMissingExpiredForeignOrUnsignedTokenIsRefusedAndChangesNothing(_ store: WebStore) async throws {
        let app = try TestApp(accounts: store)
        let accounts = try await Accounts(secret: Self.secret)
        let alice = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
        let expired = try await accounts.token(for: "alice", expiringAt: Date(timeIntervalSinceNow: -60))
        let foreign = try await Accounts(secret: Self.secret + " but another").token(for: "alice", expiresIn: .seconds(3600))
        let far = Int(Date(timeIntervalSinceNow: 3600).timeIntervalSince1970)
        let none = Self.unsigned(header: #"{"alg":"none","typ":"JWT"}"#, payload: #"{"sub":"alice","exp":\#(far)}"#)
        let claimed = Self.unsigned(header: #"{"alg":"HS256","typ":"JWT"}"#, payload: #"{"sub":"alice","exp":\#(far)}"#, signature: "c2lnbmF0dXJl")
        try await app.test(accounts: accounts) { client in
            let body = #"{"amount": 4, "note": "Tea"}"#
            for headers in [HTTPFields()] + [expired, foreign, none, claimed, "", "alice"].map(Self.bearer) + [[.authorization: alice]] {
                #expect(try await client.send(.post, "/api/expenses", body: body, headers: headers).status == .unauthorized)
                #expect(try await client.send(.get, "/api/expenses", headers: headers).status == .unauthorized)
                #expect(try await client.send(.post, "/sync", body: "{}", headers: headers).status == .unauthorized)
            }
            // The page sends a visitor without a session to sign in; health stays open.
            let page = try await client.send(.get, "/")
            #expect(page.status == .seeOther && page.headers[.location] == "/login")
            #expect(try await client.send(.get, "/health").status == .ok)
            #expect(try await client.send(.get, "/api/expenses", headers: Self.bearer(alice)).json(ExpenseListJSON.self).count == 0)
        }
        #expect(try ModelContext(try ExpensesStore.container(app.configuration)).fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test(arguments: WebStore.available)
    func eachUserSeesAndChangesOnlyTheirOwnExpenses(_ store: WebStore) async throws {
        let app = try TestApp(accounts: store)
        let accounts = try await Accounts(secret: Self.secret)
        let alice = Self.bearer(try await accounts.token(for: "alice", expiresIn: .seconds(3600)))
        let bob = Self.bearer(try await accounts.token(for: "bob", expiresIn: .seconds(3600)))
        try await app.test(accounts: accounts) { client in
            // Both make a category "Food": one each.
            for user in [alice, bob] {
                #expect(try await client.send(.post, "/api/categories", body: #"{"name": "Food"}"#, headers: user).status == .created)
            }
            let created = try await client.send(.post, "/api/expenses", body: #"{"amount": 12.5, "note": "Alice's lunch", "category": "Food"}"#, headers: alice)
            #expect(created.status == .created)
            let id = try created.json(ExpenseJSON.self).id

            #expect(try await client.send(.get, "/api/expenses", headers: alice).json(ExpenseListJSON.self).expenses.map(\.note) == ["Alice's lunch"])
            #expect(try await client.send(.get, "/api/expenses", headers: bob).json(ExpenseListJSON.self).count == 0)
            // Her expense is not there for bob: not to read, change or delete.
            #expect(try await client.send(.get, "/api/expenses/\(id)", headers: bob).status == .notFound)
            #expect(try await client.send(.put, "/api/expenses/\(id)", body: #"{"amount": 1, "note": "Bob's now"}"#, headers: bob).status == .notFound)
            #expect(try await client.send(.delete, "/api/expenses/\(id)", headers: bob).status == .notFound)
            #expect(try await client.send(.get, "/api/expenses/\(id)", headers: alice).json(ExpenseJSON.self).note == "Alice's lunch")
            let totals = try await client.send(.get, "/api/categories", headers: bob).json([CategoryTotal].self)
            #expect(totals.map(\.name) == ["Food"] && totals.map(\.total) == [0])
        }
    }

    @Test func thePageAsksForATokenOnceAndKeepsASession() async throws {
        let app = try TestApp(accounts: .sqlite)
        let accounts = try await Accounts(secret: Self.secret)
        let token = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
        try await app.test(accounts: accounts) { client in
            _ = try await client.send(.post, "/api/expenses", body: #"{"amount": 3, "note": "Green tea"}"#, headers: Self.bearer(token))
            #expect(try await client.send(.get, "/login").text.contains("name=\"token\""))
            let wrong = try await client.send(.post, "/login", body: "token=nonsense", contentType: "application/x-www-form-urlencoded")
            #expect(wrong.status == .unauthorized && wrong.headers[.setCookie] == nil)
            let signedIn = try await client.send(.post, "/login", body: "token=\(token)", contentType: "application/x-www-form-urlencoded")
            #expect(signedIn.status == .seeOther && signedIn.headers[.location] == "/")
            let cookie = try #require(signedIn.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let session = try #require(cookie.split(separator: ";").first.map(String.init))
            let page = try await client.send(.get, "/", headers: [.cookie: session])
            #expect(page.status == .ok && page.text.contains("Green tea"))
        }
    }

    @Test(arguments: WebStore.available)
    func devicesSyncOnlyTheirUsersData(_ store: WebStore) async throws {
        let app = try TestApp(accounts: store)
        let accounts = try await Accounts(secret: Self.secret)
        let server = try await ExpensesApplication.build(service: app.service, accounts: accounts, host: "127.0.0.1", port: 0)
        let aliceToken = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
        let bobToken = try await accounts.token(for: "bob", expiresIn: .seconds(3600))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/sync"))
            let aliceDevice = try SyncRouteTests.device(), bobDevice = try SyncRouteTests.device()
            let aliceClient = try SyncClient(container: aliceDevice, transport: HTTPSyncTransport(url: url, token: aliceToken))
            let bobClient = try SyncClient(container: bobDevice, transport: HTTPSyncTransport(url: url, token: bobToken))
            let context = ModelContext(aliceDevice)
            context.insert(Expense(amount: 9, note: "Alice's cinema"))
            try context.save()
            #expect(try await aliceClient.sync().sent == 1)
            #expect(try await bobClient.sync() == SyncClient.Result(sent: 0, received: 0))
            #expect(try ModelContext(bobDevice).fetchCount(FetchDescriptor<Expense>()) == 0)
            // Her page shows it; bob's API does not.
            let list = try await client.send(.get, "/api/expenses", headers: Self.bearer(aliceToken)).json(ExpenseListJSON.self)
            #expect(list.expenses.map(\.note) == ["Alice's cinema"])
            #expect(try await client.send(.get, "/api/expenses", headers: Self.bearer(bobToken)).json(ExpenseListJSON.self).count == 0)
        }
    }

    @Test func signingOutClearsTheSessionAndRevokingEndsEveryTokenGivenBefore() async throws {
        let app = try TestApp(accounts: .sqlite)
        let revocations = try AccountRevocations(beside: app.configuration)
        let accounts = try await Accounts(secret: Self.secret, revocations: revocations, secureCookies: true)
        let token = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
        try await app.test(accounts: accounts) { client in
            // Served over https (a proxy in front), the session cookie is Secure.
            let signedIn = try await client.send(.post, "/login", body: "token=\(token)", contentType: "application/x-www-form-urlencoded")
            let cookie = try #require(signedIn.headers[.setCookie])
            #expect(cookie.contains("Secure") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let session = try #require(cookie.split(separator: ";").first.map(String.init))
            #expect(try await client.send(.get, "/", headers: [.cookie: session]).text.contains("action=\"/logout\""))
            // Signing out clears the cookie.
            let out = try await client.send(.post, "/logout", contentType: "application/x-www-form-urlencoded", headers: [.cookie: session])
            #expect(out.status == .seeOther && out.headers[.location] == "/login")
            let cleared = try #require(out.headers[.setCookie])
            #expect(cleared.hasPrefix("\(AccountsMiddleware.cookie)=;") && cleared.contains("Max-Age=0"))

            // Signed out everywhere: every token given before no longer counts; a new one does.
            #expect(try await client.send(.get, "/api/expenses", headers: Self.bearer(token)).status == .ok)
            try await revocations.revoke("alice", at: Date().addingTimeInterval(1))
            #expect(try await client.send(.get, "/api/expenses", headers: Self.bearer(token)).status == .unauthorized)
            #expect(try await client.send(.get, "/", headers: [.cookie: session]).status == .seeOther)
            let later = try await accounts.token(for: "alice", expiringAt: Date().addingTimeInterval(3600), issuedAt: Date().addingTimeInterval(2))
            #expect(try await client.send(.get, "/api/expenses", headers: Self.bearer(later)).status == .ok)
        }
    }

    @Test func metricsNeedTheirOwnTokenInAccountMode() async throws {
        let accounts = try await Accounts(secret: Self.secret)
        // Without a metrics token there are none to read: every user's counts are in them.
        let alice = Self.bearer(try await accounts.token(for: "alice", expiresIn: .seconds(60)))
        let closed = try TestApp(accounts: .sqlite)
        try await closed.test(metrics: MetricsEndpointTests.registry, accounts: accounts) { (client: any TestClientProtocol) async throws in
            let status = try await client.send(.get, "/metrics").status
            #expect(status == .notFound)
        }
        let open = try TestApp(accounts: .sqlite)
        try await open.test(metrics: MetricsEndpointTests.registry, metricsToken: "scraper-secret", accounts: accounts) { (client: any TestClientProtocol) async throws in
            let statuses = [
                try await client.send(.get, "/metrics").status,
                try await client.send(.get, "/metrics", headers: alice).status,
                try await client.send(.get, "/metrics", headers: Self.bearer("scraper-secret")).status,
            ]
            #expect(statuses == [.unauthorized, .unauthorized, .ok])
        }
    }

    /// A page's live updates come only when what its user reads changed: another user's save
    /// leaves its stamp as it was.
    @Test(arguments: WebStore.available)
    func aPagesStampMovesOnlyWithItsUsersData(_ store: WebStore) async throws {
        let app = try TestApp(accounts: store)
        func stamp(_ user: String) async throws -> Int {
            try await RequestUser.$current.withValue(user) {
                try await app.service.perform { viewModel, context in try PageStamp.of(viewModel, in: context) }
            }
        }
        func save(_ note: String, as user: String) async throws {
            try await RequestUser.$current.withValue(user) {
                try await app.service.perform { viewModel, _ in _ = viewModel.addExpense(amount: 3, note: note, category: nil) }
            }
        }
        let bobs = try await stamp("bob")
        try await save("Alice's tea", as: "alice")
        #expect(try await stamp("bob") == bobs)
        try await save("Bob's tea", as: "bob")
        #expect(try await stamp("bob") != bobs)
        app.service.container.close()
    }
}
#endif
