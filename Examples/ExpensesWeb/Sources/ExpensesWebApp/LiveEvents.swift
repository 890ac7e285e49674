import Foundation
import Hummingbird
import NIOCore
import OpenSwiftData
import ServiceLifecycle

/// `GET /events`: server-sent events telling an open page that the expenses changed, so it
/// reloads its lists without the person reloading the page. The page's `EventSource` connects;
/// each time the service's ``ExpensesService/changes`` counter moves (a save on this server, the
/// command-line app on the same file, another server on the same database) one `changed` event
/// goes out.
///
/// A stream lasts at most ``lifetime`` (the browser connects again after `retry`), and ends at
/// once when the server shuts down gracefully, so a page left open never holds up a stop.
struct LiveEvents {
    let service: ExpensesService

    /// The longest one event stream stays open.
    static let lifetime = Duration.seconds(15)

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        router.get("events", use: events)
    }

    @Sendable func events(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        let observer = service.changes
        let start = observer.eventCounter
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        continuation.yield(ByteBuffer(string: "retry: 500\n: connected\n\n"))
        let forward = Task {
            for await count in Observations({ observer.eventCounter }) where count > start {
                continuation.yield(ByteBuffer(string: "event: changed\ndata: \(count)\n\n"))
            }
        }
        let end = Task {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.lifetime) }
            continuation.finish()
        }
        continuation.onTermination = { _ in
            forward.cancel()
            end.cancel()
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody(asyncSequence: stream))
    }
}
