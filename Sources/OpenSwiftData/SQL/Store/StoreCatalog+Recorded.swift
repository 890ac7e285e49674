import Foundation

extension StoreCatalog {
    /// The catalog of an OpenSwiftData store (a file or a PostgreSQL namespace) from the schema
    /// description it records (``SchemaFingerprint``): tables named after entities, a column per
    /// property, `Z_ENT` naming each row's entity in a table a class hierarchy shares.
    /// `rules`: the delete rules and inverses the store recorded beside it
    /// (``SQLStore/recordRelationships(of:on:dialect:)``), where it did.
    init(recorded fingerprint: SchemaFingerprint, version: String?, relationships rules: [String: RecordedRelationship]) {
        let entities = fingerprint.entityNames.compactMap { fingerprint.entities[$0] }
        let inherited = Dictionary(grouping: entities.filter { $0.superentity != nil }, by: { fingerprint.tableName(of: $0.name) })
        let parents = entities.reduce(into: [String: String?]()) { $0[$1.name] = $1.superentity }
        let catalogEntities = entities.map { entity -> Entity in
            let table = fingerprint.tableName(of: entity.name)
            let sharesTable = inherited[table] != nil
            // A subentity's description repeats its superentities' properties: keep its own.
            let ancestors = (Self.ancestors(of: entity.name, superentities: parents) ?? []).compactMap { fingerprint.entities[$0] }
            let inheritedNames = Set(ancestors.flatMap { $0.attributes.map(\.name) + $0.relationships.map(\.name) })
            return Entity(
                name: entity.name, superentity: entity.superentity,
                attributes: entity.attributes.filter { !inheritedNames.contains($0.name) }.map { attribute in
                    Attribute(
                        name: attribute.name, typeName: attribute.typeName, kind: Self.kind(typeName: attribute.typeName, stored: attribute.storedType),
                        isOptional: attribute.isOptional, column: attribute.name)
                },
                relationships: entity.relationships.filter { !inheritedNames.contains($0.name) }.map { relationship in
                    let recorded = rules["\(entity.name).\(relationship.name)"]
                    return Relationship(
                        name: relationship.name, destination: relationship.destination, isToMany: relationship.isToMany,
                        inverse: recorded?.inverse, deleteRule: recorded?.rule, isOptional: !(recorded?.isRequired ?? false), storage: relationship.storage)
                },
                uniqueness: entity.uniqueness, indices: entity.indices, table: table,
                entityValues: sharesTable ? Self.lineage(of: entity.name, superentities: parents).map { .text($0) } : nil)
        }
        self.init(layout: .openSwiftData, version: version, entities: catalogEntities, entityColumn: ModelLayout.entityColumn)
    }

    /// How values of a Swift type the store recorded are shown.
    static func kind(typeName: String, stored: StoredType) -> ValueKind {
        switch typeName {
        case "String", "Substring": return .string
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": return .integer
        case "Double", "Float", "CGFloat", "Float32", "Float64": return .double
        case "Bool": return .bool
        case "Date": return .date
        case "UUID": return .uuid
        case "Decimal": return .decimal
        case "Data": return .data
        case "URL": return .url
        default: return stored == .text ? .codable : .other
        }
    }
}
