import Foundation

/// The description of a set of models: their entities, attributes and relationships.
///
/// Built from `@Model` classes, following relationships: a schema for `Expense` also contains
/// `Category` when an expense has a category.
///
/// ```swift
/// let schema = Schema([Expense.self])
/// for entity in schema.entities {
///     print(entity.name, entity.attributes.map(\.name), entity.relationships.map(\.name))
/// }
/// ```
///
/// A schema can also be described without its classes, from ``Entity`` values or by decoding
/// (it is `Codable`); such a schema can be inspected, compared and archived, but a container
/// needs the classes and refuses it with an error that says so.
///
/// `@unchecked Sendable`: every stored property is a `let` set in `init`, and the entity objects it
/// holds are themselves immutable after the schema is built.
public final class Schema: Hashable, Codable, @unchecked Sendable, CustomStringConvertible {
    /// The entities, one per model class, in a stable order (the given types first, then the ones
    /// reached through relationships).
    public let entities: [Entity]
    /// The entities by name.
    public let entitiesByName: [String: Entity]
    /// The schema's version.
    public let version: Version
    /// The model classes, in the order of ``entities``.
    let layouts: [ModelLayout]
    /// The class hierarchies among the schema's models.
    let hierarchies: ModelHierarchies
    /// Problems found while building (unsupported types, ambiguous inverses); thrown when a container opens.
    let problems: [String]
    /// Whether any entity has a required to-one that is loaded with its owner
    /// (``ModelLayout/toOnesWithoutStandIn``): decided once, so that loads of every other
    /// schema skip the look at each model.
    let hasToOnesWithoutStandIn: Bool

    /// The entity name of a model type: its class name.
    ///
    /// ```swift
    /// Schema.entityName(for: Trip.self)   // "Trip"
    /// ```
    public static func entityName(for type: any PersistentModel.Type) -> String {
        ModelLayout.of(type).entityName
    }

    /// The entity of a model type, or `nil` if the schema does not contain it.
    ///
    /// ```swift
    /// Schema([Trip.self]).entity(for: Trip.self)?.attributes.map(\.name)
    /// ```
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? {
        entitiesByName[Schema.entityName(for: type)]
    }

    /// Creates a schema for the given models and every model reachable through their relationships.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var layouts: [ModelLayout] = []
        var seen = Set<ObjectIdentifier>()
        var queue = types.map { ModelLayout.of($0) }
        while !queue.isEmpty {
            let layout = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(layout)).inserted else { continue }
            layouts.append(layout)
            for property in layout.properties {
                if let destination = property.relationship?.destination { queue.append(destination) }
            }
            // A subclass brings its superclasses (SwiftData needs both listed; listing the
            // subclass is enough here).
            if let superLayout = layout.superLayout { queue.append(superLayout) }
        }
        self.layouts = layouts
        // Every destination is among `layouts`, each complete: the answer holds for good.
        self.hasToOnesWithoutStandIn = layouts.contains { !$0.toOnesWithoutStandIn.isEmpty }
        self.hierarchies = ModelHierarchies(layouts)
        self.version = version
        let entities = layouts.map(Entity.init(layout:))
        self.entities = entities
        var byName: [String: Entity] = [:]
        var problems = layouts.flatMap(\.problems)
        for entity in entities {
            if byName[entity.name] != nil {
                problems.append("two models are named '\(entity.name)'; entity names must be unique within a schema")
            }
            byName[entity.name] = entity
        }
        problems += Schema.columnConflicts(layouts)
        for (entity, layout) in zip(entities, layouts) {
            guard let superName = layout.superLayout?.entityName, let superentity = byName[superName] else { continue }
            entity.superentity = superentity
            superentity.subentities.insert(entity)
        }
        self.entitiesByName = byName
        self.problems = problems
    }

    /// Creates a schema for the given models and every model reachable through their relationships.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// An empty schema.
    public convenience init() {
        self.init([any PersistentModel.Type](), version: Version(1, 0, 0))
    }

    /// A schema described by its entities rather than made from `@Model` classes.
    ///
    /// ```swift
    /// let described = Schema(Schema.Entity("Trip", properties: Schema.Attribute(name: "name", valueType: String.self)))
    /// described.entitiesByName["Trip"]?.attributesByName["name"]?.valueType   // String.self
    /// ```
    ///
    /// It can be inspected, compared and encoded; a ``ModelContainer`` cannot store it (there are
    /// no classes to make models of) and throws ``SwiftDataError/unsupportedType`` saying so.
    public convenience init(_ entities: Entity..., version: Version = Version(1, 0, 0)) {
        self.init(described: entities, version: version)
    }

    /// A schema of hand-described or decoded entities: no layouts, so no container can open it.
    init(described entities: [Entity], version: Version) {
        self.layouts = []
        self.hasToOnesWithoutStandIn = false
        self.hierarchies = ModelHierarchies([])
        self.version = version
        // Subentities given only through their superentity are part of the schema too.
        var all: [Entity] = []
        var queue = entities
        while !queue.isEmpty {
            let entity = queue.removeFirst()
            guard !all.contains(where: { $0 === entity }) else { continue }
            all.append(entity)
            queue += entity.subentities.sorted { $0.name < $1.name }
        }
        self.entities = all
        var byName: [String: Entity] = [:]
        for entity in all { byName[entity.name] = entity }
        for entity in all {
            guard let superName = entity.superentityName, let superentity = byName[superName] else { continue }
            entity.superentity = superentity
            superentity.subentities.insert(entity)
        }
        self.entitiesByName = byName
        self.problems = all.isEmpty ? [] : [
            "the schema describes its entities (\(all.map(\.name).joined(separator: ", "))) without their @Model classes, so no store can hold it; make the schema from the classes: Schema([\(all.map { "\($0.name).self" }.joined(separator: ", "))])"
        ]
    }

    /// Creates the schema of one version of an app's models.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsPlan.self)
    /// ```
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// Two classes of one hierarchy that each declare a property of the same name share its
    /// storage (siblings may: each row is one class), so they must store it alike.
    private static func columnConflicts(_ layouts: [ModelLayout]) -> [String] {
        var seen: [String: (entity: String, kind: String)] = [:]
        var problems: [String] = []
        for layout in layouts where layout.superLayout != nil {
            for property in layout.properties.dropFirst(layout.inheritedCount) {
                let kind: String
                if let codec = property.codec {
                    // A subclass's column accepts NULL whether or not the property is optional.
                    let type = codec.typeName.hasSuffix("?") ? String(codec.typeName.dropLast()) : codec.typeName
                    kind = "\(type) \(codec.storedType.rawValue)"
                } else if let access = property.relationshipAccess {
                    kind = access.isToMany ? "to-many" : "to-one \(access.destinationType)"
                } else {
                    continue
                }
                let key = "\(layout.root.entityName).\(property.name)"
                if let other = seen[key], other.kind != kind {
                    problems.append("\(layout.entityName).\(property.name) and \(other.entity).\(property.name) are stored in the same column of \(layout.root.entityName)'s table but have different types; rename one of them")
                }
                seen[key] = (layout.entityName, kind)
            }
        }
        return problems
    }

    /// Throws if any model could not be described (for example a property of an unsupported type).
    func validate() throws {
        if !problems.isEmpty {
            throw SwiftDataError(.unsupportedType, problems.joined(separator: "; "))
        }
    }

    func layout(for type: any PersistentModel.Type) -> ModelLayout? {
        layouts.first { ObjectIdentifier($0.modelType) == ObjectIdentifier(type) }
    }

    func layout(named name: String) -> ModelLayout? {
        layouts.first { $0.entityName == name }
    }

    /// Whether both sides describe the same thing (see the type's documentation for what is compared).
    ///
    /// Schemas made from classes compare what their stores hold; when either side was described
    /// by hand or decoded, their descriptions (``encode(to:)``'s content) are compared.
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        if lhs.layouts.isEmpty || rhs.layouts.isEmpty {
            return SchemaArchive(lhs) == SchemaArchive(rhs)
        }
        return lhs.fingerprintDescription == rhs.fingerprintDescription
    }

    /// Hashes the entity names (both kinds of schema agree on them).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entities.map(\.name).sorted())
    }

    /// Encodes the description of every entity, attribute and relationship, and the version.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(container.schema)
    /// let described = try JSONDecoder().decode(Schema.self, from: data)
    /// described.entitiesByName.keys   // the same entity names
    /// ```
    ///
    /// Value types are written by name; decoding gives the type back for the standard value types
    /// (`String`, `Int`, `Date`, `UUID`, … and their optionals) and `Any.self` for others, whose
    /// name ``Attribute/description`` still shows. A decoded schema has no classes (see
    /// ``init(_:version:)-(Schema.Entity...,_)``).
    public func encode(to encoder: any Encoder) throws {
        try SchemaArchive(self).encode(to: encoder)
    }

    /// Decodes a schema written by ``encode(to:)``.
    public convenience init(from decoder: any Decoder) throws {
        let archive = try SchemaArchive(from: decoder)
        self.init(described: archive.entities.map { $0.entity() }, version: archive.version)
    }

    /// A readable description, for logs and debugging.
    public var description: String {
        "Schema(\(entities.map(\.name).joined(separator: ", ")))"
    }

    /// A canonical text of everything that affects storage: entities, columns and their types,
    /// relationships and their storage. Two schemas with the same text can share a store.
    var fingerprintDescription: String { SchemaFingerprint.describing(layouts) }

    /// A schema version, `major.minor.patch`.
    public struct Version: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        /// The major version: incompatible changes.
        public var major: Int
        /// The minor version: compatible additions.
        public var minor: Int
        /// The patch version: fixes.
        public var patch: Int

        /// Creates a version such as `Schema.Version(1, 2, 0)`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Reads the `major.minor.patch` form ``description`` writes.
        init?(parsing text: String) {
            let parts = text.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 3 else { return nil }
            self.init(parts[0], parts[1], parts[2])
        }

        /// Orders values for sorting.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// A readable description, for logs and debugging.
        public var description: String { "\(major).\(minor).\(patch)" }
    }
}

/// A property in a schema: an attribute or a relationship.
public protocol SchemaProperty: AnyObject, Sendable, CustomStringConvertible {
    /// The property's name.
    var name: String { get }
    /// The name the property had in an earlier version of the model, if it was renamed.
    var originalName: String { get }
    /// The Swift type of the property.
    var valueType: any Any.Type { get }
    /// Whether this is an attribute.
    var isAttribute: Bool { get }
    /// Whether this is a relationship.
    var isRelationship: Bool { get }
    /// Whether the property is kept out of the store (always `false` for schema properties).
    var isTransient: Bool { get }
    /// Whether the property may be `nil`.
    var isOptional: Bool { get }
    /// Whether the property's value is unique among models of its entity.
    var isUnique: Bool { get }
    /// A string that changes the schema's hash without changing storage, to force a new version.
    var hashModifier: String? { get }
}

extension Schema {
    /// Relationships of any entity that point at `layout` and whose links `layout`'s own
    /// relationships do not keep: those without an inverse, and to-manys kept as pairs of their
    /// own while their inverse is a to-one (several to-manys sharing one). When a model of
    /// `layout` is deleted, their references to it are cleared.
    func incomingKeptAtTheirSource(to layout: ModelLayout) -> [(source: ModelLayout, property: PropertyLayout)] {
        var result: [(source: ModelLayout, property: PropertyLayout)] = []
        for source in layouts {
            for slot in source.relationshipSlots {
                let property = source.properties[slot]
                guard let relationship = property.relationship, relationship.destination === layout else { continue }
                if relationship.inverse == nil || relationship.keepsPairsAgainstAToOne {
                    result.append((source, property))
                }
            }
        }
        return result
    }
}
