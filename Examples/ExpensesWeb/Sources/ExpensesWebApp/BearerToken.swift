#if Studio
import Hummingbird

/// A route's own bearer token (the sync token of one-dataset mode, the metrics token), compared in
/// full whatever the first difference, so the time taken says nothing of it.
enum BearerToken {
    static func matches(_ request: Request, _ token: String) -> Bool {
        let given = Array((request.headers[.authorization] ?? "").utf8)
        let expected = Array("Bearer \(token)".utf8)
        var difference = given.count ^ expected.count
        for index in 0..<max(given.count, expected.count) {
            difference |= Int((index < given.count ? given[index] : 0) ^ (index < expected.count ? expected[index] : 0))
        }
        return difference == 0
    }
}
#endif
