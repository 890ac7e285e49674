#if Studio
import Foundation
import Hummingbird

/// A request's query as a form sends it: `+` is a space, `%XX` escapes are decoded (Hummingbird's
/// `queryParameters` leaves both as they came). The first value of a repeated name wins.
struct FormQuery {
    private var values: [String: String] = [:]

    init(_ request: Request) {
        for pair in (request.uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]) else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if values[name] == nil, let value { values[name] = value }
        }
    }

    /// The value of `name`, or `nil` when absent or empty.
    subscript(name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
#endif
