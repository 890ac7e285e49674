import Foundation

extension Schema {
    /// The indexes of a model, as `#Index<T>(.binary([\.a]), .rtree([\.x, \.y]))` declares them.
    ///
    /// ```swift
    /// @Model final class Place {
    ///     #Index<Place>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
    ///     var name: String
    ///     var latitude: Double
    ///     var longitude: Double
    /// }
    /// ```
    ///
    /// Both kinds become an ordinary index of the store (a B-tree in SQLite and PostgreSQL) over
    /// the listed properties: `.binary` is exactly that; `.rtree` is accepted so SwiftData code
    /// compiles, but range queries over two coordinates get the ordinary index too, not a spatial
    /// one (SQLite's R-tree module needs a separate virtual table the store does not keep).
    ///
    /// `@unchecked Sendable`: immutable; key paths are values.
    public final class Index<T: PersistentModel>: @unchecked Sendable {
        /// One index: the kind and the properties it covers.
        public enum Types<P: PersistentModel> {
            /// An ordinary (B-tree) index over the properties.
            case binary([PartialKeyPath<P>])
            /// A spatial index in SwiftData; an ordinary index here (see ``Schema/Index``).
            case rtree([PartialKeyPath<P>])

            /// The properties the index covers.
            public var keyPaths: [PartialKeyPath<P>] {
                switch self {
                case .binary(let keyPaths), .rtree(let keyPaths): return keyPaths
                }
            }
        }

        /// The declared indexes.
        public let indices: [Types<T>]

        /// Indexes of the given kinds.
        public init(_ indices: Types<T>...) {
            self.indices = indices
        }
    }

    /// The uniqueness constraints of a model, as `#Unique<T>([\.a], [\.b, \.c])` declares them:
    /// each group of properties is unique together.
    ///
    /// `@unchecked Sendable`: immutable; key paths are values.
    public final class Unique<T: PersistentModel>: @unchecked Sendable {
        /// The groups of properties whose values are unique together.
        public let constraints: [[PartialKeyPath<T>]]

        /// Constraints over the given groups of properties.
        public init(_ constraints: [PartialKeyPath<T>]...) {
            self.constraints = constraints
        }
    }
}
