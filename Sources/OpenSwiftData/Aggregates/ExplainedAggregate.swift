import Foundation

/// An aggregate whose query ``ModelContext/explain(_:aggregate:analyze:)`` shows: a count, or a
/// sum, average, least or greatest value of an attribute, optionally per group — what
/// `fetchSum(_:of:)` and its siblings compute.
///
/// ```swift
/// let perCategory = try context.explain(FetchDescriptor<Expense>(),
///                                       aggregate: .sum(\.amount).grouped(by: \.category))
/// ```
public struct ExplainedAggregate<T: PersistentModel> {
    let function: StoreAggregate.Function
    let value: AnyKeyPath?
    let group: AnyKeyPath?

    /// The number of models selected (``ModelContext/fetchCount(_:)``, or per group).
    public static var count: ExplainedAggregate { ExplainedAggregate(function: .count, value: nil, group: nil) }
    /// The sum of an attribute (what `fetchSum(_:of:)` computes).
    public static func sum(_ keyPath: PartialKeyPath<T>) -> ExplainedAggregate { ExplainedAggregate(function: .sum, value: keyPath, group: nil) }
    /// The average of an attribute.
    public static func average(_ keyPath: PartialKeyPath<T>) -> ExplainedAggregate { ExplainedAggregate(function: .average, value: keyPath, group: nil) }
    /// The least value of an attribute.
    public static func minimum(_ keyPath: PartialKeyPath<T>) -> ExplainedAggregate { ExplainedAggregate(function: .minimum, value: keyPath, group: nil) }
    /// The greatest value of an attribute.
    public static func maximum(_ keyPath: PartialKeyPath<T>) -> ExplainedAggregate { ExplainedAggregate(function: .maximum, value: keyPath, group: nil) }

    /// The same aggregate per value of an attribute or to-one relationship.
    public func grouped(by keyPath: PartialKeyPath<T>) -> ExplainedAggregate {
        ExplainedAggregate(function: function, value: value, group: keyPath)
    }
}
