import Foundation

/// Primary keys a store reserved ahead of the saves that use them, a block per counter, where
/// several writers run at once (PostgreSQL, several servers).
///
/// Reserving a save's keys inside its transaction locks the entity's counter row until the
/// commit, so every writer of that entity, on every server, would wait for the one before it. A
/// block is reserved by a statement of its own before a save's transaction begins, which holds the
/// row only for that statement; saves then take consecutive keys from it in memory. Keys of a
/// block nobody uses (the process stops, a save rolls back) are skipped: keys only name rows.
final class KeyBlocks: Sendable {
    /// The fewest keys a block reserves: about one reservation per this many new rows.
    static let minimumSize: Int64 = 100

    /// Per counter, the next key of the block and its last.
    private let blocks = Locked<[String: (next: Int64, last: Int64)]>([:])

    /// How many keys of counter `name` are left.
    func available(_ name: String) -> Int64 {
        blocks.withLock { blocks in
            guard let block = blocks[name] else { return 0 }
            return block.last - block.next + 1
        }
    }

    /// A new block of counter `name`, `count` keys ending at `last`, replacing what was left.
    func replace(_ name: String, count: Int64, last: Int64) {
        blocks.withLock { $0[name] = (last - count + 1, last) }
    }

    /// Takes `count` consecutive keys of counter `name` and returns the last; `nil` if fewer are left.
    func take(_ count: Int64, from name: String) -> Int64? {
        blocks.withLock { blocks in
            guard let block = blocks[name], block.last - block.next + 1 >= count else { return nil }
            let last = block.next + count - 1
            blocks[name] = (last &+ 1, block.last)
            return last
        }
    }
}
