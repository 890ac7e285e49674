import Foundation

/// An aggregate the context asks a store for: a count, or one function of an attribute, over the
/// rows a fetch selects, for all of them or per value of a group key. Both attributes may be
/// reached through to-one relationships.
///
/// A store answers with partial results (``Partial``) that the context finishes and merges, so a
/// store may hand back one partial per group, or one per row where the database cannot compute
/// the function as Swift would (decimals stored as text, values stored by bit pattern).
struct StoreAggregate {
    enum Function: Sendable {
        case count, sum, average, minimum, maximum
    }

    let function: Function
    /// The attribute aggregated (empty for a count).
    let value: [PropertyLayout]
    /// The attribute whose values the rows are grouped by; `nil`: one group of every row.
    let group: [PropertyLayout]?

    /// One group's result, or part of it, in stored form.
    struct Partial {
        /// The group key's stored value (`.null` for no group, or a `nil` key).
        var key: StoredValue
        /// How many rows: for a count, every row; for an average, the rows with a value.
        var count: Int64
        /// For a sum, an average (the sum of the values) or a minimum or maximum: the value in the
        /// attribute's stored form, or `.real` for an average of numbers; `.null` for no value.
        var value: StoredValue
    }
}
