import Foundation

/// Where a relationship's links were before a migration: the stored relationship a property takes
/// over, and a query giving its links as `(owner, other)` pairs, whatever their old storage.
extension SQLMigrator {
    /// The stored relationship whose links `property` takes over: its own former self, or its
    /// inverse's (read the other way round).
    func oldRelationship(for property: PropertyLayout, in layout: ModelLayout) -> (entity: String, relationship: SchemaFingerprint.Relationship, reversed: Bool)? {
        guard let relationship = property.relationship else { return nil }
        let destination = relationship.destination.entityName
        if let entity = old.entities[layout.entityName], old.entities[destination] != nil,
           let name = oldName(of: property, among: { entity.relationship($0)?.destination == destination }),
           let found = entity.relationship(name) {
            return (layout.entityName, found, false)
        }
        // A to-many sharing its inverse to-one with others cannot tell its links from theirs in
        // the to-one's column: only its own former self gives it links.
        if let inverse = relationship.inverse, !relationship.keepsPairsAgainstAToOne,
           let entity = old.entities[destination], old.entities[layout.entityName] != nil,
           let name = oldName(of: inverse, among: { entity.relationship($0)?.destination == layout.entityName }),
           let found = entity.relationship(name) {
            return (destination, found, true)
        }
        return nil
    }

    /// A query over the old tables giving each link of `source` as `(owner, other)`.
    func links(_ source: (entity: String, relationship: SchemaFingerprint.Relationship, reversed: Bool)) -> String {
        let pk = q(ModelLayout.primaryKeyColumn)
        let (owner, other): (String, String)
        let from: String
        var condition = ""
        switch source.relationship.storage {
        case .foreignKey(let column):
            (owner, other) = (pk, q(column))
            from = table(source.entity)
            condition = " WHERE \(q(column)) IS NOT NULL"
        case .inverseForeignKey(let destination, let column):
            (owner, other) = (q(column), pk)
            from = table(destination)
            condition = " WHERE \(q(column)) IS NOT NULL"
        case .joinTable(let joinTable, let ownerColumn, let otherColumn):
            (owner, other) = (q(ownerColumn), q(otherColumn))
            from = table(joinTable)
        }
        let columns = source.reversed ? "\(other) AS owner, \(owner) AS other" : "\(owner) AS owner, \(other) AS other"
        return "SELECT \(columns) FROM \(q(from))\(condition)"
    }
}
