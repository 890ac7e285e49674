import Foundation

/// How a sort descriptor orders strings, as the stores translate it: Swift's `<` (lexical),
/// `localizedCompare` or `localizedStandardCompare`.
enum StringSortOrder: Hashable, Sendable {
    case lexical
    case localized
    case localizedStandard

    func compare(_ a: String, _ b: String) -> ComparisonResult {
        switch self {
        case .lexical: return a == b ? .orderedSame : (a < b ? .orderedAscending : .orderedDescending)
        case .localized: return a.localizedCompare(b)
        case .localizedStandard: return a.localizedStandardCompare(b)
        }
    }

    /// What a store sorts by for `sort`: the key path of the persisted property and the string
    /// order, or a clear error for a comparator no store can run.
    static func of<T>(_ sort: SortDescriptor<T>) throws -> (keyPath: AnyKeyPath, order: StringSortOrder) {
        guard let keyPath = sort.keyPath else {
            throw SwiftDataError(.unsupportedSortDescriptor, "a SortDescriptor without a key path (made from a comparator) cannot be translated to SQL; sort by a persisted property")
        }
        if let registered = LocalizedSortKey.registered(keyPath) { return registered }
        guard let comparator = sort.stringComparator else { return (keyPath, .lexical) }
        var standard = String.StandardComparator.lexical
        standard.order = comparator.order
        if comparator == standard { return (keyPath, .lexical) }
        for (candidate, order) in [(String.StandardComparator.localized, StringSortOrder.localized), (.localizedStandard, .localizedStandard)] {
            standard = candidate
            standard.order = comparator.order
            if comparator == standard { return (keyPath, order) }
        }
        throw SwiftDataError(.unsupportedSortDescriptor, "the sort by \(keyPath) uses a string comparator the store cannot order by; use .lexical, .localized or .localizedStandard")
    }
}
