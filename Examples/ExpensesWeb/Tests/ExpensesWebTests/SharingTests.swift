#if Studio
import ExpensesCore
@testable import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import OpenSwiftData
import OpenSwiftDataSync
import Testing

/// Ledgers shared between users of the web app: a share is an offer the page lists until its
/// grantee accepts it, and a reader's every route that would change the ledger answers 403 —
/// the library refuses the save, the app only says so.
@Suite struct SharingTests {
    typealias Token = String

    /// Alice's device with the ledger "Trip" (a taxi of 20 in it), synced through `url`, and
    /// shared from there with each of `grantees`.
    static func aliceShares(_ grantees: [(String, SyncShare.Role)], url: URL, token: Token) async throws {
        let device = try SyncRouteTests.device()
        let client = try SyncClient(container: device, transport: HTTPSyncTransport(url: url, token: token))
        let context = ModelContext(device)
        let trip = Ledger(name: "Trip")
        context.insert(trip)
        context.insert(Expense(amount: 20, note: "Taxi", ledger: trip))
        try context.save()
        try await client.sync()
        for (user, role) in grantees { try context.share(trip, with: user, role: role) }
        try context.save()
        #expect(try await client.sync().refused.isEmpty)
    }

    /// The offer's root on `user`'s page.
    static func offeredRoot(_ page: String) -> String? {
        page.firstMatch(of: /name="root" value="([0-9A-F-]+)"/).map { String($0.1) }
    }

    @Test(arguments: WebStore.available)
    func aReaderCannotChangeASharedLedgerThroughAnyRoute(_ store: WebStore) async throws {
        let app = try TestApp(accounts: store)
        let accounts = try await Accounts(secret: AccountsTests.secret)
        let server = try await ExpensesApplication.build(service: app.service, accounts: accounts, host: "127.0.0.1", port: 0)
        let alice = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
        let bob = AccountsTests.bearer(try await accounts.token(for: "bob", expiresIn: .seconds(3600)))
        let carol = AccountsTests.bearer(try await accounts.token(for: "carol", expiresIn: .seconds(3600)))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/sync"))
            try await Self.aliceShares([("bob", .reader), ("carol", .writer)], url: url, token: alice)

            // Offered, nothing of it is bob's yet: not his list, not his totals; his page offers it.
            #expect(try await client.send(.get, "/api/expenses", headers: bob).json(ExpenseListJSON.self).count == 0)
            #expect(try await client.send(.get, "/api/summary", headers: bob).json(SummaryJSON.self).total == 0)
            let page = try await client.send(.get, "/", headers: bob).text
            #expect(page.contains("Offered to you") && page.contains("<td>Trip</td><td>alice</td><td>reader</td>"))
            let root = try #require(Self.offeredRoot(page))
            let accept = try await client.send(.post, "/offers/answer", body: "root=\(root)&owner=alice&answer=accept", contentType: "application/x-www-form-urlencoded", headers: bob)
            #expect(accept.status == .seeOther)
            #expect(try await client.send(.get, "/api/summary", headers: bob).json(SummaryJSON.self).total == 20)

            // Accepted as a reader: he reads it, and every change is refused with 403.
            let list = try await client.send(.get, "/api/expenses", headers: bob).json(ExpenseListJSON.self)
            #expect(list.expenses.map { "\($0.note ?? "") \($0.ledger ?? "")" } == ["Taxi Trip"])
            let id = try #require(list.expenses.first?.id)
            #expect(try await client.send(.put, "/api/expenses/\(id)", body: #"{"amount": 1, "note": "Mine now"}"#, headers: bob).status == .forbidden)
            #expect(try await client.send(.delete, "/api/expenses/\(id)", headers: bob).status == .forbidden)
            #expect(try await client.send(.post, "/expenses/\(id)/delete", contentType: "application/x-www-form-urlencoded", headers: bob).status == .forbidden)
            #expect(try await client.send(.post, "/api/expenses", body: #"{"amount": 5, "note": "Snack", "ledger": "Trip"}"#, headers: bob).status == .forbidden)
            // His own expenses he still adds.
            #expect(try await client.send(.post, "/api/expenses", body: #"{"amount": 5, "note": "Snack"}"#, headers: bob).status == .created)

            // Carol, a writer, changes it once she accepts.
            let carolsRoot = try #require(Self.offeredRoot(try await client.send(.get, "/", headers: carol).text))
            _ = try await client.send(.post, "/offers/answer", body: "root=\(carolsRoot)&owner=alice&answer=accept", contentType: "application/x-www-form-urlencoded", headers: carol)
            #expect(try await client.send(.put, "/api/expenses/\(id)", body: #"{"amount": 22, "note": "Taxi and tip"}"#, headers: carol).status == .ok)
        }
        // Nothing bob tried reached alice's ledger; carol's edit did.
        let alices = ModelContext(try ExpensesStore.container(app.configuration), owner: "alice", includingGrants: true)
        #expect(try alices.fetch(FetchDescriptor<Expense>()).map { "\($0.note ?? "") \($0.amount)" } == ["Taxi and tip 22.0"])
    }

    @Test func aDeclinedOfferIsGoneAndNothingOfItWasShown() async throws {
        let app = try TestApp(accounts: .sqlite)
        let accounts = try await Accounts(secret: AccountsTests.secret)
        let server = try await ExpensesApplication.build(service: app.service, accounts: accounts, host: "127.0.0.1", port: 0)
        let alice = try await accounts.token(for: "alice", expiresIn: .seconds(3600))
        let bob = AccountsTests.bearer(try await accounts.token(for: "bob", expiresIn: .seconds(3600)))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let url = try #require(URL(string: "http://127.0.0.1:\(port)/sync"))
            try await Self.aliceShares([("bob", .reader)], url: url, token: alice)
            let root = try #require(Self.offeredRoot(try await client.send(.get, "/", headers: bob).text))
            // Another's answer names the offer but not the user: it is not theirs to answer.
            let wrong = try await client.send(.post, "/offers/answer", body: "root=\(root)&owner=alice&answer=accept", contentType: "application/x-www-form-urlencoded",
                                              headers: AccountsTests.bearer(try await accounts.token(for: "mallory", expiresIn: .seconds(3600))))
            #expect(wrong.status == .notFound)
            _ = try await client.send(.post, "/offers/answer", body: "root=\(root)&owner=alice&answer=decline", contentType: "application/x-www-form-urlencoded", headers: bob)
            let page = try await client.send(.get, "/", headers: bob).text
            #expect(!page.contains("Offered to you") && !page.contains("Trip"))
            #expect(try await client.send(.get, "/api/expenses", headers: bob).json(ExpenseListJSON.self).count == 0)
        }
        #expect(try ModelContext(try ExpensesStore.container(app.configuration)).fetchCount(FetchDescriptor<SyncShare>()) == 0)
    }
}
#endif
