#if Studio
import Foundation

/// How many event streams are open (``LiveEvents``), shared by every request.
///
/// `@unchecked Sendable`: `count` is touched with `lock` held.
final class StreamCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// Counts one more stream, unless `limit` are open.
    func admit(upTo limit: Int) -> Bool {
        lock.withLock {
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    /// Counts one stream fewer.
    func release() {
        lock.withLock { count -= 1 }
    }

    /// The streams open now.
    var current: Int { lock.withLock { count } }
}
#endif
