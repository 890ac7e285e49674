import Foundation

extension Schema {
    /// A persisted attribute: a value stored in a column.
    ///
    /// `@Attribute(...)` creates one with just its options; the schema completes it with the
    /// property's name and type. `@unchecked Sendable`: the schema's instances are never mutated
    /// after it is built, and the partial ones `@Attribute` makes are only read.
    public final class Attribute: SchemaProperty, Hashable, @unchecked Sendable {
        /// The property's name.
        public private(set) var name: String
        /// The name the property had before a rename, or its name.
        public private(set) var originalName: String
        /// The options given with the property.
        public private(set) var options: [Option]
        /// The property's Swift type.
        public private(set) var valueType: any Any.Type
        /// Whether the property may be `nil`.
        public internal(set) var isOptional: Bool
        /// The value type's name, kept for a decoded schema whose type is not known here.
        var valueTypeName: String
        /// A string that changes the schema's hash without changing storage, if given.
        public let hashModifier: String?
        /// The value a new model gets when its initialiser does not set the property, if known.
        public private(set) var defaultValue: Any?
        /// The entity this attribute belongs to.
        public internal(set) var entityName: String

        /// Whether this is an attribute.
        public var isAttribute: Bool { true }
        /// Whether this is a relationship.
        public var isRelationship: Bool { false }
        /// Always `false`: transient properties are not part of a schema.
        public var isTransient: Bool { false }
        /// Whether the property is unique among models of its entity.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the value is stored outside the row; a hint OpenSwiftData records but stores inline.
        public var isExternalStorage: Bool { options.contains(.externalStorage) }
        /// Whether the value is transformed before storage.
        public var isTransformable: Bool { options.contains { $0.transformerName != nil } }
        /// Whether the attribute is stored in its type's own `Codable` form (``Option/codable``).
        public var isCodable: Bool { options.contains(.codable) }

        /// The description `@Attribute(...)` passes to the schema.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.name = ""
            self.originalName = originalName ?? ""
            self.options = options
            self.valueType = Any.self
            self.valueTypeName = "Any"
            self.isOptional = false
            self.hashModifier = hashModifier
            self.entityName = ""
        }

        /// A complete attribute, for a schema described by hand (see ``Schema/Entity``).
        ///
        /// ```swift
        /// Schema.Attribute(name: "rating", options: [.unique], valueType: Int?.self, defaultValue: nil)
        /// ```
        public init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            self.name = name
            self.originalName = originalName ?? name
            self.options = options
            self.valueType = valueType
            self.valueTypeName = String(describing: valueType)
            self.isOptional = valueType is any _OptionalProtocol.Type
            self.defaultValue = defaultValue
            self.hashModifier = hashModifier
            self.entityName = ""
        }

        init(layout: PropertyLayout, entityName: String) {
            let declared = layout.metadata as? Attribute
            self.name = layout.name
            self.originalName = declared.flatMap { $0.originalName.isEmpty ? nil : $0.originalName } ?? layout.name
            self.options = layout.attributeOptions
            self.valueType = layout.valueType
            self.valueTypeName = String(describing: layout.valueType)
            self.isOptional = layout.codec?.isOptional ?? false
            self.defaultValue = layout.defaultValue
            self.hashModifier = declared?.hashModifier
            self.entityName = entityName
        }

        /// Whether both sides describe the same thing (see the type's documentation for what is compared).
        public static func == (lhs: Attribute, rhs: Attribute) -> Bool {
            lhs === rhs || (lhs.entityName == rhs.entityName && lhs.name == rhs.name)
        }
        /// Hashes the components `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(entityName)
            hasher.combine(name)
        }
        /// A readable description, for logs and debugging.
        public var description: String { "\(name): \(valueTypeName)" }

        /// Options that change how an attribute is stored.
        ///
        /// `.unique` is enforced (an insert with an existing value updates that row). The others are
        /// accepted for source compatibility and recorded in the schema; on this platform they do not
        /// change storage: `.externalStorage` (values stay in the row), `.ephemeral`,
        /// `.preserveValueOnDeletion`, `.spotlight`, `.allowsCloudEncryption`.
        public struct Option: Hashable, Sendable, CustomStringConvertible {
            let name: String
            let transformerName: String?
            let transformerType: TransformerType?

            init(name: String, transformerName: String? = nil, transformerType: TransformerType? = nil) {
                self.name = name
                self.transformerName = transformerName
                self.transformerType = transformerType
            }

            /// A transformer class, compared by identity. `@unchecked Sendable`: a class object.
            struct TransformerType: Hashable, @unchecked Sendable {
                let type: ValueTransformer.Type
                static func == (lhs: Self, rhs: Self) -> Bool { ObjectIdentifier(lhs.type) == ObjectIdentifier(rhs.type) }
                func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(type)) }
            }

            /// The transformer the option names: an instance of its class, or the one registered
            /// under its name.
            func makeTransformer() -> ValueTransformer? {
                if let type = transformerType?.type {
                    #if canImport(Darwin)
                    return (type as NSObject.Type).init() as? ValueTransformer
                    #else
                    return type.init()
                    #endif
                }
                return transformerName.flatMap { ValueTransformer(forName: NSValueTransformerName($0)) }
            }

            /// Values are unique among models of the entity; inserting a duplicate updates the existing
            /// row (relationships are merged as ``Unique(_:)`` describes).
            public static let unique = Option(name: "unique")
            /// Store large values outside the row (a hint; values are stored inline here).
            public static let externalStorage = Option(name: "externalStorage")
            /// Encrypt the value in CloudKit (a hint; no effect without CloudKit).
            public static let allowsCloudEncryption = Option(name: "allowsCloudEncryption")
            /// Keep the value in history when the model is deleted (a hint until history is implemented).
            public static let preserveValueOnDeletion = Option(name: "preserveValueOnDeletion")
            /// Track changes to the value without persisting them (a hint; the value is persisted).
            public static let ephemeral = Option(name: "ephemeral")
            /// Index the value for Spotlight (a hint; there is no Spotlight off Apple platforms).
            public static let spotlight = Option(name: "spotlight")
            /// Store the value in its type's own `Codable` encoding, as one opaque value: predicates
            /// and sorts cannot look into it, and the type can change shape (gain a field, say)
            /// without a migration — stored values decode with the new type as its `Codable`
            /// conformance allows.
            ///
            /// ```swift
            /// @Attribute(.codable) var preferences: Preferences   // a struct of your own, or a third party's
            /// ```
            public static var codable: Option { Option(name: "codable") }
            /// Store the value as the `Data` a transformer makes of it, and read it back through the
            /// transformer's reverse transformation (see ``ValueTransformer``).
            ///
            /// ```swift
            /// @Attribute(.transformable(by: RGBTransformer.self)) var color: RGB
            /// ```
            public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
                Option(name: "transformable", transformerName: String(describing: transformerType), transformerType: TransformerType(type: transformerType))
            }

            /// Store the value through the transformer registered under `transformerName` with
            /// `ValueTransformer.setValueTransformer(_:forName:)` (registered before the first
            /// container for the model is made).
            public static func transformable(by transformerName: String) -> Option {
                Option(name: "transformable", transformerName: transformerName)
            }

            /// A readable description, for logs and debugging.
            public var description: String { name }
        }
    }
}
