import Foundation

extension Schema {
    /// One persisted property as `@Model` describes it: its name, key path and options.
    ///
    /// `@unchecked Sendable`: immutable; the key path and default value are never mutated.
    public struct PropertyMetadata: @unchecked Sendable {
        /// The property's name.
        public var name: String
        /// The property's key path on its model.
        public var keypath: AnyKeyPath
        /// The property's default value, if `@Model` recorded one.
        public var defaultValue: Any?
        /// The options given with `@Attribute` or `@Relationship`, if any.
        public var metadata: (any SchemaProperty)?
        /// Type information captured from the key path's generic parameters.
        @usableFromInline let typed: (any TypedPropertyInfo)?

        /// Describes a property without type information (SwiftData's form). Models described this
        /// way cannot be stored; `@Model` uses the typed form.
        public init(name: String, keypath: AnyKeyPath, defaultValue: Any? = nil, metadata: (any SchemaProperty)? = nil) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
            self.typed = nil
        }

        @usableFromInline
        init(name: String, keypath: AnyKeyPath, defaultValue: Any? = nil, metadata: (any SchemaProperty)?, typed: any TypedPropertyInfo) {
            self.name = name
            self.keypath = keypath
            self.defaultValue = defaultValue
            self.metadata = metadata
            self.typed = typed
        }

        /// The form `@Model` generates: the key path's generic parameters give the property's type.
        public static func _persisted<Root: PersistentModel, Value>(
            name: String,
            keyPath: KeyPath<Root, Value>,
            defaultValue: Value? = nil,
            metadata: (any SchemaProperty)?
        ) -> PropertyMetadata {
            PropertyMetadata(name: name, keypath: keyPath, defaultValue: defaultValue.map { $0 as Any }, metadata: metadata, typed: TypedProperty(keyPath: keyPath))
        }

        // The relationship shapes. Overload resolution picks these for model-typed properties in
        // the code `@Model` generates, and, being inlinable, they are compiled there with the
        // concrete types, so relationship values are handled without run-time generic lookups.

        /// The form `@Model` generates for a required to-one relationship.
        @inlinable
        public static func _persisted<Root: PersistentModel, Destination: PersistentModel>(
            name: String,
            keyPath: KeyPath<Root, Destination>,
            defaultValue: Destination? = nil,
            metadata: (any SchemaProperty)?
        ) -> PropertyMetadata {
            PropertyMetadata(name: name, keypath: keyPath, metadata: metadata, typed: TypedProperty(
                keyPath: keyPath, relationshipAccess: .requiredToOne(Destination.self)))
        }

        /// The form `@Model` generates for an optional to-one relationship.
        @inlinable
        public static func _persisted<Root: PersistentModel, Destination: PersistentModel>(
            name: String,
            keyPath: KeyPath<Root, Destination?>,
            defaultValue: Destination?? = nil,
            metadata: (any SchemaProperty)?
        ) -> PropertyMetadata {
            PropertyMetadata(name: name, keypath: keyPath, metadata: metadata, typed: TypedProperty(
                keyPath: keyPath, relationshipAccess: .optionalToOne(Destination.self)))
        }

        /// The form `@Model` generates for a to-many relationship.
        @inlinable
        public static func _persisted<Root: PersistentModel, Destination: PersistentModel>(
            name: String,
            keyPath: KeyPath<Root, [Destination]>,
            defaultValue: [Destination]? = nil,
            metadata: (any SchemaProperty)?
        ) -> PropertyMetadata {
            PropertyMetadata(name: name, keypath: keyPath, metadata: metadata, typed: TypedProperty(
                keyPath: keyPath, relationshipAccess: .toMany(Destination.self)))
        }

        /// The form `@Model` generates for an optional to-many relationship.
        @inlinable
        public static func _persisted<Root: PersistentModel, Destination: PersistentModel>(
            name: String,
            keyPath: KeyPath<Root, [Destination]?>,
            defaultValue: [Destination]?? = nil,
            metadata: (any SchemaProperty)?
        ) -> PropertyMetadata {
            PropertyMetadata(name: name, keypath: keyPath, metadata: metadata, typed: TypedProperty(
                keyPath: keyPath, relationshipAccess: .optionalToMany(Destination.self)))
        }
    }
}
