import Foundation

#if !canImport(Darwin)
/// The localized string comparators of `SortDescriptor`, which Foundation has on Apple platforms
/// only, so that SwiftData's sort descriptors compile and sort the same way here.
///
/// ```swift
/// let byName = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])
/// // "Trip 2" before "trip 10": case-insensitive, numbers by value, as in Finder.
/// ```
///
/// `.localizedStandard` orders as `localizedStandardCompare(_:)` and `.localized` as
/// `localizedCompare(_:)`, in the stores and in memory alike. (`.lexical` is Foundation's own.)
/// Foundation's `String.StandardComparator` gets the two values too, for code that keeps them
/// as values of that type; written right in this initialiser, `.localizedStandard` is this type's.
/// On Apple platforms Foundation's `String.StandardComparator` values are used instead, with the
/// same meaning.
///
/// One difference from Apple's Foundation: there, `SortDescriptor(\.name)` on a `String` property
/// defaults to `.localizedStandard`; Foundation on Linux defaults to Swift's `<` (lexical), and
/// OpenSwiftData follows the Foundation it runs on. Name the comparator to get the same order on
/// every platform.
public struct LocalizedStringComparator: Hashable, Sendable {
    let order: StringSortOrder

    /// Orders as `localizedStandardCompare(_:)`: case-insensitive, digits by numeric value.
    public static let localizedStandard = LocalizedStringComparator(order: .localizedStandard)
    /// Orders as `localizedCompare(_:)`.
    public static let localized = LocalizedStringComparator(order: .localized)
}

extension SortDescriptor {
    /// A sort by a string property with a localized comparator.
    ///
    /// ```swift
    /// SortDescriptor(\Trip.name, comparator: .localizedStandard, order: .reverse)
    /// ```
    public init(_ keyPath: KeyPath<Compared, String> & Sendable, comparator: LocalizedStringComparator, order: SortOrder = .forward) {
        let sortKey = comparator.order == .localized ? \String.localizedSortKey : \String.localizedStandardSortKey
        let appended = keyPath.appending(path: sortKey)
        LocalizedSortKey.register(appended, for: keyPath, order: comparator.order)
        // A key path made of Sendable key paths is Sendable; the marker protocol leaves the
        // reference's layout as it is, and a dynamic cast to it is not allowed.
        self.init(AssumedSendable.cast(appended, to: (KeyPath<Compared, LocalizedSortKey> & Sendable).self), order: order)
    }

    /// A sort by an optional string property with a localized comparator (`nil` first when forward).
    public init(_ keyPath: KeyPath<Compared, String?> & Sendable, comparator: LocalizedStringComparator, order: SortOrder = .forward) {
        let sortKey = comparator.order == .localized ? \String?.localizedSortKey : \String?.localizedStandardSortKey
        let appended = keyPath.appending(path: sortKey)
        LocalizedSortKey.register(appended, for: keyPath, order: comparator.order)
        self.init(AssumedSendable.cast(appended, to: (KeyPath<Compared, LocalizedSortKey?> & Sendable).self), order: order)
    }

    /// This descriptor as it sorts in memory the way the stores order a fetch: a string sort by
    /// Foundation's own `.localized` or `.localizedStandard` value, whose `compare` does not
    /// consult the locale on Linux, becomes OpenSwiftData's localized descriptor; others stay.
    var inStoreOrder: SortDescriptor<Compared> {
        guard let comparator = stringComparator, let keyPath else { return self }
        var order: StringSortOrder?
        for (candidate, kind) in [(String.StandardComparator.localized, StringSortOrder.localized), (.localizedStandard, .localizedStandard)] where candidate != .lexical {
            if comparator == String.StandardComparator(candidate, order: comparator.order) { order = kind }
        }
        guard let order else { return self }
        let localized = LocalizedStringComparator(order: order)
        if let path = keyPath as? KeyPath<Compared, String> {
            return SortDescriptor(AssumedSendable.cast(path, to: (KeyPath<Compared, String> & Sendable).self), comparator: localized, order: self.order)
        }
        if let path = keyPath as? KeyPath<Compared, String?> {
            return SortDescriptor(AssumedSendable.cast(path, to: (KeyPath<Compared, String?> & Sendable).self), comparator: localized, order: self.order)
        }
        return self
    }
}
#endif

extension Array {
    /// The sort descriptors as they sort in memory the way the stores order (on Linux, see
    /// `SortDescriptor.inStoreOrder`; Apple's Foundation compares with the locale itself).
    func inStoreOrder<T>() -> [SortDescriptor<T>] where Element == SortDescriptor<T> {
        #if canImport(Darwin)
        self
        #else
        map(\.inStoreOrder)
        #endif
    }
}
