import Foundation
import Observation

/// What the library needs to know about a property's static type, captured where the type is known
/// (the generic `Schema.PropertyMetadata._persisted` call that `@Model` generates).
protocol TypedPropertyInfo: Sendable {
    var valueType: Any.Type { get }
    /// Runs `body` as a mutation of this property of `object`, so observers are notified.
    func withMutation(of object: any PersistentModel, _ body: () -> Void)
    /// How to read and build the property's value if it is a relationship; `nil` for attributes.
    var relationshipAccess: RelationshipValueAccess? { get }
}

/// `@unchecked Sendable`: holds only an immutable key path.
struct TypedProperty<Root: PersistentModel, Value>: TypedPropertyInfo, @unchecked Sendable {
    let keyPath: KeyPath<Root, Value>

    var valueType: Any.Type { Value.self }

    func withMutation(of object: any PersistentModel, _ body: () -> Void) {
        guard let root = object as? Root else {
            body()
            return
        }
        root.persistentBackingData.registrar.withMutation(of: root, keyPath: keyPath, body)
    }

    var relationshipAccess: RelationshipValueAccess? { RelationshipValueAccess.make(for: Value.self) }
}

/// Converts between a relationship property's value (`T`, `T?`, `[T]`, `[T]?`) and a list of models.
struct RelationshipValueAccess: Sendable {
    let destinationType: any PersistentModel.Type
    let isToMany: Bool
    let isOptional: Bool
    /// The models held by a value of the property's type.
    let models: @Sendable (Any) -> [any PersistentModel]
    /// A value of the property's type holding `models`; `nil` when the type cannot hold them
    /// (no model for a non-optional to-one).
    let makeValue: @Sendable ([any PersistentModel]) -> Any?
    /// Adds a model to a value in place (amortised O(1) for to-many when the value is uniquely held).
    var append: @Sendable (inout Any, any PersistentModel) -> Void = { _, _ in }
    /// Removes a model from a value in place; returns whether it was there.
    var remove: @Sendable (inout Any, ObjectIdentifier) -> Bool = { _, _ in false }

    static func make(for type: Any.Type) -> RelationshipValueAccess? {
        if let model = type as? any PersistentModel.Type {
            return requiredToOne(model)
        }
        if let optional = type as? any _OptionalModelValue.Type {
            return optional._relationshipAccess
        }
        if let array = type as? any _ModelArrayValue.Type {
            return array._relationshipAccess
        }
        if let optionalArray = type as? any _OptionalModelArrayValue.Type {
            return optionalArray._relationshipAccess
        }
        return nil
    }

    private static func requiredToOne<M: PersistentModel>(_ type: M.Type) -> RelationshipValueAccess {
        var access = RelationshipValueAccess(
            destinationType: M.self, isToMany: false, isOptional: false,
            models: { value in (value as? M).map { [$0] } ?? [] },
            makeValue: { models in models.first.flatMap { $0 as? M } })
        access.append = { value, model in
            if let typed = model as? M { value = typed }
        }
        // A required to-one cannot become empty; the link stays until something replaces it.
        access.remove = { _, _ in false }
        return access
    }
}

protocol _OptionalModelValue {
    static var _relationshipAccess: RelationshipValueAccess { get }
}

extension Optional: _OptionalModelValue where Wrapped: PersistentModel {
    static var _relationshipAccess: RelationshipValueAccess {
        var access = RelationshipValueAccess(
            destinationType: Wrapped.self, isToMany: false, isOptional: true,
            models: { value in
                guard let optional = value as? Wrapped?, let model = optional else { return [] }
                return [model]
            },
            makeValue: { models in
                let first: Wrapped? = models.first.flatMap { $0 as? Wrapped }
                return first as Any
            })
        access.append = { value, model in
            if let typed = model as? Wrapped { value = Optional<Wrapped>.some(typed) as Any }
        }
        access.remove = { value, id in
            guard let optional = value as? Wrapped?, let current = optional, ObjectIdentifier(current) == id else { return false }
            value = Optional<Wrapped>.none as Any
            return true
        }
        return access
    }
}

protocol _ModelArrayValue: SendableMetatype {
    static var _relationshipAccess: RelationshipValueAccess { get }
    static func _models(of value: Self) -> [any PersistentModel]
    static func _make(_ models: [any PersistentModel]) -> Self
}

extension Array: _ModelArrayValue where Element: PersistentModel {
    static var _relationshipAccess: RelationshipValueAccess {
        var access = RelationshipValueAccess(
            destinationType: Element.self, isToMany: true, isOptional: false,
            models: { value in (value as? [Element]).map(_models(of:)) ?? [] },
            makeValue: { models in _make(models) })
        access.append = { value, model in
            guard let typed = model as? Element, var array = value as? [Element] else { return }
            value = ()  // drop the box's reference so the append happens in place
            array.append(typed)
            value = array
        }
        access.remove = { value, id in
            guard var array = value as? [Element], let position = array.firstIndex(where: { ObjectIdentifier($0) == id }) else { return false }
            value = ()
            array.remove(at: position)
            value = array
            return true
        }
        return access
    }
    static func _models(of value: [Element]) -> [any PersistentModel] { value.map { $0 } }
    static func _make(_ models: [any PersistentModel]) -> [Element] { models.compactMap { $0 as? Element } }
}

protocol _OptionalModelArrayValue {
    static var _relationshipAccess: RelationshipValueAccess { get }
}

extension Optional: _OptionalModelArrayValue where Wrapped: _ModelArrayValue {
    static var _relationshipAccess: RelationshipValueAccess {
        let inner = Wrapped._relationshipAccess
        var access = RelationshipValueAccess(
            destinationType: inner.destinationType, isToMany: true, isOptional: true,
            models: { value in
                guard let optional = value as? Wrapped?, let array = optional else { return [] }
                return Wrapped._models(of: array)
            },
            makeValue: { models in Optional<Wrapped>.some(Wrapped._make(models)) as Any })
        access.append = { value, model in
            var array: Any = (value as? Wrapped?).flatMap { $0 } ?? Wrapped._make([])
            value = ()
            inner.append(&array, model)
            if let typed = array as? Wrapped { value = Optional<Wrapped>.some(typed) as Any }
        }
        access.remove = { value, id in
            guard let optional = value as? Wrapped?, let current = optional else { return false }
            var array: Any = current
            value = ()
            let removed = inner.remove(&array, id)
            value = Optional<Wrapped>.some((array as? Wrapped) ?? current) as Any
            return removed
        }
        return access
    }
}
