import Foundation

extension Schema {
    /// A relationship between two entities.
    ///
    /// `@Relationship(...)` creates one with its options; the schema completes it with the
    /// property's name, destination and inverse. `@unchecked Sendable`: the schema's instances are
    /// never mutated after it is built, and the partial ones `@Relationship` makes are only read.
    public final class Relationship: SchemaProperty, Hashable, @unchecked Sendable {
        /// The property's name.
        public private(set) var name: String
        /// The name the property had before a rename, or its name.
        public private(set) var originalName: String
        /// The options given with the property.
        public let options: [Option]
        /// What happens to the related models when the owner is deleted.
        public let deleteRule: DeleteRule
        /// The fewest related models allowed (0: no minimum). Checked when saving.
        public let minimumModelCount: Int?
        /// The most related models allowed (0: no maximum). Checked when saving.
        public let maximumModelCount: Int?
        /// The inverse relationship's key path, if one was given.
        public let inverseKeyPath: AnyKeyPath?
        /// A string that changes the schema's hash without changing storage, if given.
        public let hashModifier: String?
        /// The destination entity's name.
        public private(set) var destination: String
        /// The inverse relationship's name, if the relationship has an inverse.
        public private(set) var inverseName: String?
        /// The key path of this relationship.
        public private(set) var keypath: AnyKeyPath?
        /// Whether the relationship holds at most one model.
        public private(set) var isToOneRelationship: Bool
        /// The property's Swift type.
        public private(set) var valueType: any Any.Type
        /// Whether the property may be `nil`.
        public private(set) var isOptional: Bool
        /// The value type's name, kept for a decoded schema whose type is not known here.
        let valueTypeName: String
        /// The entity this relationship belongs to.
        public internal(set) var entityName: String

        /// Whether this is an attribute.
        public var isAttribute: Bool { false }
        /// Whether this is a relationship.
        public var isRelationship: Bool { true }
        /// Always `false`: transient properties are not part of a schema.
        public var isTransient: Bool { false }
        /// Whether the property is unique among models of its entity.
        public var isUnique: Bool { options.contains(.unique) }

        /// The description `@Relationship(...)` passes to the schema.
        public init(
            _ options: Option...,
            deleteRule: DeleteRule = .nullify,
            minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0,
            originalName: String? = nil,
            inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.name = ""
            self.originalName = originalName ?? ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.inverseKeyPath = inverse
            self.hashModifier = hashModifier
            self.destination = ""
            self.inverseName = nil
            self.keypath = nil
            self.isToOneRelationship = false
            self.valueType = Any.self
            self.valueTypeName = "Any"
            self.isOptional = true
            self.entityName = ""
        }

        init(layout: PropertyLayout, relationship: RelationshipLayout, entityName: String) {
            let declared = layout.metadata as? Relationship
            self.name = layout.name
            self.originalName = declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName } ?? layout.name
            self.options = declared?.options ?? []
            self.deleteRule = relationship.deleteRule
            self.minimumModelCount = relationship.minimumModelCount
            self.maximumModelCount = relationship.maximumModelCount
            self.inverseKeyPath = relationship.inverse?.keyPath
            self.hashModifier = declared?.hashModifier
            self.destination = relationship.destination.entityName
            self.inverseName = relationship.inverse?.name
            self.keypath = layout.keyPath
            self.isToOneRelationship = !relationship.isToMany
            self.valueType = layout.valueType
            self.valueTypeName = String(describing: layout.valueType)
            self.isOptional = relationship.isOptional
            self.entityName = entityName
        }

        /// A relationship of a decoded schema.
        init(archived property: SchemaArchive.PropertyArchive, _ archived: SchemaArchive.RelationshipArchive, valueType: any Any.Type, entityName: String) {
            self.name = property.name
            self.originalName = property.originalName
            self.options = property.options.map { Option(name: $0) }
            self.deleteRule = archived.deleteRule
            self.minimumModelCount = archived.minimumModelCount
            self.maximumModelCount = archived.maximumModelCount
            self.inverseKeyPath = nil
            self.hashModifier = property.hashModifier
            self.destination = archived.destination
            self.inverseName = archived.inverse
            self.keypath = nil
            self.isToOneRelationship = archived.isToOne
            self.valueType = valueType
            self.valueTypeName = property.valueType
            self.isOptional = property.isOptional
            self.entityName = entityName
        }

        /// Whether both sides describe the same thing (see the type's documentation for what is compared).
        public static func == (lhs: Relationship, rhs: Relationship) -> Bool {
            lhs === rhs || (lhs.entityName == rhs.entityName && lhs.name == rhs.name)
        }
        /// Hashes the components `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(entityName)
            hasher.combine(name)
        }
        /// A readable description, for logs and debugging.
        public var description: String {
            "\(name): \(isToOneRelationship ? destination : "[\(destination)]")"
        }

        /// What deleting a model does to the models it relates to.
        public enum DeleteRule: String, Hashable, Codable, Sendable {
            /// Related models stay; their reference to the deleted model is cleared. The default.
            case nullify
            /// Related models are deleted too.
            case cascade
            /// The delete is refused (the save throws) while related models exist.
            case deny
            /// Nothing is done: related models keep referring to the deleted model.
            case noAction
        }

        /// Options for relationships.
        public struct Option: Hashable, Sendable {
            let name: String
            /// The related model is unique (accepted for source compatibility).
            public static let unique = Option(name: "unique")
        }
    }
}
