import Foundation
import Testing
@testable import OpenSwiftDataSync

@Suite("Sync's HTTP transport: the token stays with its server")
struct SyncHTTPTransportTests {
    @Test("a redirect to another origin is not followed, and the token never reaches it")
    func crossOriginRedirectKeepsTheToken() async throws {
        let elsewhere = try LoopbackHTTPServer { _ in .init(status: 200, body: Data("{}".utf8)) }
        defer { elsewhere.stop() }
        let redirecting = try LoopbackHTTPServer { _ in
            .init(status: 307, headers: ["Location": "http://127.0.0.1:\(elsewhere.port)/sync"])
        }
        defer { redirecting.stop() }
        let transport = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(redirecting.port)/sync")), token: "secret-token")
        await #expect(throws: SyncError.self) { try await transport.send(Data("{}".utf8)) }
        #expect(redirecting.requests.count == 1)
        #expect(redirecting.requests.first?.lowercased().contains("authorization: bearer secret-token") == true)
        #expect(!elsewhere.requests.contains { $0.lowercased().contains("secret-token") })
    }

    @Test("plain http is refused before anything is sent, except to a loopback host", arguments: [
        ("http://sync.example.com/sync", false), ("http://192.168.1.20:8080/sync", false), ("ftp://127.0.0.1/sync", false),
        ("https://sync.example.com/sync", true), ("http://127.0.0.1:8080/sync", true), ("http://localhost/sync", true), ("http://[::1]:8080/sync", true),
    ])
    func plainHTTPOnlyOnLoopback(url: String, allowed: Bool) async throws {
        #expect(HTTPSyncTransport.isSecure(try #require(URL(string: url))) == allowed)
        if !allowed {
            let transport = HTTPSyncTransport(url: try #require(URL(string: url)), token: "secret-token")
            await #expect(throws: SyncError.server("\(transport.serverDescription) is not reached over https (plain http is only for a loopback host); nothing was sent")) {
                try await transport.send(Data("{}".utf8))
            }
        }
    }

    @Test("a request under way ends when its task is cancelled, as a running client's long poll does when it stops", .timeLimit(.minutes(1)))
    func aCancelledRequestEnds() async throws {
        let release = DispatchSemaphore(value: 0)
        // The host holds the request until the test ends.
        let host = try LoopbackHTTPServer { _ in
            release.wait()
            return LoopbackHTTPServer.Answer(status: 200)
        }
        defer {
            release.signal()
            host.stop()
        }
        let transport = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(host.port)/sync")), token: "t")
        let sending = Task { try await transport.send(Data("{}".utf8)) }
        while host.requests.isEmpty { await Task.yield() }
        sending.cancel()
        await #expect(throws: CancellationError.self) { try await sending.value }
    }

    @Test("a refused record comes back from the host's answer as the same refusal")
    func refusalsTravel() async throws {
        let refusal = SyncRefusal(entity: "Entry", id: UUID(), reason: "amount must be finite")
        let host = try LoopbackHTTPServer { _ in
            let error = SyncError.refused(refusal)
            return .init(status: error.httpStatus, headers: ["Content-Type": "application/json"], body: error.httpBody)
        }
        defer { host.stop() }
        let transport = HTTPSyncTransport(url: try #require(URL(string: "http://127.0.0.1:\(host.port)/sync")), token: "t")
        await #expect(throws: SyncError.refused(refusal)) { try await transport.send(Data("{}".utf8)) }
    }
}
