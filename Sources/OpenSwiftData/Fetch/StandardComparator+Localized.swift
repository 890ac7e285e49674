import Foundation

#if !canImport(Darwin)
/// Foundation's localized string comparators under their Apple names, which Foundation on Linux
/// does not declare (it has `.lexical` only), so that code naming them as values of Foundation's
/// type compiles and sorts here:
///
/// ```swift
/// // A query library keeps the comparator of a type-erased sort:
/// let byName: String.StandardComparator = .localizedStandard
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name, comparator: byName)]))
/// ```
///
/// Every store orders a fetch by them as `localizedStandardCompare(_:)` and `localizedCompare(_:)`
/// order. Sorting in memory with Foundation's own `compare` on Linux does not consult the locale
/// (Foundation there compares without one): `.localizedStandard` compares case-insensitively with
/// digits by value, `.localized` as `.lexical` does. Written as `comparator: .localizedStandard`
/// right in `SortDescriptor(_:comparator:order:)`, OpenSwiftData's own descriptor is made, which
/// sorts in memory as the stores do.
extension String.StandardComparator {
    /// Compares strings as `localizedStandardCompare(_:)` does (as the Finder orders names).
    @_disfavoredOverload
    public static let localizedStandard = LocalizedComparatorValue.make(options: [.numeric, .caseInsensitive, .widthInsensitive, .forcedOrdering])

    /// Compares strings as `localizedCompare(_:)` does.
    @_disfavoredOverload
    public static let localized = LocalizedComparatorValue.make(options: [])
}

/// Makes the localized values of `String.StandardComparator`, which Linux Foundation keeps
/// private (its initialiser is private and its decoder refuses them).
enum LocalizedComparatorValue {
    /// The fields Foundation encodes a comparator with, read back to check the value made.
    private struct Fields: Decodable {
        let options: UInt
        let isLocalized: Bool
    }

    /// A localized comparator with `options`, forward. The value is `.lexical` with its option
    /// and localized fields set in place; Foundation's own encoding then reads them back, and
    /// only a value it describes as exactly that is kept. If Foundation's type ever changes shape,
    /// the check fails and `.lexical` is returned (sorts by it stay Swift's order).
    static func make(options: String.CompareOptions) -> String.StandardComparator {
        var value = String.StandardComparator.lexical
        let labels = Mirror(reflecting: value).children.map(\.label)
        guard labels == ["options", "isLocalized", "order"],
              MemoryLayout<String.StandardComparator>.size == MemoryLayout<UInt>.size + 2 else { return .lexical }
        withUnsafeMutableBytes(of: &value) { bytes in
            bytes.storeBytes(of: options.rawValue, toByteOffset: 0, as: UInt.self)
            bytes.storeBytes(of: true, toByteOffset: MemoryLayout<UInt>.size, as: Bool.self)
        }
        guard value.order == .forward,
              let encoded = try? JSONEncoder().encode(value),
              let fields = try? JSONDecoder().decode(Fields.self, from: encoded),
              fields.options == options.rawValue, fields.isLocalized else { return .lexical }
        return value
    }
}
#endif
