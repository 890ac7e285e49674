#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Bad input to the API: each is a clear JSON error with the right status and the field named,
/// and nothing is written (a fresh container still reads the six seeded expenses).
@Suite struct BadInputTests {
    /// A request, the status it must get, and the field its error must name.
    struct Case: Sendable, CustomTestStringConvertible {
        let method: HTTPRequest.Method
        let uri: String
        let body: String?
        let status: HTTPResponse.Status
        let field: String?
        let testDescription: String
    }

    static let cases: [Case] = [
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 12.5,", status: .badRequest, field: nil, testDescription: "malformed JSON"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": -5}", status: .badRequest, field: "amount", testDescription: "negative amount"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 0}", status: .badRequest, field: "amount", testDescription: "zero amount"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": \"twelve\"}", status: .badRequest, field: "amount", testDescription: "non-numeric amount"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 1e300}", status: .badRequest, field: "amount", testDescription: "huge amount"),
        Case(method: .post, uri: "/api/expenses", body: "{\"note\": \"no amount\"}", status: .badRequest, field: "amount", testDescription: "missing amount"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 5, \"category\": \"Yachts\"}", status: .badRequest, field: "category", testDescription: "unknown category"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 5, \"date\": \"31/12/2026\"}", status: .badRequest, field: "date", testDescription: "bad date"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 5, \"note\": \"\(String(repeating: "n", count: 501))\"}", status: .badRequest, field: "note", testDescription: "note too long"),
        Case(method: .post, uri: "/api/expenses", body: "{\"amount\": 5, \"note\": \"\(String(repeating: "x", count: 40_000))\"}", status: .contentTooLarge, field: nil, testDescription: "huge payload"),
        Case(method: .put, uri: "/api/expenses/not-an-id", body: "{\"amount\": 5}", status: .notFound, field: "id", testDescription: "update of an unknown id"),
        Case(method: .delete, uri: "/api/expenses/AAAA", body: nil, status: .notFound, field: "id", testDescription: "delete of an unknown id"),
        Case(method: .get, uri: "/api/expenses?limit=0", body: nil, status: .badRequest, field: "limit", testDescription: "limit out of range"),
        Case(method: .get, uri: "/api/expenses?offset=-1", body: nil, status: .badRequest, field: "offset", testDescription: "negative offset"),
        Case(method: .get, uri: "/api/expenses?from=2026-05-02&to=2026-05-01", body: nil, status: .badRequest, field: "from", testDescription: "from after to"),
        Case(method: .get, uri: "/api/expenses?category=Yachts", body: nil, status: .badRequest, field: "category", testDescription: "unknown category filter"),
        Case(method: .post, uri: "/api/categories", body: "{\"name\": \"  \"}", status: .badRequest, field: "name", testDescription: "empty category name"),
        Case(method: .post, uri: "/api/categories", body: "{\"name\": \"Food\"}", status: .conflict, field: "name", testDescription: "existing category"),
    ]

    @Test(arguments: cases)
    func isAClearErrorAndNothingIsWritten(_ bad: Case) async throws {
        let app = try TestApp(.sqlite)
        try await app.test { client in
            let response = try await client.send(bad.method, bad.uri, body: bad.body)
            #expect(response.status == bad.status)
            if bad.status != .contentTooLarge || !response.body.readableBytesView.isEmpty {
                let error = try response.error
                #expect(!error.message.isEmpty)
                #expect(error.field == bad.field)
            }
        }
        let fresh = try app.freshViewModel()
        #expect(try fresh.total().count == 6)
        #expect(try fresh.categoryTotals().count == 5)
    }
}
#endif
