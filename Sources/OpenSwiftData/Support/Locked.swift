import Foundation

/// A value guarded by a lock.
///
/// `@unchecked Sendable` is sound because `value` is only reachable inside `withLock`, which holds
/// `lock` for the whole access.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
