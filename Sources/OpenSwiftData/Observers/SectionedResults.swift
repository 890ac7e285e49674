import Foundation

/// Results grouped into sections by the value of a key path: a collection of
/// ``ResultsSection``s in the order each title first appears in the sorted results.
///
/// ```swift
/// let observer = try ResultsObserver<Expense, String>(sortBy: [SortDescriptor(\.date)], sectionBy: \.month, modelContext: context)
/// if let sections = observer.sections {
///     print(sections.sectionTitles)                     // ["2026-10", "2026-11"]
///     let november = sections[sectionTitle: "2026-11"]  // O(1)
/// }
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection {
    private let sections: [ResultsSection<Element, SectionTitle>]
    private let positions: [SectionTitle: Int]

    /// No sections.
    public init() {
        sections = []
        positions = [:]
    }

    /// `models` (sorted) grouped by `title`, sections in order of first appearance.
    init(_ models: [Element], title: (Element) -> SectionTitle) {
        var titles: [SectionTitle] = []
        var members: [[Element]] = []
        var positions: [SectionTitle: Int] = [:]
        for model in models {
            let key = title(model)
            if let position = positions[key] {
                members[position].append(model)
            } else {
                positions[key] = titles.count
                titles.append(key)
                members.append([model])
            }
        }
        sections = zip(titles, members).map { ResultsSection(title: $0, elements: $1) }
        self.positions = positions
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of sections.
    public var endIndex: Int { sections.count }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }

    /// The section titled `title`, or `nil` if no model has that title. O(1).
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }

    /// The titles of the sections, in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }

    /// The position of the section titled `title`, or `nil`. O(1).
    public func index(ofSectionTitled title: SectionTitle) -> Int? { positions[title] }
}
