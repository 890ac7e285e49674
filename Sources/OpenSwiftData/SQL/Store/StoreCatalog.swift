import Foundation

/// What a store holds, read from the store itself — no model types: the entities, their
/// attributes and relationships, constraints and tables, as the studio shows them. An
/// OpenSwiftData store (a file or a PostgreSQL namespace) records it in its metadata
/// (``SchemaFingerprint``); a file SwiftData or Core Data wrote carries Core Data's model
/// (``CoreDataModelArchive``).
package struct StoreCatalog: Sendable {
    /// Whose table layout the store has.
    package enum Layout: String, Sendable {
        case openSwiftData = "OpenSwiftData"
        case coreData = "Core Data"
    }

    /// How a value of an attribute is shown and how a typed condition on it is bound.
    package enum ValueKind: String, Sendable {
        case string, integer, double, bool, date, uuid, decimal, data, url
        /// A `Codable` value kept as JSON text (or, in a Core Data file, an archive).
        case codable
        /// Anything else (an enum's raw value, a composite): shown as stored.
        case other

        /// Whether "contains" applies to its values.
        package var isText: Bool { self == .string || self == .url || self == .codable }
    }

    package struct Attribute: Sendable {
        package let name: String
        /// The Swift type as the store recorded it (`String`, `Date`, `Array<String>`), or Core Data's.
        package let typeName: String
        package let kind: ValueKind
        package let isOptional: Bool
        let column: String
    }

    package struct Relationship: Sendable {
        package let name: String
        package let destination: String
        package let isToMany: Bool
        /// The relationship on the destination that is this one's inverse, if any.
        package var inverse: String?
        /// The delete rule, as the model's; `nil` where the store did not record it (OpenSwiftData
        /// stores created before rules were recorded), which deletes follow as `.nullify`.
        package var deleteRule: Schema.Relationship.DeleteRule?
        /// For a to-one, whether it may be empty: a delete that would clear one that may not is
        /// refused, as the context's save refuses it. `true` where the store did not record it.
        package var isOptional = true
        let storage: RelationshipStorage

        /// Whether the row itself keeps the related row's key (a to-one whose inverse does not).
        package var isKeptInRow: Bool {
            if case .foreignKey = storage { return true }
            return false
        }
    }

    package struct Entity: Sendable {
        package let name: String
        package let superentity: String?
        package let attributes: [Attribute]
        package let relationships: [Relationship]
        /// Groups of property names that are unique together, and the indexes the schema declares.
        package let uniqueness: [[String]]
        package let indices: [[String]]
        /// The table holding the rows (the hierarchy's top entity's).
        package let table: String
        /// The values of the table's entity column that are rows of this entity or of its
        /// subentities; `nil` where the whole table is this entity's.
        let entityValues: [StoredValue]?
        /// The attributes and relationships of its rows: its superentities' first, then its own.
        /// Worked out once, with the catalog: every row of a page is read by them.
        package internal(set) var rowAttributes: [Attribute] = []
        package internal(set) var rowRelationships: [Relationship] = []

        package func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }
        package func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }
        /// Whether its table holds rows of other entities of its class hierarchy too.
        package var sharesTable: Bool { superentity != nil || (entityValues?.count ?? 0) > 1 }

        /// The attribute that names a row where its key alone would not ("Food" for
        /// "Category 1"): `name` or `title` if it is text, else the first text attribute that may
        /// not be empty; `nil` if there is none.
        package var labelAttribute: Attribute? {
            let texts = rowAttributes.filter { $0.kind == .string }
            return texts.first { $0.name == "name" || $0.name == "title" } ?? texts.first { !$0.isOptional }
        }
    }

    package let layout: Layout
    /// The schema version the store recorded (`nil` for a Core Data file, which records hashes).
    package let version: String?
    package let entities: [Entity]
    /// The column naming each row's entity in a table shared by a class hierarchy.
    let entityColumn: String

    package func entity(_ name: String) -> Entity? { entities.first { $0.name == name } }

    /// The entities that inherit from `name`, directly or not.
    package func subentities(of name: String) -> [String] {
        Array(Self.lineage(of: name, superentities: entities.reduce(into: [:]) { $0[$1.name] = $1.superentity }).dropFirst())
    }

    /// `name` and every entity that inherits from it, directly or not, parents before children;
    /// ends even where a damaged file's entities inherit in a circle.
    static func lineage(of name: String, superentities: [String: String?]) -> [String] {
        var result = [name]
        var seen: Set<String> = [name]
        var index = 0
        while index < result.count {
            let current = result[index]
            index += 1
            for (child, parent) in superentities.sorted(by: { $0.key < $1.key }) where parent == current && seen.insert(child).inserted {
                result.append(child)
            }
        }
        return result
    }

    /// `name`'s superentities, nearest first, as far as the chain is sound; `nil` where it loops
    /// back or names an entity that does not exist.
    static func ancestors(of name: String, superentities: [String: String?]) -> [String]? {
        var result: [String] = []
        var seen: Set<String> = [name]
        var current = name
        while let parent = superentities[current] ?? nil {
            guard superentities[parent] != nil, seen.insert(parent).inserted else { return nil }
            result.append(parent)
            current = parent
        }
        return result
    }

    init(layout: Layout, version: String?, entities: [Entity], entityColumn: String) {
        self.layout = layout
        self.version = version
        // A damaged file may name a superentity that does not exist or inherit in a circle: such
        // an entity is shown on its own, so nothing that walks the hierarchy can loop.
        let parents = entities.reduce(into: [String: String?]()) { $0[$1.name] = $1.superentity }
        let linked = entities.map { entity in
            // Each relationship's inverse: the destination's relationship stored in the same place.
            var relationships = entity.relationships
            for index in relationships.indices where relationships[index].inverse == nil {
                let relationship = relationships[index]
                guard let destination = entities.first(where: { $0.name == relationship.destination }) else { continue }
                relationships[index].inverse = destination.relationships.first {
                    Self.isInverse($0, of: relationship, owner: entity, destination: destination)
                }?.name
            }
            return Entity(
                name: entity.name, superentity: Self.ancestors(of: entity.name, superentities: parents) == nil ? nil : entity.superentity,
                attributes: entity.attributes, relationships: relationships,
                uniqueness: entity.uniqueness, indices: entity.indices, table: entity.table, entityValues: entity.entityValues)
        }
        // Each entity's rows' properties, its superentities' first (the chain is sound by now).
        var resolved = linked
        for index in resolved.indices {
            var chain: [Entity] = [resolved[index]]
            while let parent = chain.last?.superentity, let next = linked.first(where: { $0.name == parent }) { chain.append(next) }
            for entity in chain.reversed() {
                resolved[index].rowAttributes += entity.attributes.filter { own in !resolved[index].rowAttributes.contains { $0.name == own.name } }
                resolved[index].rowRelationships += entity.relationships.filter { own in !resolved[index].rowRelationships.contains { $0.name == own.name } }
            }
        }
        self.entities = resolved
        self.entityColumn = entityColumn
    }

    /// Whether `candidate` (a relationship of `destination`) keeps its links where `relationship` does.
    private static func isInverse(_ candidate: Relationship, of relationship: Relationship, owner: Entity, destination: Entity) -> Bool {
        guard candidate.destination == owner.name || candidate.destination == owner.superentity else { return false }
        switch (relationship.storage, candidate.storage) {
        case (.foreignKey(let column), .inverseForeignKey(let table, let other)):
            return table == owner.table && column == other
        case (.inverseForeignKey(let table, let column), .foreignKey(let other)):
            return table == destination.table && column == other
        case (.joinTable(let table, let ownerColumn, let otherColumn), .joinTable(let candidateTable, let candidateOwner, let candidateOther)):
            return table == candidateTable && ownerColumn == candidateOther && otherColumn == candidateOwner
        default:
            return false
        }
    }
}
