import Foundation

/// Everything the library derives once from a model class's metadata: its slots, codecs,
/// relationships with their inverses and shapes, constraints and indexes — in the model's terms;
/// each store maps them to its own form.
///
/// Built once per class (``ModelLayout/of(_:)``) together with every class reachable through
/// relationships, then never changed. `@unchecked Sendable`: the `var`s below are assigned only
/// while the layouts are being built inside the registry lock, before any other code can see them.
final class ModelLayout: @unchecked Sendable {
    let modelType: any PersistentModel.Type
    let entityName: String
    /// The layout of the model class this one inherits from (`@Model class BusinessTrip: Trip`).
    /// Its properties are this layout's first slots, in the same order.
    let superLayout: ModelLayout?
    let properties: [PropertyLayout]
    let slotByKeyPath: [AnyKeyPath: Int]
    let slotByName: [String: Int]
    private(set) var uniquenessConstraints: [[Int]] = []
    private(set) var indices: [[Int]] = []
    private(set) var problems: [String] = []

    /// Slots a model's own stored record holds (attributes and to-one references), ascending: what
    /// a store reads for a whole model. Like `slotReaders`, never written after the build phase,
    /// so reads skip exclusivity checks.
    @exclusivity(unchecked) private(set) var storedSlots: [Int] = []
    /// Attributes whose type has no empty value to stand in when the row is gone (its
    /// `init(from:)` refuses empty values): always loaded with the row, never left to fault in.
    private(set) var slotsWithoutPlaceholder: [Int] = []
    /// The attribute slots (no relationships).
    private(set) var attributeSlots: [Int] = []
    /// The `.externalStorage` attributes that have an empty value to stand in: left out when a
    /// whole model is read, and loaded when first read (as Core Data reads external data).
    private(set) var externalStorageSlots: [Int] = []
    /// The attributes marked `.preserveValueOnDeletion`, whose values a delete keeps in history.
    private(set) var preservedSlots: [Int] = []
    /// The relationship slots.
    @exclusivity(unchecked) private(set) var relationshipSlots: [Int] = []
    /// Every slot not loaded: what code that builds a model's slots before the model starts from.
    let unloadedSlots: ContiguousArray<BackingData.Slot>
    /// Where a backing data keeps each slot's value, unboxed by the property's type.
    let storage: SlotStorageLayout
    /// Whether some to-many relationship has a minimum or maximum model count to validate on save.
    private(set) var hasCountLimits = false
    /// Whether some relationship is kept as pairs of keys (written separately on save).
    private(set) var hasPairs = false
    /// Whether each slot is a linked relationship, for the generated accessors' quick test.
    @exclusivity(unchecked) private(set) var isRelationship: ContiguousArray<Bool> = []
    /// How each stored slot is decoded from its stored value, by slot; worked out once so that
    /// loading a model does no lookups.
    @exclusivity(unchecked) private(set) var slotReaders: ContiguousArray<SlotReader> = []
    /// Each slot's ``SlotReader/Fast`` (`.notStored` for a slot with no column), apart from the
    /// readers: the loop that reads a row's slots reads these plain values, and holds a reader (a
    /// class: a retain and a release per slot per row) only for a value the fast way cannot read.
    @exclusivity(unchecked) private(set) var slotFastReads: ContiguousArray<SlotReader.Fast> = []

    /// How one stored slot is decoded. A class, so the loop that reads rows holds
    /// readers by reference instead of copying their payloads. `@unchecked Sendable`: immutable.
    final class SlotReader: @unchecked Sendable {
        /// For an attribute: its codec.
        let codec: (any AttributeCodec)?
        /// Whether the slot is a to-one reference.
        let isToOne: Bool
        /// For a to-one: the slot value of a missing reference (`nil` as the property's type); absent
        /// when the relationship is required. For an optional attribute read the fast way: the
        /// slot value of NULL.
        let nullValue: Any?
        /// Common attribute types are read straight from the row, without going through a
        /// ``StoredValue`` and the codec; anything unexpected (another storage class) still goes
        /// through the codec, which converts or reports it.
        let fast: Fast

        enum Fast {
            case none, int, int64, double, string, date, bool
            /// No column: a to-many relationship, or a property the store does not hold.
            case notStored
        }

        init(codec: (any AttributeCodec)? = nil, isToOne: Bool = false, nullValue: Any? = nil) {
            self.codec = codec
            self.isToOne = isToOne
            var fast = Fast.none
            var nullValue = nullValue
            if let codec {
                var scalar = codec
                if let optional = codec as? any _OptionalCodecProtocol {
                    scalar = optional.wrappedCodec
                    nullValue = optional.noneValue
                }
                switch scalar {
                case is ScalarCodec<Int>: fast = .int
                case is ScalarCodec<Int64>: fast = .int64
                case is ScalarCodec<Double>: fast = .double
                case is ScalarCodec<String>: fast = .string
                case is ScalarCodec<Date>: fast = .date
                case is ScalarCodec<Bool>: fast = .bool
                default: fast = .none
                }
            }
            self.fast = fast
            self.nullValue = nullValue
        }

        static let none = SlotReader()
    }

    private init(modelType: any PersistentModel.Type, superLayout: ModelLayout?) {
        self.modelType = modelType
        self.entityName = String(describing: modelType)
        self.superLayout = superLayout
        var properties: [PropertyLayout] = []
        var problems: [String] = []
        for (index, metadata) in modelType.schemaMetadata.enumerated() {
            let property = PropertyLayout(index: index, metadata: metadata)
            if let problem = property.problem { problems.append("\(String(describing: modelType)).\(problem)") }
            properties.append(property)
        }
        self.properties = properties
        // The superclass's key paths (`\Trip.name`) name the same slots as the subclass's own
        // (`\BusinessTrip.name`): inverses, `#Unique` and `#Index` are declared with them.
        var byKeyPath: [AnyKeyPath: Int] = superLayout?.slotByKeyPath ?? [:]
        var byName: [String: Int] = [:]
        for property in properties {
            byKeyPath[property.keyPath] = property.index
            byName[property.name] = property.index
            if property.name.hasPrefix("Z_") {
                problems.append("\(entityName).\(property.name): property names starting with 'Z_' are reserved for the store")
            }
        }
        self.slotByKeyPath = byKeyPath
        self.slotByName = byName
        self.unloadedSlots = ContiguousArray(repeating: .unloaded, count: properties.count)
        self.storage = SlotStorageLayout(properties.map { property in
            guard let typed = property.typed, property.relationshipAccess == nil else { return AnySlotWitness() }
            return typed.slotWitness
        })
        if let superLayout {
            let inherited = superLayout.properties
            if properties.count < inherited.count || zip(inherited, properties).contains(where: { $0.name != $1.name }) {
                problems.append("\(entityName): its persisted properties do not begin with those of its superclass \(superLayout.entityName); declare both classes with @Model")
            }
        }
        self.problems = problems
    }

    /// The top of the class hierarchy (the layout itself when it has no superclass). Models of one
    /// hierarchy share keys and one identity map, so a `Trip` reference can hold a `BusinessTrip`.
    var root: ModelLayout { superLayout?.root ?? self }

    /// Whether this layout is `other` or one of its subclasses.
    func isKind(of other: ModelLayout) -> Bool {
        var layout: ModelLayout? = self
        while let current = layout {
            if current === other { return true }
            layout = current.superLayout
        }
        return false
    }

    /// Whether the model class of this layout is `type` or one of its subclasses.
    func isKind(of type: any PersistentModel.Type) -> Bool {
        var layout: ModelLayout? = self
        while let current = layout {
            if ObjectIdentifier(current.modelType) == ObjectIdentifier(type) { return true }
            layout = current.superLayout
        }
        return false
    }

    /// The number of slots inherited from the superclass.
    var inheritedCount: Int { superLayout?.properties.count ?? 0 }

    func property(named name: String) -> PropertyLayout? {
        slotByName[name].map { properties[$0] }
    }

    func property(for keyPath: AnyKeyPath) -> PropertyLayout? {
        slotByKeyPath[keyPath].map { properties[$0] }
    }

    // MARK: Registry

    /// The top entity of each entity that has a superclass, by name, for the life of the process:
    /// identifiers name a model's own class, but keys are shared across its hierarchy.
    private static let rootNames = Locked<[String: String]>([:])

    /// The name of the top entity of `entityName`'s class hierarchy (the name itself for an
    /// entity without a superclass).
    static func rootEntityName(of entityName: String) -> String {
        rootNames.withLock { $0[entityName] } ?? entityName
    }

    /// Every layout built, for the life of the process (entries are never removed, which is what
    /// lets `of(_:)` keep unretained pointers to them).
    private static let registry = Locked<[ObjectIdentifier: ModelLayout]>([:])

    /// The layout of a model class, building it (and the layouts of every class reachable through
    /// relationships) on first use.
    static func of(_ type: any PersistentModel.Type) -> ModelLayout {
        // Every model created asks for its layout: the one this thread asked for last is kept
        // at hand, unretained (layouts are never released), to skip the lock and the lookup.
        if let raw = pthread_getspecific(lastLayoutKey) {
            let cached = Unmanaged<ModelLayout>.fromOpaque(raw).takeUnretainedValue()
            if ObjectIdentifier(cached.modelType) == ObjectIdentifier(type) { return cached }
        }
        let layout = build(type)
        pthread_setspecific(lastLayoutKey, Unmanaged.passUnretained(layout).toOpaque())
        return layout
    }

    private static let lastLayoutKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    private static func build(_ type: any PersistentModel.Type) -> ModelLayout {
        registry.withLock { layouts in
            if let existing = layouts[ObjectIdentifier(type)] { return existing }
            var built: [ModelLayout] = []
            var queue: [any PersistentModel.Type] = [type]
            while let next = queue.popLast() {
                let key = ObjectIdentifier(next)
                if layouts[key] != nil { continue }
                // A superclass's layout is built first: the subclass's starts from it.
                let superType = (next as Any.Type as? AnyClass).flatMap { _getSuperclass($0) } as? any PersistentModel.Type
                if let superType, layouts[ObjectIdentifier(superType)] == nil {
                    queue.append(next)
                    queue.append(superType)
                    continue
                }
                let layout = ModelLayout(modelType: next, superLayout: superType.flatMap { layouts[ObjectIdentifier($0)] })
                layouts[key] = layout
                built.append(layout)
                for property in layout.properties {
                    if let access = property.relationshipAccess { queue.append(access.destinationType) }
                }
            }
            for layout in built { layout.linkRelationships(in: layouts) }
            for layout in built { layout.noteSharedInverses() }
            // Superclasses come before their subclasses in `built`.
            for layout in built { layout.inheritRelationships() }
            for layout in built { layout.finish() }
            let subclasses = built.filter { $0.superLayout != nil }
            if !subclasses.isEmpty {
                rootNames.withLock { names in
                    for layout in subclasses { names[layout.entityName] = layout.root.entityName }
                }
            }
            return layouts[ObjectIdentifier(type)] ?? built[0]
        }
    }

    /// Second phase: destinations, inverses and shapes of every relationship.
    private func linkRelationships(in layouts: [ObjectIdentifier: ModelLayout]) {
        for property in properties.dropFirst(inheritedCount) {
            guard let access = property.relationshipAccess else { continue }
            guard let destination = layouts[ObjectIdentifier(access.destinationType)] else { continue }
            let declared = property.metadata as? Schema.Relationship
            var inverse: PropertyLayout?
            if let inverseKeyPath = declared?.inverseKeyPath {
                if let candidate = destination.property(for: inverseKeyPath),
                   candidate.relationshipAccess?.destinationType == modelType {
                    inverse = candidate
                } else {
                    problems.append("\(entityName).\(property.name): the inverse key path does not name a relationship of \(destination.entityName) back to \(entityName)")
                }
            } else if let declaredElsewhere = destination.properties.first(where: {
                ($0.metadata as? Schema.Relationship)?.inverseKeyPath == property.keyPath
            }) {
                inverse = declaredElsewhere
            } else if destination !== self {
                // Infer the inverse when exactly one relationship goes each way and neither side
                // declares a different inverse, as SwiftData does.
                let outgoing = properties.filter { $0.relationshipAccess?.destinationType == destination.modelType && !$0.declaresInverse }
                let incoming = destination.properties.filter { $0.relationshipAccess?.destinationType == modelType && !$0.declaresInverse && !self.isNamedAsInverse($0) }
                if outgoing.count == 1, incoming.count == 1 {
                    inverse = incoming[0]
                }
            }
            let shape: RelationshipShape
            if !access.isToMany {
                shape = .reference(property.name)
            } else if let inverse, let inverseAccess = inverse.relationshipAccess, !inverseAccess.isToMany {
                // Sharing the to-one with another to-many: its column cannot say which holds a member.
                shape = sharesInverse(inverse, with: property) ? .pairs("\(entityName)_\(property.name)", isFirst: true) : .inverseReference(inverse.name)
            } else if let inverse {
                // Both sides share one set of pairs, named after the side that sorts first.
                let mine = (entityName, property.name)
                let theirs = (destination.entityName, inverse.name)
                shape = mine <= theirs ? .pairs("\(entityName)_\(property.name)", isFirst: true) : .pairs("\(destination.entityName)_\(inverse.name)", isFirst: false)
            } else {
                shape = .pairs("\(entityName)_\(property.name)", isFirst: true)
            }
            property.relationship = RelationshipLayout(
                access: access,
                destination: destination,
                inverse: inverse,
                deleteRule: declared?.deleteRule ?? .nullify,
                minimumModelCount: declared?.minimumModelCount ?? 0,
                maximumModelCount: declared?.maximumModelCount ?? 0,
                shape: shape)
        }
    }

    /// An inherited relationship is the superclass's: same destination, inverse, rule and storage.
    private func inheritRelationships() {
        guard let superLayout else { return }
        for property in properties.prefix(inheritedCount) {
            property.relationship = superLayout.properties[property.index].relationship
        }
    }

    /// Whether some relationship of this layout names `property` as its inverse explicitly.
    private func isNamedAsInverse(_ property: PropertyLayout) -> Bool {
        properties.contains { ($0.metadata as? Schema.Relationship)?.inverseKeyPath == property.keyPath }
    }

    /// The non-optional to-ones whose destination has an attribute no empty value can stand in
    /// for: loaded with their owner (``ModelContext/resolveToOnesWithoutStandIn(_:)``), since
    /// nothing could be returned for them once their row is gone. Computed on use: the
    /// destinations' layouts are complete only after every layout of the schema is.
    var toOnesWithoutStandIn: [Int] {
        relationshipSlots.filter { slot in
            guard let relationship = properties[slot].relationship, case .reference = relationship.shape else { return false }
            return relationship.access.makeValue([]) == nil && !relationship.destination.slotsWithoutPlaceholder.isEmpty
        }
    }

    /// Third phase: stored slots, constraints and indexes.
    private func finish() {
        slotReaders = ContiguousArray(repeating: .none, count: properties.count)
        isRelationship = ContiguousArray(properties.map { $0.relationship != nil })
        for property in properties {
            if let relationship = property.relationship {
                relationshipSlots.append(property.index)
                if relationship.isToMany && (relationship.minimumModelCount > 0 || relationship.maximumModelCount > 0) {
                    hasCountLimits = true
                }
                if case .pairs = relationship.shape { hasPairs = true }
                if case .reference = relationship.shape {
                    storedSlots.append(property.index)
                    slotReaders[property.index] = SlotReader(isToOne: true, nullValue: relationship.access.makeValue([]))
                }
            } else if let codec = property.codec {
                attributeSlots.append(property.index)
                if property.attributeOptions.contains(.preserveValueOnDeletion) { preservedSlots.append(property.index) }
                storedSlots.append(property.index)
                slotReaders[property.index] = SlotReader(codec: codec)
                if PlaceholderValue.make(any: property.valueType) == nil {
                    slotsWithoutPlaceholder.append(property.index)
                } else if property.attributeOptions.contains(.externalStorage) {
                    externalStorageSlots.append(property.index)
                }
            }
        }
        slotFastReads = ContiguousArray(slotReaders.map { $0.codec == nil && !$0.isToOne ? .notStored : $0.fast })
        var unique: [[Int]] = attributeSlots.filter { properties[$0].attributeOptions.contains(.unique) }.map { [$0] }
        for group in modelType._$uniquenessConstraints {
            let slots = group.compactMap { slotByKeyPath[$0] }
            if slots.count == group.count, !slots.isEmpty {
                if !unique.contains(slots) { unique.append(slots) }
            } else {
                problems.append("\(entityName): #Unique names a property that is not persisted")
            }
        }
        uniquenessConstraints = unique
        var indexGroups: [[Int]] = []
        for group in modelType._$indices {
            let slots = group.compactMap { slotByKeyPath[$0] }
            if slots.count == group.count, !slots.isEmpty {
                indexGroups.append(slots)
            } else {
                problems.append("\(entityName): #Index names a property that is not persisted")
            }
        }
        indices = indexGroups
        for slot in relationshipSlots {
            guard let relationship = properties[slot].relationship, relationship.deleteRule == .noAction,
                  let inverse = relationship.inverse, inverse.relationshipAccess?.isRequiredToOne == true else { continue }
            problems.append("\(entityName).\(properties[slot].name) uses .noAction, but its inverse \(relationship.destination.entityName).\(inverse.name) is a non-optional to-one that would be left pointing at a deleted model; make it optional or use another delete rule")
        }
    }

    /// Whether models of this entity can be deleted by the store without loading them, with every
    /// delete rule applied there: no `.cascade` or `.deny`, and no inverse that is a required to-one.
    var canDeleteInStore: Bool {
        relationshipSlots.allSatisfy { slot in
            guard let relationship = properties[slot].relationship else { return true }
            switch relationship.deleteRule {
            case .cascade, .deny: return false
            case .noAction: return true
            case .nullify:
                return relationship.inverse?.relationshipAccess?.isRequiredToOne != true
            }
        }
    }
}
