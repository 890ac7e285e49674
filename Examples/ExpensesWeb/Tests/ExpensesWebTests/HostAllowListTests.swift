#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import Prometheus
import Testing

/// Requests under another site's host name (DNS rebinding) reach nothing: every route answers
/// only to loopback names and the names the server is given.
@Suite struct HostAllowListTests {
    static func request(_ method: String, _ path: String, host: String, body: String = "") -> String {
        "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nOrigin: http://\(host)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    @Test func anotherHostNameIsRefusedOnEveryRoute() async throws {
        let app = try TestApp(.sqlite)
        let server = try await ExpensesApplication.build(service: app.service, metrics: PrometheusCollectorRegistry(), syncToken: "t", host: "127.0.0.1", port: 0, allowedHosts: ["expenses.example"])
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let body = "{\"amount\": 99, \"note\": \"rebound\"}"
            for (method, path) in [("POST", "/api/expenses"), ("GET", "/"), ("GET", "/api/expenses"), ("GET", "/events"), ("POST", "/sync"), ("GET", "/health"), ("GET", "/metrics")] {
                let request = Self.request(method, path, host: "evil.example", body: method == "POST" ? body : "")
                #expect(try await RawHTTP.offPool { try RawHTTP.status(port: port, request) } == 421, "\(method) \(path)")
            }
            // A name it was given, and loopback ones, are served.
            for host in ["expenses.example:8080", "localhost:\(port)"] {
                let request = Self.request("GET", "/health", host: host)
                #expect(try await RawHTTP.offPool { try RawHTTP.status(port: port, request) } == 200, "\(host)")
            }
        }
        #expect(try app.freshViewModel().expenses().allSatisfy { $0.note != "rebound" })
    }

    @Test func theJSONCheckHoldsForEverySpellingOfAnAPIPath() async throws {
        let app = try TestApp(.sqlite)
        try await app.test { client in
            for path in ["//api/expenses", "/api//expenses", "///api/expenses"] {
                let response = try await client.send(.post, path, body: "amount=99&note=form", contentType: "application/x-www-form-urlencoded")
                #expect(response.status != .created, "\(path)")
            }
        }
        #expect(try app.freshViewModel().expenses().allSatisfy { $0.note != "form" })
    }
}
#endif
