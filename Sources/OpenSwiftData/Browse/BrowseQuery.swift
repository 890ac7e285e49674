import Foundation

/// A page of one entity's rows as the studio asks for it: conditions, an order, a window, and
/// optionally only the rows a relationship of another row points at. Property names are checked
/// against the store's catalog and values are bound: nothing here reaches the database as SQL.
package struct BrowseQuery: Sendable, Equatable {
    package var entity: String
    package var conditions: [BrowseCondition] = []
    /// The property to order by (an attribute or a to-one relationship); `nil`: by primary key.
    package var sort: String?
    package var ascending = true
    /// The rows skipped: 0 to ``maximumOffset``.
    package var offset = 0
    package var limit = 50
    /// The furthest a page may start: a billion rows in. Offsets come from URLs; kept within
    /// this, no sum of an offset and a page size can overflow.
    package static let maximumOffset = 1_000_000_000
    /// Only the rows of `entity` that this relationship of another row leads to.
    package var related: Related?

    /// The rows `relationship` of the `owner` row with primary key `key` leads to.
    package struct Related: Sendable, Equatable {
        package var owner: String
        package var key: Int64
        package var relationship: String

        package init(owner: String, key: Int64, relationship: String) {
            self.owner = owner
            self.key = key
            self.relationship = relationship
        }
    }

    package init(entity: String) {
        self.entity = entity
    }
}

extension BrowseQuery {
    /// The same query with another page size.
    package func with(limit: Int) -> BrowseQuery {
        var query = self
        query.limit = limit
        return query
    }
}

/// One condition on a property, its value as typed by a person (parsed by the property's kind).
package struct BrowseCondition: Sendable, Equatable {
    package enum Operator: String, Sendable, CaseIterable {
        case equals, contains, atLeast, atMost, isNil, isNotNil

        /// Whether the operator takes a value.
        package var takesValue: Bool { self != .isNil && self != .isNotNil }
    }

    package var property: String
    package var op: Operator
    package var value: String

    package init(property: String, op: Operator, value: String = "") {
        self.property = property
        self.op = op
        self.value = value
    }
}

/// One page of rows and how many rows the query matches in all.
package struct BrowsePage: Sendable {
    package let rows: [BrowsedRow]
    package let total: Int
    /// What names the rows the page's to-one relationships point at, by entity and key
    /// (``StoreBrowser/labels(for:)``).
    package var labels: [String: [Int64: String]] = [:]
}
