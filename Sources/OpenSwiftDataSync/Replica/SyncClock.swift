import Foundation

/// A hybrid logical clock reading: when a change was made, as microseconds since 1970 with a
/// counter for changes within one microsecond (or after a clock seen from another replica that
/// runs ahead), and the replica that made it, which breaks ties.
///
/// Every edit of an attribute carries one; the later reading wins, whatever order replicas sync
/// in. A replica's clock never goes back and always passes the clocks it receives, so an edit
/// made after seeing another's is later than it even where the wall clocks disagree.
///
/// ```swift
/// let earlier = SyncClock(time: Date(timeIntervalSince1970: 10), node: "A")
/// let later = earlier.advanced(to: Date(timeIntervalSince1970: 9), node: "B")
/// assert(later > earlier)
/// ```
public struct SyncClock: Comparable, Hashable, Codable, Sendable, CustomStringConvertible {
    /// Microseconds since 1970 in the high bits, a counter in the low 8 (which carries into them).
    public let value: Int64
    /// The replica that made the change (its store's identifier).
    public let node: String

    static let counterBits: Int64 = 8

    /// A reading as it was recorded.
    public init(value: Int64, node: String) {
        self.value = value
        self.node = node
    }

    /// The reading for a change made at `time` on `node`, with no earlier reading to pass.
    public init(time: Date, node: String) {
        self.init(value: Self.physical(time), node: node)
    }

    /// The next reading on `node` for a change made at `time`: later than this one, and no
    /// earlier than `time`.
    public func advanced(to time: Date, node: String) -> SyncClock {
        let next = value == .max ? value : value + 1
        return SyncClock(value: max(next, Self.physical(time)), node: node)
    }

    /// `time` in the clock's units (0 before 1970; saturated far in the future).
    static func physical(_ time: Date) -> Int64 {
        let microseconds = (time.timeIntervalSince1970 * 1_000_000).rounded(.down)
        guard microseconds > 0 else { return 0 }
        guard microseconds < Double(Int64.max >> counterBits) else { return Int64.max & ~((1 << counterBits) - 1) }
        return Int64(microseconds) << counterBits
    }

    /// When the change was made, to the microsecond.
    public var date: Date { Date(timeIntervalSince1970: Double(value >> Self.counterBits) / 1_000_000) }

    /// Whether `lhs` is the earlier reading: by value, then by node.
    public static func < (lhs: SyncClock, rhs: SyncClock) -> Bool {
        (lhs.value, lhs.node) < (rhs.value, rhs.node)
    }

    /// `value@node`.
    public var description: String { "\(value)@\(node)" }
}
