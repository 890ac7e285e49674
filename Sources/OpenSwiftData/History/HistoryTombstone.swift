import Foundation

/// What is left of a deleted model in history: the values of its attributes marked
/// `.preserveValueOnDeletion`, by key path. Attributes without that option are not kept.
///
/// ```swift
/// let name = delete.tombstone[\.name] as? String
/// for (keyPath, value) in delete.tombstone { print(keyPath, value) }
/// ```
///
/// An optional attribute that was `nil` is absent.
public struct HistoryTombstone<Model: PersistentModel>: Sendable, Sequence {
    /// One preserved attribute and its value.
    public typealias Element = (keyPath: any PartialKeyPath<Model> & Sendable, value: any Sendable)

    private let entries: [Element]

    init(_ entries: [Element]) {
        self.entries = entries
    }

    /// The preserved value of the attribute at `keyPath`; `nil` if it was not preserved (or was `nil`).
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        entries.first { $0.keyPath == keyPath }?.value
    }

    /// Iterates over the preserved attributes.
    public struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[Element]>

        /// The next preserved attribute.
        public mutating func next() -> Element? { base.next() }
    }

    /// An iterator over the preserved attributes.
    public func makeIterator() -> Iterator {
        Iterator(base: entries.makeIterator())
    }
}
