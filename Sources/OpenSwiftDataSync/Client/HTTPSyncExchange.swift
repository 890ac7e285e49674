import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request of ``HTTPSyncTransport``, through a session of its own whose delegate sees
/// every redirect and every byte: a redirect leaves the request's origin only unfollowed (the
/// token would go with it), and a reply over `limit` bytes is cut off rather than buffered. A
/// request under way ends when its task is cancelled (a running client stopped while its long
/// poll is held), with `CancellationError`.
final class HTTPSyncExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // `@unchecked Sendable`: the session calls the delegate on its one serial queue; `lock`
    // guards what `run` reads after it.
    private let origin: URL
    private let limit: Int
    private let lock = NSLock()
    private var data = Data()
    private var overLimit = false
    private var continuation: CheckedContinuation<HTTPURLResponse, any Error>?
    private var task: URLSessionDataTask?
    private var cancelled = false

    init(origin: URL, limit: Int) {
        self.origin = origin
        self.limit = limit
    }

    /// The reply's body and response; throws ``SyncError/server(_:)`` where the server cannot
    /// be reached or its reply is too large.
    func run(_ request: URLRequest, describing server: String) async throws -> (Data, HTTPURLResponse) {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let response: HTTPURLResponse
        do {
            response = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    let task = session.dataTask(with: request)
                    let going = lock.withLock {
                        guard !cancelled else { return false }
                        self.continuation = continuation
                        self.task = task
                        return true
                    }
                    if going { task.resume() } else { continuation.resume(throwing: CancellationError()) }
                }
            } onCancel: {
                let task = lock.withLock {
                    cancelled = true
                    return self.task
                }
                task?.cancel()
            }
        } catch {
            if lock.withLock({ cancelled }) { throw CancellationError() }
            if lock.withLock({ overLimit }) {
                throw SyncError.server("\(server) answered with more than \(limit) bytes; a reply takes at most \(SyncServer.maximumReplyBytes)")
            }
            throw SyncError.server("could not reach \(server) (\(error.localizedDescription))")
        }
        return (lock.withLock { data }, response)
    }

    /// Whether `url` has the origin's scheme, host and port.
    private func isSameOrigin(_ url: URL?) -> Bool {
        guard let url else { return false }
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return url.scheme?.lowercased() == origin.scheme?.lowercased() && url.host?.lowercased() == origin.host?.lowercased() && port(url) == port(origin)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // Another origin: not followed, so the redirect itself is the answer.
        completionHandler(isSameOrigin(request.url) ? request : nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = lock.withLock {
            self.data.append(data)
            if self.data.count > limit { overLimit = true }
            return overLimit
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = lock.withLock {
            defer { self.continuation = nil }
            return self.continuation
        }
        if let error {
            continuation?.resume(throwing: error)
        } else if let response = task.response as? HTTPURLResponse {
            continuation?.resume(returning: response)
        } else {
            continuation?.resume(throwing: URLError(.badServerResponse))
        }
    }
}
