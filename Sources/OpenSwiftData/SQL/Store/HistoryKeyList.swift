import Foundation

/// How a group of history changes keeps its models' keys in one text column: ascending runs
/// as `first-last`, other keys as themselves, comma-separated (`"1-100000,100007"`). A save of
/// many new models, whose keys are given out in one block, takes a few bytes.
enum HistoryKeyList {
    static func encode(_ keys: [Int64]) -> String {
        var text = ""
        var index = 0
        while index < keys.count {
            var end = index
            while end + 1 < keys.count, keys[end] < .max, keys[end + 1] == keys[end] + 1 { end += 1 }
            if !text.isEmpty { text.append(",") }
            text.append(String(keys[index]))
            if end > index {
                text.append("-")
                text.append(String(keys[end]))
            }
            index = end + 1
        }
        return text
    }

    /// The most keys one list — and one read of history, all its lists together — may name. A
    /// save of that many models is far beyond any seen; a list naming more
    /// (`0-9223372036854775807` in a damaged or crafted file), or many lists that add up to more,
    /// are refused rather than allocated (50 million keys are 400 MB).
    static let maximumKeys: Int64 = 50_000_000

    /// The keys of a list ``encode(_:)`` wrote; `nil` if the text is not such a list, or names
    /// more than ``maximumKeys`` keys.
    static func decode(_ text: String) -> [Int64]? {
        var remaining = maximumKeys
        return decode(text, remaining: &remaining)
    }

    /// The keys of a list, counted against `remaining` (what a read has left of its
    /// ``maximumKeys``); `nil` if the text is not a list or names more keys than remain.
    static func decode(_ text: String, remaining: inout Int64) -> [Int64]? {
        var keys: [Int64] = []
        var left = remaining
        for part in text.split(separator: ",") {
            // A leading minus is a negative key, a later one separates a run's ends.
            if let dash = part.dropFirst().firstIndex(of: "-") {
                guard let first = Int64(part[..<dash]), let last = Int64(part[part.index(after: dash)...]), first <= last else { return nil }
                let (span, overflow) = last.subtractingReportingOverflow(first)
                guard !overflow, span < left else { return nil }
                left -= span + 1
                keys.append(contentsOf: first...last)
            } else {
                guard let key = Int64(part), left > 0 else { return nil }
                left -= 1
                keys.append(key)
            }
        }
        remaining = left
        return keys
    }
}
