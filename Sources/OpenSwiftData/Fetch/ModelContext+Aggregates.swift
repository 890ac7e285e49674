import Foundation

extension ModelContext {
    /// The sum of a numeric attribute over the models a descriptor selects, computed by the store
    /// without loading the models.
    ///
    /// The descriptor's predicate, sort order, `fetchLimit` and `fetchOffset` apply (the sum of the
    /// ten latest is the sum of those ten), and with `includePendingChanges` (the default) this
    /// context's unsaved inserts, edits and deletes count, as they do for ``fetchCount(_:)``.
    /// Integer and `Decimal` sums are exact; an integer sum that does not fit `V` throws
    /// ``SwiftDataError/valueOutOfRange`` rather than wrapping. An empty selection sums to zero.
    ///
    /// ```swift
    /// let march = #Predicate<Expense> { $0.date >= start && $0.date < end }
    /// let spent = try context.fetchSum(FetchDescriptor(predicate: march), of: \.amount)
    /// ```
    ///
    /// SQL stores compute the sum in the database (a `Decimal` attribute, stored as text, is added
    /// up in Swift from that one column); a custom ``DataStore`` fetches the models and adds them.
    public func fetchSum<T: PersistentModel, V: AdditiveArithmetic>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V>) throws -> V {
        try sum(descriptor, keyPath: keyPath) { $0[keyPath: keyPath] }
    }

    /// The sum of an optional numeric attribute over the models a descriptor selects; `nil`s are
    /// skipped, and the rest is as for a non-optional attribute.
    ///
    /// ```swift
    /// let tips = try context.fetchSum(FetchDescriptor<Expense>(), of: \.tip)   // tip: Double?
    /// ```
    public func fetchSum<T: PersistentModel, V: AdditiveArithmetic>(_ descriptor: FetchDescriptor<T>, of keyPath: KeyPath<T, V?>) throws -> V {
        try sum(descriptor, keyPath: keyPath) { $0[keyPath: keyPath] }
    }

    private func sum<T: PersistentModel, V: AdditiveArithmetic>(_ descriptor: FetchDescriptor<T>, keyPath: AnyKeyPath, value: (T) -> V?) throws -> V {
        let layout = try layout(for: T.self)
        let (path, codec) = try aggregatedAttribute(keyPath, of: layout, function: "fetchSum")
        let name = "the sum of \(layout.entityName).\(path.map(\.name).joined(separator: "."))"
        let pending = hasPendingChanges(of: layout)
        if !(descriptor.includePendingChanges && pending),
           let stored = try container.store(for: layout).fetchSum(StoreFetch(descriptor: descriptor, layout: layout), of: path) {
            if stored.isNull { return .zero }
            guard let sum = try? codec.decode(stored) as? V else {
                throw SwiftDataError(.valueOutOfRange, "\(name) (\(stored)) does not fit \(V.self)")
            }
            return sum
        }
        // Unsaved changes of this entity, or a store that cannot add up: the models are fetched
        // (as `fetchCount` does) and added here, with the same overflow rule. Stored values only
        // are fetched in a context of their own, whose models hold no unsaved edits.
        let models = !descriptor.includePendingChanges && pending ? try ModelContext(container).fetch(descriptor) : try fetch(descriptor)
        var total = V.zero
        for model in models {
            guard let next = value(model) else { continue }
            guard let added = Self.adding(total, next) else {
                throw SwiftDataError(.valueOutOfRange, "\(name) does not fit \(V.self)")
            }
            total = added
        }
        return total
    }

    /// The attribute an aggregate reads (through to-one relationships), with its codec; refuses
    /// relationships and values stored as JSON by name.
    private func aggregatedAttribute(_ keyPath: AnyKeyPath, of layout: ModelLayout, function: String) throws -> ([PropertyLayout], any AttributeCodec) {
        guard let path = KeyPathResolver.chain(keyPath, from: layout), let last = path.last else {
            throw SwiftDataError(.unsupportedKeyPath, "\(function) of \(keyPath): not a persisted attribute of \(layout.entityName), or one reached through to-one relationships")
        }
        guard let codec = last.codec, !codec.storesJSON else {
            throw SwiftDataError(.unsupportedKeyPath, "\(function) of \(layout.entityName).\(last.name): it is a relationship or a value stored as JSON; name a numeric attribute")
        }
        return (path, codec)
    }

    /// `a + b`, or `nil` where a fixed-width integer sum would overflow (Swift's `+` traps).
    private static func adding<V: AdditiveArithmetic>(_ a: V, _ b: V) -> V? {
        if let a = a as? any FixedWidthInteger {
            return addingReportingOverflow(a, b) as? V
        }
        return a + b
    }

    private static func addingReportingOverflow<I: FixedWidthInteger>(_ a: I, _ b: Any) -> I? {
        guard let b = b as? I else { return nil }
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? nil : sum
    }
}
