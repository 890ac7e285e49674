import Foundation
import Observation

/// What the library needs to know about a property's static type, captured where the type is known
/// (the generic `Schema.PropertyMetadata._persisted` call that `@Model` generates).
@usableFromInline
protocol TypedPropertyInfo: Sendable {
    var valueType: Any.Type { get }
    /// Runs `body` as a mutation of this property of `object`, so observers are notified.
    func withMutation(of object: any PersistentModel, _ body: () -> Void)
    /// How to read and build the property's value if it is a relationship; `nil` for attributes.
    var relationshipAccess: RelationshipValueAccess? { get }
    /// How a backing data keeps the property's value unboxed.
    var slotWitness: any SlotWitness { get }
}

/// Makes the codec storing a property through a value transformer, where `Value` is known.
protocol TransformableCodecMaking {
    func transformableCodec(transformer: ValueTransformer, name: String) -> any AttributeCodec
}

/// `@unchecked Sendable`: holds only an immutable key path and relationship access.
@usableFromInline
struct TypedProperty<Root: PersistentModel, Value>: TypedPropertyInfo, @unchecked Sendable {
    let keyPath: KeyPath<Root, Value>
    @usableFromInline let relationshipAccess: RelationshipValueAccess?

    /// A property whose relationship shape, if any, is found from `Value` at run time.
    init(keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
        self.relationshipAccess = RelationshipValueAccess.make(for: Value.self)
    }

    /// A relationship property whose access was built where `Value` is statically known.
    @usableFromInline
    init(keyPath: KeyPath<Root, Value>, relationshipAccess: RelationshipValueAccess) {
        self.keyPath = keyPath
        self.relationshipAccess = relationshipAccess
    }

    @usableFromInline var valueType: Any.Type { Value.self }

    @usableFromInline var slotWitness: any SlotWitness { TypedSlotWitness<Value>() }

    @usableFromInline func withMutation(of object: any PersistentModel, _ body: () -> Void) {
        // An exact type test and an unchecked cast: a conditional cast here, in code generic at
        // run time, would look up `Optional<Root>`'s metadata on every relationship change.
        guard Swift.type(of: object) == Root.self else {
            guard let root = object as? Root else {
                body()
                return
            }
            root.persistentBackingData._withMutation(of: root, keyPath: keyPath, body)
            return
        }
        let root = unsafeDowncast(object, to: Root.self)
        root.persistentBackingData._withMutation(of: root, keyPath: keyPath, body)
    }
}

/// A relationship value held in an `Any` as the given type, read without the runtime's general
/// cast (which costs ten times as much and is on every relationship read and change).
///
/// Only for the relationship value types (`M`, `M?`, `[M]`, `[M]?` of a model class `M`): each is
/// one class or buffer reference, which an `Any` always stores inline in its three-word buffer
/// (the existential layout of Swift's ABI). When `value` holds exactly `T`, its first word is that
/// reference, loaded here as a `T` (with the retain a copy takes); anything else takes the cast.
@inlinable @inline(__always)
func _relationshipValue<T>(_ value: Any, as type: T.Type) -> T? {
    if Swift.type(of: value) == T.self, MemoryLayout<T>.size == MemoryLayout<Int>.size {
        return withUnsafeBytes(of: value) { $0.load(as: T.self) }
    }
    return value as? T
}

/// Converts between a relationship property's value (`T`, `T?`, `[T]`, `[T]?`) and models.
///
/// The factories are inlinable, and `@Model`'s generated schema calls them (through the
/// relationship overloads of `Schema.PropertyMetadata._persisted`) with the concrete types, so the
/// closures are compiled for those types: no generic metadata is looked up when relationships are
/// read or maintained. A class, so passing one around is a reference count.
@usableFromInline
final class RelationshipValueAccess: @unchecked Sendable {
    let destinationType: any PersistentModel.Type
    let isToMany: Bool
    let isOptional: Bool
    /// A to-one that may not be empty: nothing may clear it (a delete rule refuses to, a
    /// `.noAction` inverse is refused, the studio's deletes refuse as the save does).
    var isRequiredToOne: Bool { !isToMany && !isOptional }
    /// The models held by a value of the property's type.
    let models: (Any) -> [any PersistentModel]
    /// The first (for a to-one, the only) model a value holds, without building a list.
    let first: (Any) -> (any PersistentModel)?
    /// A value of the property's type holding `models`; `nil` when the type cannot hold them
    /// (no model for a non-optional to-one).
    let makeValue: ([any PersistentModel]) -> Any?
    /// Adds a model to a value in place (amortised O(1) for to-many when the value is uniquely held).
    let append: (inout Any, any PersistentModel) -> Void
    /// Removes a model from a value in place; returns whether it was there.
    let remove: (inout Any, ObjectIdentifier) -> Bool

    @usableFromInline
    init(
        destinationType: any PersistentModel.Type, isToMany: Bool, isOptional: Bool,
        models: @escaping (Any) -> [any PersistentModel],
        first: @escaping (Any) -> (any PersistentModel)?,
        makeValue: @escaping ([any PersistentModel]) -> Any?,
        append: @escaping (inout Any, any PersistentModel) -> Void,
        remove: @escaping (inout Any, ObjectIdentifier) -> Bool
    ) {
        self.destinationType = destinationType
        self.isToMany = isToMany
        self.isOptional = isOptional
        self.models = models
        self.first = first
        self.makeValue = makeValue
        self.append = append
        self.remove = remove
    }

    /// The access for a property type found at run time (`nil` if it is not a relationship).
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

    /// `var owner: M` — a required to-one. It cannot become empty; the link stays until something
    /// replaces it.
    @inlinable
    static func requiredToOne<M: PersistentModel>(_ type: M.Type) -> RelationshipValueAccess {
        RelationshipValueAccess(
            destinationType: M.self, isToMany: false, isOptional: false,
            models: { value in _relationshipValue(value, as: M.self).map { [$0] } ?? [] },
            first: { value in _relationshipValue(value, as: M.self) },
            makeValue: { models in models.first.flatMap { $0 as? M } },
            append: { value, model in
                if let typed = model as? M { value = typed }
            },
            remove: { _, _ in false })
    }

    /// `var owner: M?` — an optional to-one.
    @inlinable
    static func optionalToOne<M: PersistentModel>(_ type: M.Type) -> RelationshipValueAccess {
        RelationshipValueAccess(
            destinationType: M.self, isToMany: false, isOptional: true,
            models: { value in (_relationshipValue(value, as: M?.self) ?? nil).map { [$0] } ?? [] },
            first: { value in _relationshipValue(value, as: M?.self) ?? nil },
            makeValue: { models in
                let first: M? = models.first.flatMap { $0 as? M }
                return first as Any
            },
            append: { value, model in
                if let typed = model as? M { value = Optional<M>.some(typed) as Any }
            },
            remove: { value, id in
                guard let current = _relationshipValue(value, as: M?.self) ?? nil, ObjectIdentifier(current) == id else { return false }
                value = Optional<M>.none as Any
                return true
            })
    }

    /// `var items: [M]` — a to-many.
    @inlinable
    static func toMany<M: PersistentModel>(_ type: M.Type) -> RelationshipValueAccess {
        RelationshipValueAccess(
            destinationType: M.self, isToMany: true, isOptional: false,
            models: { value in _relationshipValue(value, as: [M].self).map { $0.map { $0 as any PersistentModel } } ?? [] },
            first: { value in _relationshipValue(value, as: [M].self)?.first },
            makeValue: { models in models.compactMap { $0 as? M } },
            append: { value, model in
                guard let typed = model as? M, var array = _relationshipValue(value, as: [M].self) else { return }
                value = ()  // drop the box's reference so the append happens in place
                array.append(typed)
                value = array
            },
            remove: { value, id in
                guard var array = _relationshipValue(value, as: [M].self), let position = array.firstIndex(where: { ObjectIdentifier($0) == id }) else { return false }
                value = ()
                array.remove(at: position)
                value = array
                return true
            })
    }

    /// `var items: [M]?` — an optional to-many (`nil` and empty both hold no models).
    @inlinable
    static func optionalToMany<M: PersistentModel>(_ type: M.Type) -> RelationshipValueAccess {
        RelationshipValueAccess(
            destinationType: M.self, isToMany: true, isOptional: true,
            models: { value in (_relationshipValue(value, as: [M]?.self) ?? nil).map { $0.map { $0 as any PersistentModel } } ?? [] },
            first: { value in (_relationshipValue(value, as: [M]?.self) ?? nil)?.first },
            makeValue: { models in Optional<[M]>.some(models.compactMap { $0 as? M }) as Any },
            append: { value, model in
                guard let typed = model as? M else { return }
                var array = (_relationshipValue(value, as: [M]?.self) ?? nil) ?? []
                value = ()
                array.append(typed)
                value = Optional<[M]>.some(array) as Any
            },
            remove: { value, id in
                guard var array = _relationshipValue(value, as: [M]?.self) ?? nil, let position = array.firstIndex(where: { ObjectIdentifier($0) == id }) else { return false }
                value = ()
                array.remove(at: position)
                value = Optional<[M]>.some(array) as Any
                return true
            })
    }
}

protocol _OptionalModelValue {
    static var _relationshipAccess: RelationshipValueAccess { get }
}

extension Optional: _OptionalModelValue where Wrapped: PersistentModel {
    static var _relationshipAccess: RelationshipValueAccess { .optionalToOne(Wrapped.self) }
}

protocol _ModelArrayValue: SendableMetatype {
    static var _relationshipAccess: RelationshipValueAccess { get }
    static var _optionalRelationshipAccess: RelationshipValueAccess { get }
    static func _make(_ models: [any PersistentModel]) -> Self
}

extension Array: _ModelArrayValue where Element: PersistentModel {
    static var _relationshipAccess: RelationshipValueAccess { .toMany(Element.self) }
    static var _optionalRelationshipAccess: RelationshipValueAccess { .optionalToMany(Element.self) }
    static func _make(_ models: [any PersistentModel]) -> [Element] { models.compactMap { $0 as? Element } }
}

protocol _OptionalModelArrayValue {
    static var _relationshipAccess: RelationshipValueAccess { get }
}

extension Optional: _OptionalModelArrayValue where Wrapped: _ModelArrayValue {
    static var _relationshipAccess: RelationshipValueAccess { Wrapped._optionalRelationshipAccess }
}

extension TypedProperty: TransformableCodecMaking {
    func transformableCodec(transformer: ValueTransformer, name: String) -> any AttributeCodec {
        TransformableCodec<Value>.make(for: Value.self, transformer: transformer, name: name)
    }
}
