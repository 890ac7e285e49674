import Foundation

/// What ``Schema``'s `Codable` conformance writes: every entity, attribute and relationship by
/// name, value types by name. Also what hand-described schemas compare by.
struct SchemaArchive: Codable, Equatable {
    var version: Schema.Version
    var entities: [EntityArchive]

    struct EntityArchive: Codable, Equatable {
        var name: String
        var superentity: String?
        /// How many of `properties` (a prefix) are inherited from the superentity.
        var inheritedCount: Int
        var properties: [PropertyArchive]
        var uniquenessConstraints: [[String]]
        var indices: [[String]]
    }

    struct PropertyArchive: Codable, Equatable {
        var name: String
        var originalName: String
        var valueType: String
        var isOptional: Bool
        var hashModifier: String?
        /// Attribute options by name; a transformable one as `transformable:<transformer name>`.
        var options: [String]
        /// Set for relationships only.
        var relationship: RelationshipArchive?
    }

    struct RelationshipArchive: Codable, Equatable {
        var destination: String
        var inverse: String?
        var deleteRule: Schema.Relationship.DeleteRule
        var isToOne: Bool
        var minimumModelCount: Int?
        var maximumModelCount: Int?
    }

    init(_ schema: Schema) {
        version = schema.version
        entities = schema.entities.map { entity in
            EntityArchive(
                name: entity.name, superentity: entity.superentityName, inheritedCount: entity.inheritedProperties.count,
                properties: entity.properties.compactMap(PropertyArchive.init),
                uniquenessConstraints: entity.uniquenessConstraints, indices: entity.indices)
        }
    }
}

extension SchemaArchive.PropertyArchive {
    init?(_ property: any SchemaProperty) {
        if let attribute = property as? Schema.Attribute {
            self.init(
                name: attribute.name, originalName: attribute.originalName, valueType: attribute.valueTypeName,
                isOptional: attribute.isOptional, hashModifier: attribute.hashModifier,
                options: attribute.options.map { option in option.transformerName.map { "transformable:\($0)" } ?? option.name },
                relationship: nil)
        } else if let relationship = property as? Schema.Relationship {
            self.init(
                name: relationship.name, originalName: relationship.originalName, valueType: relationship.valueTypeName,
                isOptional: relationship.isOptional, hashModifier: relationship.hashModifier,
                options: relationship.options.map(\.name),
                relationship: SchemaArchive.RelationshipArchive(
                    destination: relationship.destination, inverse: relationship.inverseName, deleteRule: relationship.deleteRule,
                    isToOne: relationship.isToOneRelationship, minimumModelCount: relationship.minimumModelCount,
                    maximumModelCount: relationship.maximumModelCount))
        } else {
            return nil
        }
    }

    /// The attribute or relationship described.
    func property(entityName: String) -> any SchemaProperty {
        let type = SchemaArchive.knownTypes[valueType] ?? Any.self
        if let relationship {
            return Schema.Relationship(archived: self, relationship, valueType: type, entityName: entityName)
        }
        let options = self.options.map { name in
            name.hasPrefix("transformable:")
                ? Schema.Attribute.Option(name: "transformable", transformerName: String(name.dropFirst("transformable:".count)))
                : Schema.Attribute.Option(name: name)
        }
        let attribute = Schema.Attribute(
            name: name, originalName: originalName, options: options, valueType: type, hashModifier: hashModifier)
        attribute.valueTypeName = valueType
        attribute.isOptional = isOptional
        attribute.entityName = entityName
        return attribute
    }
}

extension SchemaArchive.EntityArchive {
    func entity() -> Schema.Entity {
        Schema.Entity(
            name: name, className: name, superentityName: superentity, inheritedCount: inheritedCount,
            properties: properties.map { $0.property(entityName: name) },
            uniquenessConstraints: uniquenessConstraints, indices: indices)
    }
}

extension SchemaArchive {
    /// Value types a decoded schema gets back by name (others decode as `Any.self`).
    static let knownTypes: [String: any Any.Type] = {
        let types: [any Any.Type] = [
            String.self, Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self,
            UInt32.self, UInt64.self, Double.self, Float.self, Bool.self, Date.self, UUID.self, URL.self, Data.self,
            Decimal.self, [String].self, [Int].self, [Double].self,
            String?.self, Int?.self, Int8?.self, Int16?.self, Int32?.self, Int64?.self, UInt?.self, UInt8?.self,
            UInt16?.self, UInt32?.self, UInt64?.self, Double?.self, Float?.self, Bool?.self, Date?.self, UUID?.self,
            URL?.self, Data?.self, Decimal?.self, [String]?.self, [Int]?.self, [Double]?.self,
        ]
        return Dictionary(types.map { (String(describing: $0), $0) }, uniquingKeysWith: { first, _ in first })
    }()
}
