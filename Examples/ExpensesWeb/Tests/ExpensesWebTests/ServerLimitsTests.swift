#if Studio
import ExpensesCore
import ExpensesWebApp
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What one client can hold of the server: idle connections are closed, and event streams past
/// the cap are refused, so a thousand open pages cannot take the server's file descriptors.
@Suite struct ServerLimitsTests {
    @Test func anIdleConnectionIsClosed() async throws {
        let app = try TestApp(.sqlite)
        let server = try await ExpensesApplication.build(service: app.service, host: "127.0.0.1", port: 0, limits: ServerLimits(idleTimeout: .seconds(1)))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            // Nothing sent: the server ends the connection, long before the 10 s read timeout.
            let closed = try await RawHTTP.offPool {
                let connection = try RawHTTP.connect(port: port)
                defer { close(connection) }
                return RawHTTP.closesByServer(connection)
            }
            #expect(closed)
        }
    }

    @Test func eventStreamsPastTheCapAreRefused() async throws {
        let app = try TestApp(.sqlite)
        let server = try await ExpensesApplication.build(service: app.service, host: "127.0.0.1", port: 0, limits: ServerLimits(maximumEventStreams: 2))
        try await server.test(.live) { client in
            let port = try #require(client.port)
            let request = "GET /events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            let statuses = try await RawHTTP.offPool {
                let streams = try (0..<2).map { _ in try RawHTTP.open(port: port, request) }
                defer { for (connection, _) in streams { close(connection) } }
                let (third, status) = try RawHTTP.open(port: port, request)
                close(third)
                return streams.map(\.1) + [status]
            }
            #expect(statuses == [200, 200, 503])
        }
    }
}
#endif
