import Foundation

extension Schema {
    /// One model class in a schema.
    ///
    /// A schema made from `@Model` classes describes them; an entity can also be made by hand, to
    /// describe a schema without its classes (``Schema/init(_:version:)-(Schema.Entity...,_)``):
    ///
    /// ```swift
    /// let trip = Schema.Entity("Trip", properties:
    ///     Schema.Attribute(name: "name", valueType: String.self),
    ///     Schema.Attribute(name: "startDate", valueType: Date.self))
    /// ```
    ///
    /// As in SwiftData, `name`, `attributes`, `relationships`, `superentity`, `subentities`,
    /// `uniquenessConstraints` and `indices` can be changed, to build a description by hand;
    /// changing an entity of a schema made from classes changes the description only — stores
    /// keep to the classes.
    ///
    /// `@unchecked Sendable`: the library never changes an entity once the schema holding it is
    /// built; code that changes one must not share it across threads meanwhile.
    public final class Entity: Hashable, @unchecked Sendable, CustomStringConvertible {
        /// The entity's name (the class name).
        public var name: String
        /// The Swift class name.
        public let className: String
        /// The persisted properties, in declaration order: for a subclass, its superclass's first
        /// (``inheritedProperties``), then its own.
        public private(set) var properties: [any SchemaProperty]
        /// The entity of the model class this one inherits from (`@Model class BusinessTrip: Trip`
        /// has `Trip`'s), or `nil`.
        ///
        /// ```swift
        /// let schema = Schema([Trip.self, BusinessTrip.self])
        /// schema.entitiesByName["BusinessTrip"]?.superentity?.name   // "Trip"
        /// schema.entitiesByName["Trip"]?.subentities.map(\.name)     // ["BusinessTrip"]
        /// ```
        public weak var superentity: Entity? {
            didSet { superentityName = superentity?.name }
        }
        /// The entities of the schema's model classes that inherit directly from this one.
        public var subentities: Set<Entity> = []
        /// The name of ``superentity``, or `nil`.
        public internal(set) var superentityName: String?
        /// The properties this entity inherits from its superentity (a prefix of ``properties``).
        public var inheritedProperties: [any SchemaProperty] { Array(properties.prefix(inheritedCount)) }
        /// The inherited properties by name.
        public var inheritedPropertiesByName: [String: any SchemaProperty] {
            Dictionary(uniqueKeysWithValues: inheritedProperties.map { ($0.name, $0) })
        }
        private var inheritedCount: Int
        /// The attributes. Setting them updates ``properties`` and ``attributesByName``.
        public var attributes: Set<Attribute> {
            didSet { propertiesChanged() }
        }
        /// The relationships. Setting them updates ``properties`` and ``relationshipsByName``.
        public var relationships: Set<Relationship> {
            didSet { propertiesChanged() }
        }
        /// The attributes by name.
        public private(set) var attributesByName: [String: Attribute]
        /// The relationships by name.
        public private(set) var relationshipsByName: [String: Relationship]
        /// The groups of property names whose values are unique together.
        public var uniquenessConstraints: [[String]]
        /// The groups of property names that are indexed together.
        public var indices: [[String]]
        /// The persisted properties by name.
        public var storedPropertiesByName: [String: any SchemaProperty] {
            Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0) })
        }
        /// The persisted properties (same as ``properties``).
        public var storedProperties: [any SchemaProperty] { properties }

        convenience init(layout: ModelLayout) {
            var properties: [any SchemaProperty] = []
            for property in layout.properties {
                if let relationship = property.relationship {
                    properties.append(Relationship(layout: property, relationship: relationship, entityName: layout.entityName))
                } else {
                    properties.append(Attribute(layout: property, entityName: layout.entityName))
                }
            }
            self.init(
                name: layout.entityName, className: String(reflecting: layout.modelType), superentityName: layout.superLayout?.entityName,
                inheritedCount: layout.inheritedCount, properties: properties,
                uniquenessConstraints: layout.uniquenessConstraints.map { $0.map { layout.properties[$0].name } },
                indices: layout.indices.map { $0.map { layout.properties[$0].name } })
        }

        init(
            name: String, className: String, superentityName: String?, inheritedCount: Int, properties: [any SchemaProperty],
            uniquenessConstraints: [[String]], indices: [[String]]
        ) {
            self.name = name
            self.className = className
            self.superentityName = superentityName
            self.inheritedCount = inheritedCount
            self.properties = properties
            let attributes = properties.compactMap { $0 as? Attribute }
            let relationships = properties.compactMap { $0 as? Relationship }
            for attribute in attributes where attribute.entityName.isEmpty { attribute.entityName = name }
            for relationship in relationships where relationship.entityName.isEmpty { relationship.entityName = name }
            self.attributes = Set(attributes)
            self.relationships = Set(relationships)
            self.attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            self.relationshipsByName = Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            self.uniquenessConstraints = uniquenessConstraints
            self.indices = indices
        }

        /// An entity without properties, described by hand.
        public convenience init(_ name: String) {
            self.init(name, subentities: [], properties: [])
        }

        /// An entity with the given properties, described by hand.
        public convenience init(_ name: String, properties: any SchemaProperty...) {
            self.init(name, subentities: [], properties: properties)
        }

        /// An entity with subentities (which inherit from it) and properties, described by hand.
        public convenience init(_ name: String, subentities: Entity..., properties: any SchemaProperty...) {
            self.init(name, subentities: subentities, properties: properties)
        }

        private convenience init(_ name: String, subentities: [Entity], properties: [any SchemaProperty]) {
            self.init(name: name, className: name, superentityName: nil, inheritedCount: 0, properties: properties, uniquenessConstraints: [], indices: [])
            for subentity in subentities {
                subentity.superentity = self
                subentity.superentityName = name
                self.subentities.insert(subentity)
            }
        }

        /// After `attributes` or `relationships` changed: the properties kept stay in their order,
        /// new ones follow by name.
        private func propertiesChanged() {
            let members = Set(attributes.map { ObjectIdentifier($0) } + relationships.map { ObjectIdentifier($0) })
            inheritedCount = properties.prefix(inheritedCount).filter { members.contains(ObjectIdentifier($0)) }.count
            let kept = properties.filter { members.contains(ObjectIdentifier($0)) }
            let known = Set(kept.map { ObjectIdentifier($0) })
            let all: [any SchemaProperty] = Array(attributes) + Array(relationships)
            properties = kept + all.filter { !known.contains(ObjectIdentifier($0)) }.sorted { $0.name < $1.name }
            for attribute in attributes where attribute.entityName.isEmpty { attribute.entityName = name }
            for relationship in relationships where relationship.entityName.isEmpty { relationship.entityName = name }
            attributesByName = Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            relationshipsByName = Dictionary(relationships.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
