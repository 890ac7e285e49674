import Foundation

extension Schema {
    /// One model class in a schema.
    ///
    /// `@unchecked Sendable`: all stored properties are `let`s set in `init` from an immutable layout.
    public final class Entity: Hashable, @unchecked Sendable, CustomStringConvertible {
        /// The entity's name (the class name).
        public let name: String
        /// The Swift class name.
        public let className: String
        /// The persisted properties, in declaration order: for a subclass, its superclass's first
        /// (``inheritedProperties``), then its own.
        public let properties: [any SchemaProperty]
        /// The entity of the model class this one inherits from (`@Model class BusinessTrip: Trip`
        /// has `Trip`'s), or `nil`.
        ///
        /// ```swift
        /// let schema = Schema([Trip.self, BusinessTrip.self])
        /// schema.entitiesByName["BusinessTrip"]?.superentity?.name   // "Trip"
        /// schema.entitiesByName["Trip"]?.subentities.map(\.name)     // ["BusinessTrip"]
        /// ```
        public internal(set) weak var superentity: Entity?
        /// The entities of the schema's model classes that inherit directly from this one.
        public internal(set) var subentities: Set<Entity> = []
        /// The name of ``superentity``, or `nil`.
        public let superentityName: String?
        /// The properties this entity inherits from its superentity (a prefix of ``properties``).
        public var inheritedProperties: [any SchemaProperty] { Array(properties.prefix(inheritedCount)) }
        /// The inherited properties by name.
        public var inheritedPropertiesByName: [String: any SchemaProperty] {
            Dictionary(uniqueKeysWithValues: inheritedProperties.map { ($0.name, $0) })
        }
        private let inheritedCount: Int
        /// The attributes.
        public let attributes: Set<Attribute>
        /// The relationships.
        public let relationships: Set<Relationship>
        /// The attributes by name.
        public let attributesByName: [String: Attribute]
        /// The relationships by name.
        public let relationshipsByName: [String: Relationship]
        /// The groups of property names whose values are unique together.
        public let uniquenessConstraints: [[String]]
        /// The groups of property names that are indexed together.
        public let indices: [[String]]
        /// The persisted properties by name.
        public var storedPropertiesByName: [String: any SchemaProperty] {
            Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0) })
        }
        /// The persisted properties (same as ``properties``).
        public var storedProperties: [any SchemaProperty] { properties }

        init(layout: ModelLayout) {
            name = layout.entityName
            className = String(reflecting: layout.modelType)
            superentityName = layout.superLayout?.entityName
            inheritedCount = layout.inheritedCount
            var properties: [any SchemaProperty] = []
            var attributes: [Attribute] = []
            var relationships: [Relationship] = []
            for property in layout.properties {
                if let relationship = property.relationship {
                    let described = Relationship(layout: property, relationship: relationship, entityName: layout.entityName)
                    relationships.append(described)
                    properties.append(described)
                } else {
                    let described = Attribute(layout: property, entityName: layout.entityName)
                    attributes.append(described)
                    properties.append(described)
                }
            }
            self.properties = properties
            self.attributes = Set(attributes)
            self.relationships = Set(relationships)
            self.attributesByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0) })
            self.relationshipsByName = Dictionary(uniqueKeysWithValues: relationships.map { ($0.name, $0) })
            self.uniquenessConstraints = layout.uniquenessConstraints.map { $0.map { layout.properties[$0].name } }
            self.indices = layout.indices.map { $0.map { layout.properties[$0].name } }
        }

        /// Whether both sides describe the same thing (see the type's documentation for what is compared).
        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs === rhs || lhs.name == rhs.name }
        /// Hashes the components `==` compares.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
        /// A readable description, for logs and debugging.
        public var description: String {
            "Entity(\(name): \(properties.map(\.description).joined(separator: ", ")))"
        }
    }
}
