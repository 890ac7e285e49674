import Foundation

#if !canImport(Darwin)
/// Notifications as an async sequence, which SwiftData code uses to follow saves
/// (`for await _ in NotificationCenter.default.notifications(named: ModelContext.didSave)`) and
/// which Linux Foundation lacks.
///
/// ```swift
/// for await notification in NotificationCenter.default.notifications(named: ModelContext.didSave) {
///     print("saved", notification.userInfo?["inserted"] ?? [])
/// }
/// ```
///
/// The observer is added when iteration starts (the iterator is made) and removed when it
/// ends; notifications posted while nobody iterates are not kept. At most the newest 1,000
/// wait for a slow reader.
extension NotificationCenter {
    /// The notifications named `name` (from `object`, if given) posted from now on.
    public func notifications(named name: Notification.Name, object: AnyObject? = nil) -> Notifications {
        Notifications(center: self, name: name, object: object)
    }

    /// An async sequence of the notifications of one name (``notifications(named:object:)``).
    public struct Notifications: AsyncSequence {
        /// Each element is a notification as posted.
        public typealias Element = Notification

        let center: NotificationCenter
        let name: Notification.Name
        let object: AnyObject?

        /// Starts observing: the iterator gets every notification posted from now on.
        public func makeAsyncIterator() -> Iterator {
            let (stream, continuation) = AsyncStream<PostedNotification>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
            let observer = ObserverToken(center.addObserver(forName: name, object: object, queue: nil) { continuation.yield(PostedNotification(value: $0)) })
            let center = CenterReference(center)
            continuation.onTermination = { _ in center.value.removeObserver(observer.value) }
            return Iterator(base: stream.makeAsyncIterator())
        }

        /// Waits for the next notification.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<PostedNotification>.Iterator

            /// The next notification; `nil` once the sequence ended.
            public mutating func next() async -> Notification? {
                await base.next()?.value
            }
        }
    }
}

/// A notification handed from the posting thread to the iterating task (Linux Foundation does
/// not mark `Notification` `Sendable`; it is a value, read only by the iterator).
struct PostedNotification: @unchecked Sendable {
    let value: Notification
}

/// The observer handle `addObserver` returns, carried into the stream's termination handler.
/// `@unchecked Sendable`: it is only passed back to `removeObserver`.
private struct ObserverToken: @unchecked Sendable {
    let value: any NSObjectProtocol
    init(_ value: any NSObjectProtocol) { self.value = value }
}

/// The center, carried into the stream's termination handler (Linux Foundation does not mark
/// it `Sendable`, though it may be used from any thread).
private struct CenterReference: @unchecked Sendable {
    let value: NotificationCenter
    init(_ value: NotificationCenter) { self.value = value }
}
#endif
