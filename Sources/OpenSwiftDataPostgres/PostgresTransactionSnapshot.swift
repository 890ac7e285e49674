#if PostgreSQL
/// A server's transaction snapshot as `txid_current_snapshot()` shows it (`xmin:xmax:xip,…`):
/// every transaction numbered below `xmax` has ended except those in `running`.
///
/// Read-your-writes on replicas that refuse the write-ahead-log position functions (Aurora's
/// readers; a role without the right to run them): the primary's snapshot after a save is what a
/// replica must have replayed, and a standby's own snapshot says what it has — it counts a
/// primary's transaction as running until it replays its end. Functions every role may run, on
/// a primary and on a hot standby alike.
struct PostgresTransactionSnapshot: Sendable, Equatable {
    let xmax: UInt64
    let running: Set<UInt64>

    init(xmax: UInt64, running: Set<UInt64>) {
        self.xmax = xmax
        self.running = running
    }

    /// `nil` for text that is not a snapshot.
    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let xmin = UInt64(parts[0]), let xmax = UInt64(parts[1]), xmin <= xmax else { return nil }
        var running = Set<UInt64>()
        for entry in parts[2].split(separator: ",") {
            guard let id = UInt64(entry), id >= xmin, id < xmax else { return nil }
            running.insert(id)
        }
        self.xmax = xmax
        self.running = running
    }

    /// Whether every transaction that had ended in `other` (taken on the primary) has ended here
    /// too: this server has replayed at least as far.
    func hasEnded(everythingEndedIn other: PostgresTransactionSnapshot) -> Bool {
        xmax >= other.xmax && running.allSatisfy { $0 >= other.xmax || other.running.contains($0) }
    }

    /// Of two snapshots of one server, the one taken later: the next number given moves only
    /// up, and at the same number the later one has no more running (what ended stays ended).
    static func later(_ a: PostgresTransactionSnapshot?, _ b: PostgresTransactionSnapshot) -> PostgresTransactionSnapshot {
        guard let a else { return b }
        if a.xmax != b.xmax { return a.xmax > b.xmax ? a : b }
        return a.running.count <= b.running.count ? a : b
    }
}
#endif
