import Foundation

/// One aggregate call as the context runs it: the attributes resolved and checked, then either
/// the store's partial results (``StoreAggregate/Partial``) with their group keys decoded, or —
/// where the store cannot compute it, or this context's unsaved changes must count — the fetched
/// models. Each public aggregate folds one or the other into its answer, so both paths reduce alike.
struct AggregateQuery<T: PersistentModel, K: Hashable> {
    let context: ModelContext
    let descriptor: FetchDescriptor<T>
    let layout: ModelLayout
    let function: StoreAggregate.Function
    /// The aggregated attribute's path and codec (empty and `nil` for a count).
    let value: [PropertyLayout]
    let codec: (any AttributeCodec)?
    let group: [PropertyLayout]?
    /// Where groups are the models of a to-one relationship: its destination (the store answers
    /// with their keys, and the context loads them together).
    private let groupDestination: ModelLayout?
    /// For messages: "the sum of Reading.count".
    let name: String
    private let keyOfModel: (T) -> K
    private let keyOfStored: (StoredValue) throws -> K

    /// Groups per value of a key path, or one group of every selected model under a fixed key.
    enum Grouping {
        case by(KeyPath<T, K>)
        case none(K)
    }

    /// An aggregate of the attribute at `valuePath` (`nil`: a count), grouped as `grouping` says.
    init(_ context: ModelContext, _ descriptor: FetchDescriptor<T>, _ function: StoreAggregate.Function, label: String,
         of valuePath: AnyKeyPath?, _ grouping: Grouping) throws {
        self.context = context
        self.descriptor = descriptor
        self.function = function
        layout = try context.layout(for: T.self)
        if let valuePath {
            (value, codec) = try Self.attribute(valuePath, of: layout, function: label)
        } else {
            (value, codec) = ([], nil)
        }
        name = "the \(function) of \(layout.entityName)\(value.isEmpty ? "" : ".")\(value.map(\.name).joined(separator: "."))"
        switch grouping {
        case .by(let groupPath):
            let (path, keyCodec) = try Self.groupKey(groupPath, of: layout, function: "\(label) grouped by")
            group = path
            groupDestination = keyCodec == nil ? path.last?.relationship?.destination : nil
            keyOfModel = { $0[keyPath: groupPath] }
            let entity = layout.entityName, property = path.map(\.name).joined(separator: ".")
            keyOfStored = { stored in
                if stored.isNull, let none = (Optional<Int>.none as Any) as? K { return none }
                guard let keyCodec, let key = try keyCodec.decode(stored) as? K else {
                    throw SwiftDataError(.loadIssueModelContainer, "a stored \(entity).\(property) (\(stored)) is not a \(K.self); the store was changed by another program, or a to-one relationship on the way is missing where the model requires it")
                }
                return key
            }
        case .none(let key):
            group = nil
            groupDestination = nil
            keyOfModel = { _ in key }
            keyOfStored = { _ in key }
        }
    }

    /// Calls `stored` with each partial result the store computed (nothing is fetched), or, where
    /// the store cannot compute it or unsaved changes count, `model` with each selected model.
    func run(stored: (K, StoreAggregate.Partial) throws -> Void, model: (K, T) throws -> Void) throws {
        // Unsaved changes of the entity, or of one reached on the way to an attribute, change
        // the answer: the models are fetched, as `fetchCount` does. Stored values only are read
        // in a context of their own, whose models hold no unsaved edits.
        let layouts = [layout] + (value.dropLast() + (group?.dropLast() ?? [])).compactMap { $0.relationship?.destination }
        let pending = layouts.contains { context.hasPendingChanges(of: $0) }
        if !(descriptor.includePendingChanges && pending) {
            let store = try context.container.store(for: layout)
            var request = StoreFetch(descriptor: descriptor, layout: layout)
            request.editingState = context.editingState(for: store)
            if let partials = try store.fetchAggregate(request, StoreAggregate(function: function, value: value, group: group)) {
                let related = try groupDestination.map { try relatedModels($0, partials) }
                for partial in partials {
                    try stored(try related.map { try relatedKey(partial.key, $0) } ?? keyOfStored(partial.key), partial)
                }
                return
            }
        }
        let source = !descriptor.includePendingChanges && pending ? ModelContext(beside: context) : context
        for selected in try source.fetch(descriptor) {
            try model(keyOfModel(selected), selected)
        }
    }

    /// The models a relationship grouping's keys name, loaded in one batch (registered ones are
    /// handed back as they are).
    private func relatedModels(_ destination: ModelLayout, _ partials: [StoreAggregate.Partial]) throws -> [Int64: any PersistentModel] {
        var keys = Set<Int64>()
        for partial in partials { if case .integer(let key) = partial.key { keys.insert(key) } }
        guard !keys.isEmpty else { return [:] }
        var models: [Int64: any PersistentModel] = [:]
        for model in try context.loadModels(destination, keys: keys.sorted(), from: context.container.store(for: destination)) {
            if let key = model.persistentBackingData.primaryKey { models[key] = model }
        }
        return models
    }

    /// A relationship grouping's key: the related model a stored key names, or `nil`.
    private func relatedKey(_ stored: StoredValue, _ models: [Int64: any PersistentModel]) throws -> K {
        if stored.isNull, let none = (Optional<Int>.none as Any) as? K { return none }
        guard case .integer(let key) = stored, let model = models[key] as? K else {
            let property = group?.map(\.name).joined(separator: ".") ?? ""
            throw SwiftDataError(.loadIssueModelContainer, "a stored \(layout.entityName).\(property) refers to a \(groupDestination?.entityName ?? "related") row (\(stored)) that does not exist or is not a \(K.self); the store was changed by another program")
        }
        return model
    }

    // MARK: Folds, one per function, each the same over the store's partials and over models

    /// The number of selected models per group.
    func counts() throws -> [K: Int] {
        var counts: [K: Int] = [:]
        try run(stored: { key, partial in counts[key, default: 0] += Int(clamping: partial.count) },
                model: { key, _ in counts[key, default: 0] += 1 })
        return counts
    }

    /// The sum per group of every selected model (zero where all values are `nil`).
    func sums<V: AdditiveArithmetic>(_ value: (T) -> V?) throws -> [K: V] {
        var sums: [K: V] = [:]
        try run(stored: { key, partial in
            let total = sums[key] ?? .zero
            sums[key] = partial.value.isNull ? total : try adding(total, decode(partial.value, as: V.self))
        }, model: { key, model in
            let total = sums[key] ?? .zero
            sums[key] = try value(model).map { try adding(total, $0) } ?? total
        })
        return sums
    }

    /// The average per group with a value: the sum as a `Double` over the number of values.
    func averages(_ value: (T) -> Double?) throws -> [K: Double] {
        var sums: [K: (sum: Double, count: Int64)] = [:]
        try run(stored: { key, partial in
            guard case .real(let sum) = partial.value, partial.count > 0 else { return }
            let total = sums[key] ?? (0, 0)
            sums[key] = (total.sum + sum, total.count + partial.count)
        }, model: { key, model in
            guard let next = value(model) else { return }
            let total = sums[key] ?? (0, 0)
            sums[key] = (total.sum + next, total.count + 1)
        })
        return sums.mapValues { $0.sum / Double($0.count) }
    }

    /// The average per group with a value, of decimals added exactly.
    func decimalAverages(_ value: (T) -> Decimal?) throws -> [K: Decimal] {
        var sums: [K: (sum: Decimal, count: Int64)] = [:]
        try run(stored: { key, partial in
            guard !partial.value.isNull, partial.count > 0 else { return }
            let total = sums[key] ?? (0, 0)
            sums[key] = (total.sum + (try decode(partial.value, as: Decimal.self)), total.count + partial.count)
        }, model: { key, model in
            guard let next = value(model) else { return }
            let total = sums[key] ?? (0, 0)
            sums[key] = (total.sum + next, total.count + 1)
        })
        return sums.mapValues { $0.sum / Decimal(Int($0.count)) }
    }

    /// The least (or greatest) value per group with a value, by `V`'s own order; a value that
    /// is not equal to itself (NaN) is left out.
    func extremes<V: Comparable>(least: Bool, _ value: (T) -> V?) throws -> [K: V] {
        var best: [K: V] = [:]
        func offer(_ key: K, _ candidate: V) {
            guard candidate == candidate else { return }
            if let current = best[key], !(least ? candidate < current : current < candidate) { return }
            best[key] = candidate
        }
        try run(stored: { key, partial in
            guard !partial.value.isNull else { return }
            offer(key, try decode(partial.value, as: V.self))
        }, model: { key, model in
            if let next = value(model) { offer(key, next) }
        })
        return best
    }

    /// A stored value of the aggregated attribute as `V`; an integer sum that does not fit `V`
    /// (past `Int8.max` for an `Int8`) throws ``SwiftDataError/valueOutOfRange``.
    func decode<V>(_ stored: StoredValue, as type: V.Type) throws -> V {
        guard let codec, let decoded = try? codec.decode(stored) as? V else {
            throw SwiftDataError(.valueOutOfRange, "\(name) (\(stored)) does not fit \(V.self)")
        }
        return decoded
    }

    /// `a + b`, or ``SwiftDataError/valueOutOfRange`` where a fixed-width integer sum would
    /// overflow (Swift's `+` traps).
    func adding<V: AdditiveArithmetic>(_ a: V, _ b: V) throws -> V {
        guard let a = a as? any FixedWidthInteger else { return a + b }
        guard let sum = Self.addingReportingOverflow(a, b) as? V else {
            throw SwiftDataError(.valueOutOfRange, "\(name) does not fit \(V.self)")
        }
        return sum
    }

    private static func addingReportingOverflow<I: FixedWidthInteger>(_ a: I, _ b: Any) -> I? {
        guard let b = b as? I else { return nil }
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : sum
    }

    /// What a grouping key path names: an attribute (as ``attribute(_:of:function:allowsJSON:)``,
    /// JSON values allowed, since groups only compare them), or a to-one relationship, whose
    /// related models are the groups (no codec).
    static func groupKey(_ keyPath: AnyKeyPath, of layout: ModelLayout, function: String) throws -> ([PropertyLayout], (any AttributeCodec)?) {
        if let path = KeyPathResolver.chain(keyPath, from: layout), let relationship = path.last?.relationship {
            guard !relationship.isToMany, path.dropLast().allSatisfy({ $0.relationship?.isToMany == false }) else {
                throw SwiftDataError(.unsupportedKeyPath, "\(function) \(layout.entityName).\(path.map(\.name).joined(separator: ".")): it is a to-many relationship; group by a to-one relationship or an attribute")
            }
            return (path, nil)
        }
        return try attribute(keyPath, of: layout, function: function, allowsJSON: true)
    }

    /// The attribute a key path names (through to-one relationships), with its codec; refuses
    /// relationships, and values stored as JSON unless they are only compared for equality.
    static func attribute(_ keyPath: AnyKeyPath, of layout: ModelLayout, function: String, allowsJSON: Bool = false) throws -> ([PropertyLayout], any AttributeCodec) {
        guard let path = KeyPathResolver.chain(keyPath, from: layout), let last = path.last else {
            throw SwiftDataError(.unsupportedKeyPath, "\(function) \(keyPath): not a persisted attribute of \(layout.entityName), or one reached through to-one relationships")
        }
        guard let codec = last.codec else {
            throw SwiftDataError(.unsupportedKeyPath, "\(function) \(layout.entityName).\(last.name): it is a relationship; name one of its attributes (such as \\.\(last.name)?.name)")
        }
        if codec.isOpaque || (codec.storesJSON && !allowsJSON) {
            throw SwiftDataError(.unsupportedKeyPath, "\(function) \(layout.entityName).\(last.name): it is stored as JSON or with @Attribute(.codable); name an attribute stored as a number, string or date")
        }
        return (path, codec)
    }
}
