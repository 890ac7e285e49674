#if Studio
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
/// In account mode (``perUser``) a page hears only of changes to what its user reads: at each
/// save the stream reads the page's data again through the user's context (``PageStamp``) and
/// sends `changed` only where it moved — another user's save, which the user cannot read, sends
/// nothing, so a page learns neither what others save nor when.
///
/// A stream lasts at most ``lifetime`` (the browser connects again after `retry`), and ends at
/// once when the server shuts down gracefully, so a page left open never holds up a stop.
struct LiveEvents {
    let service: ExpensesService

    /// The longest one event stream stays open.
    static let lifetime = Duration.seconds(15)
    /// The most event streams open at once; more are answered 503 (the page's `EventSource`
    /// tries again after a while). Every stream holds a connection, and connections are
    /// file descriptors, which the store needs too.
    let maximumStreams: Int
    /// The streams open now.
    let open = StreamCount()
    /// Account mode: each page is told only of changes its user reads.
    var perUser = false

    func addRoutes(to router: Router<ExpensesRequestContext>) {
        router.get("events", use: events)
    }

    @Sendable func events(_ request: Request, context: ExpensesRequestContext) async throws -> Response {
        guard open.admit(upTo: maximumStreams) else {
            throw APIError(.serviceUnavailable, "Too many pages are following live changes; this one will try again shortly.")
        }
        let observer = service.changes
        let start = observer.eventCounter
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        continuation.yield(ByteBuffer(string: "retry: 500\n: connected\n\n"))
        let service = self.service
        // The user's page as it is now, to compare each save with (account mode).
        let stamp: (@Sendable () async -> Int?)? = perUser && RequestUser.current != nil
            ? { @Sendable in try? await service.perform { viewModel, context in try PageStamp.of(viewModel, in: context) } }
            : nil
        let first = await stamp?()
        let forward = Task {
            var last = first
            for await count in Observations({ observer.eventCounter }) where count > start {
                if let stamp {
                    let now = await stamp()
                    guard now != last else { continue }
                    last = now
                }
                // No count: it would tell a page how much is saved.
                continuation.yield(ByteBuffer(string: "event: changed\ndata: changed\n\n"))
            }
        }
        let end = Task {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: Self.lifetime) }
            continuation.finish()
        }
        continuation.onTermination = { [open] _ in
            forward.cancel()
            end.cancel()
            open.release()
        }
        // The connection closes with the stream: the browser opens a new one to reconnect.
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .connection: "close"],
            body: ResponseBody(asyncSequence: stream))
    }
}
#endif
