import Foundation

/// Primary keys a store reserves ahead of the saves that use them, a block per counter, where
/// several writers run at once (PostgreSQL, several servers).
///
/// Reserving a save's keys inside its transaction locks the entity's counter row until the
/// commit, so every writer of that entity, on every server, would wait for the one before it. A
/// block is reserved by a statement of its own before a save's transaction begins, which holds the
/// row only for that statement; saves then take consecutive keys from it in memory. Reservations
/// of one store are made one at a time (the others wait here, not on the row), and a block used up
/// within a second makes the next one twice as large (up to ``maximumSize``), so a busy server
/// touches the row rarely. Keys of a block nobody uses (the process stops, a save rolls back)
/// are skipped: keys only name rows.
final class KeyBlocks: @unchecked Sendable {
    // `@unchecked Sendable`: `blocks` is touched with `lock` held.
    /// The fewest keys a block reserves, and the most.
    static let minimumSize: Int64 = 100
    static let maximumSize: Int64 = 10_000

    private struct Block {
        var next: Int64
        var last: Int64
        var size: Int64
        var reserved: ContinuousClock.Instant
    }

    private let lock = NSLock()
    private var blocks: [String: Block] = [:]

    /// Takes `count` consecutive keys of counter `name` and returns the last. When the block left
    /// is too small, `reserve(size)` reserves a new one (returning its last key, or `nil` if there
    /// is no such counter) while other callers wait.
    func take(_ count: Int64, from name: String, reserve: (Int64) throws -> Int64?) throws -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        if let block = blocks[name], block.last - block.next + 1 >= count {
            blocks[name]?.next = block.next + count
            return block.next + count - 1
        }
        var size = Self.minimumSize
        if let block = blocks[name] {
            let quick = ContinuousClock.now - block.reserved < .seconds(1)
            size = min(Self.maximumSize, quick ? block.size * 2 : block.size)
        }
        size = max(size, count)
        guard let last = try reserve(size) else { return nil }
        let first = last - size + 1
        blocks[name] = Block(next: first + count, last: last, size: size, reserved: .now)
        return first + count - 1
    }
}
