import Foundation

extension Duration {
    /// The duration in milliseconds, for reports (query plans, the slow-query log).
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
