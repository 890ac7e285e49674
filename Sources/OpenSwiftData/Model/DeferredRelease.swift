import Foundation

/// Releases slot values one after another instead of one inside another.
///
/// Releasing a model releases the models its relationships hold from inside its deinit, so a long
/// chain (a to-one without an inverse, say) would nest one deinit per model and overflow the stack
/// at some tens of thousands. Slots handed over while a release is already under way on this thread
/// are queued, and the outermost call drops them in a loop: the nesting depth stays at two.
enum DeferredRelease {
    private final class Queue {
        var draining = false
        var pending: [ContiguousArray<BackingData.Slot>] = []
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { queue in
            guard let queue else { return }
            Unmanaged<AnyObject>.fromOpaque(queue).release()
        }
        return key
    }()

    private static var queue: Queue {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<Queue>.fromOpaque(raw).takeUnretainedValue()
        }
        let queue = Queue()
        pthread_setspecific(key, Unmanaged.passRetained(queue).toOpaque())
        return queue
    }

    /// Takes `slots` (leaving them empty) and releases their values, after the release under way
    /// on this thread if there is one.
    static func release(_ slots: inout ContiguousArray<BackingData.Slot>) {
        let queue = self.queue
        queue.pending.append(slots)
        slots = []
        guard !queue.draining else { return }
        queue.draining = true
        while !queue.pending.isEmpty {
            // Dropping the popped slots may queue more; the loop picks them up.
            _ = queue.pending.removeLast()
        }
        queue.draining = false
    }
}
