import Foundation

/// A string that sorts by `localizedCompare` or `localizedStandardCompare`: the value a sort
/// descriptor made with ``LocalizedStringComparator`` reads, so that sorting in memory gives the
/// same order the stores give.
struct LocalizedSortKey: Comparable, Sendable {
    let string: String
    let order: StringSortOrder

    static func < (lhs: LocalizedSortKey, rhs: LocalizedSortKey) -> Bool {
        lhs.order.compare(lhs.string, rhs.string) == .orderedAscending
    }

    static func == (lhs: LocalizedSortKey, rhs: LocalizedSortKey) -> Bool {
        lhs.order.compare(lhs.string, rhs.string) == .orderedSame
    }

    /// Key paths made by appending a sort key to a string property, with the property's key path
    /// and the order, so stores can sort by the property. Bounded by the descriptors a program
    /// writes (one entry per property and comparator).
    private static let keyPaths = Locked<[AnyKeyPath: (keyPath: AnyKeyPath, order: StringSortOrder)]>([:])

    static func register(_ sortKeyPath: AnyKeyPath, for keyPath: AnyKeyPath, order: StringSortOrder) {
        keyPaths.withLock { $0[sortKeyPath] = (keyPath, order) }
    }

    static func registered(_ sortKeyPath: AnyKeyPath) -> (keyPath: AnyKeyPath, order: StringSortOrder)? {
        keyPaths.withLock { $0[sortKeyPath] }
    }
}

extension String {
    var localizedSortKey: LocalizedSortKey { LocalizedSortKey(string: self, order: .localized) }
    var localizedStandardSortKey: LocalizedSortKey { LocalizedSortKey(string: self, order: .localizedStandard) }
}

extension Optional where Wrapped == String {
    var localizedSortKey: LocalizedSortKey? { map { LocalizedSortKey(string: $0, order: .localized) } }
    var localizedStandardSortKey: LocalizedSortKey? { map { LocalizedSortKey(string: $0, order: .localizedStandard) } }
}
