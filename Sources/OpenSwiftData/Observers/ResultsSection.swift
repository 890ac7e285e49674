import Foundation

/// The models of one section of a ``SectionedResults``: those sharing one value of the section
/// key path, in the results' order.
///
/// ```swift
/// for section in observer.sections ?? SectionedResults() {
///     print(section.title, section.count)       // "Food" 12
///     for expense in section { print(expense.amount) }
/// }
/// ```
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable {
    /// The value of the section key path every model of the section has (`""` for `nil` when
    /// the key path is optional).
    public let title: SectionTitle
    private let elements: [Element]

    init(title: SectionTitle, elements: [Element]) {
        self.title = title
        self.elements = elements
    }

    /// The section's title, which identifies it among the sections.
    public var id: SectionTitle { title }
    /// The first position, 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of models in the section.
    public var endIndex: Int { elements.count }

    /// The model at `position` in the section.
    public subscript(position: Int) -> Element { elements[position] }
}
