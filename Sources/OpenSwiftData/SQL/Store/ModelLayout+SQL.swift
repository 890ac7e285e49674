import Foundation

/// A model in an SQL store: a table per entity named after it, keyed by `Z_PK`, with a column per
/// stored slot named after the property. A class hierarchy (`@Model class BusinessTrip: Trip`)
/// shares its top class's table, which has a column per property of every class in it and
/// `Z_ENT`, the entity of each row.
extension ModelLayout {
    /// The table holding this entity's rows: its hierarchy's top entity's.
    var tableName: String { root.entityName }
    static let primaryKeyColumn = "Z_PK"
    /// The column naming each row's entity, in the table of a class hierarchy.
    static let entityColumn = "Z_ENT"

    /// The columns that read a row under `alias`: the primary key, then each of `slots` (by
    /// default every stored slot, in `storedSlots` order).
    func rowColumns(alias: String, slots: [Int]? = nil) -> [SQLExpression] {
        [.column(table: alias, name: ModelLayout.primaryKeyColumn)]
            + (slots ?? storedSlots).map { .column(table: alias, name: properties[$0].name) }
    }

    /// The canonical description of the tables used for the schema fingerprint a store file keeps
    /// (unchanged since the first version, so existing files keep opening).
    var fingerprintDescription: String {
        var parts = ["entity \(entityName)"]
        if let superLayout { parts.append("  super \(superLayout.entityName)") }
        for property in properties {
            if let relationship = property.relationship {
                parts.append("  rel \(property.name) -> \(relationship.destination.entityName) \(relationship.isToMany ? "many" : "one") \(relationship.storage.fingerprint)")
            } else if let codec = property.codec {
                parts.append("  attr \(property.name) \(codec.schemaTypeName) \(codec.storedType.rawValue)\(codec.isSwiftString ? " swift" : "")\(codec.isOptional ? " null" : "")")
            }
        }
        for group in uniquenessConstraints { parts.append("  unique \(group.map { properties[$0].name }.joined(separator: ","))") }
        for group in indices { parts.append("  index \(group.map { properties[$0].name }.joined(separator: ","))") }
        return parts.joined(separator: "\n")
    }
}

extension RelationshipLayout {
    /// Where the relationship's links live in an SQL database.
    var storage: RelationshipStorage {
        switch shape {
        case .reference(let name):
            return .foreignKey(column: name)
        case .inverseReference(let name):
            return .inverseForeignKey(table: destination.tableName, column: name)
        case .pairs(let name, let isFirst):
            return .joinTable(table: "Z_\(name)", ownerColumn: isFirst ? "Z_SOURCE" : "Z_TARGET", otherColumn: isFirst ? "Z_TARGET" : "Z_SOURCE")
        }
    }
}

/// Where a relationship's links live in an SQL store.
enum RelationshipStorage: Sendable {
    /// A to-one: a column of the owner's table holding the related row's primary key.
    case foreignKey(column: String)
    /// A to-many whose inverse is a to-one: the inverse's column in the destination table.
    case inverseForeignKey(table: String, column: String)
    /// A to-many whose inverse is a to-many, or that has no inverse: a table of pairs.
    case joinTable(table: String, ownerColumn: String, otherColumn: String)

    var fingerprint: String {
        switch self {
        case .foreignKey(let column): return "fk(\(column))"
        case .inverseForeignKey(let table, let column): return "inverse-fk(\(table).\(column))"
        case .joinTable(let table, let owner, let other): return "join(\(table):\(owner),\(other))"
        }
    }
}
