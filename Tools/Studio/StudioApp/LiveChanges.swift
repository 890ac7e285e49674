#if Studio
import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /events`: server-sent events telling the open page that the store changed, so it
/// refreshes what it shows. The store's change stamp (its newest history transaction and the
/// keys it gave out, ``StoreBrowser/changeStamp()``) is read every ``interval``: a save by this
/// studio, by another process on the same file or by another server on the same database all
/// move it. A stream lasts at most ``lifetime``; the page's `EventSource` reconnects. A graceful
/// stop (SIGINT, SIGTERM) ends every stream at once, so an open page never holds the stop up.
struct LiveChanges {
    let store: StudioStore
    static let interval = Duration.milliseconds(500)
    static let lifetime = Duration.seconds(30)

    @Sendable func events(_ request: Request, context: some RequestContext) async throws -> Response {
        let store = self.store
        let start = try await store.run { try $0.changeStamp() }
        let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        continuation.yield(ByteBuffer(string: "retry: 500\n: connected\n\n"))
        let poll = Task {
            try? await cancelWhenGracefulShutdown {
                var last = start
                let end = ContinuousClock.now + Self.lifetime
                while !Task.isCancelled, ContinuousClock.now < end {
                    try await Task.sleep(for: Self.interval)
                    guard let stamp = try? await store.run({ try $0.changeStamp() }) else { continue }
                    if stamp != last {
                        last = stamp
                        continuation.yield(ByteBuffer(string: "event: changed\ndata: changed\n\n"))
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in poll.cancel() }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store", .connection: "close"],
            body: ResponseBody(asyncSequence: stream))
    }
}
#endif
