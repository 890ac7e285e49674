import Foundation

/// Finds the persisted properties a compound key path walks through by reading it on stand-in
/// models: every slot of a stand-in holds an empty value that notes being read, and a to-one
/// relationship's slot holds the stand-in of its destination, so the reads the key path makes
/// name its properties in order.
///
/// Why: in optimised builds each key path expression may get accessor thunks of its own, so the
/// getter addresses ``KeyPathResolver`` matches differ from the model's own key paths' (equality
/// of whole key paths still holds, but a compound one cannot be split by it).
struct KeyPathProbe {
    let model: any PersistentModel
    /// Per slot, the stand-in value that notes a read.
    private let marks: [Int: UnreadableValue]
    /// Per to-one slot, the destination's stand-in.
    private let children: [Int: KeyPathProbe]
    private let layout: ModelLayout

    /// A stand-in of `layout`'s model class, `depth` to-one steps deep; `nil` where a slot's type
    /// has no empty value (reading it could not return one). `alternate`: with the second set of
    /// sentinels.
    init?(_ layout: ModelLayout, depth: Int, alternate: Bool = false) {
        var slots = layout.unloadedSlots
        var marks: [Int: UnreadableValue] = [:]
        var children: [Int: KeyPathProbe] = [:]
        for (index, property) in layout.properties.enumerated() {
            let value: Any
            if let relationship = property.relationship {
                if relationship.isToMany {
                    guard let empty = relationship.access.makeValue([]) else { return nil }
                    value = empty
                } else if depth > 0, let child = KeyPathProbe(relationship.destination, depth: depth - 1, alternate: alternate) {
                    children[index] = child
                    value = child.model
                } else {
                    // Past the depth: reading it ends the walk (a `nil` optional).
                    guard let none = PlaceholderValue.make(any: property.valueType) else { return nil }
                    value = none
                }
            } else if let sentinel = Self.sentinel(for: property.valueType, alternate: alternate) {
                value = sentinel.base
            } else {
                guard let empty = PlaceholderValue.make(any: property.valueType) else { return nil }
                value = empty
            }
            let mark = UnreadableValue(placeholder: value, problem: "")
            marks[index] = mark
            slots[index] = .unreadable(mark)
        }
        model = StoredModel.instantiate(layout, slots: slots).0
        self.marks = marks
        self.children = children
        self.layout = layout
    }

    /// The properties `keyPath` (of `components` components) reads, in order, from the root
    /// stand-in; `nil` unless it reads one property per component and, where the last one's
    /// type has a sentinel, returns that value unchanged (a computed property that transforms a
    /// persisted one is not taken for it).
    ///
    /// A key path of one component is one the model's own key paths did not match: a protocol
    /// requirement's witness (`\T.name` in a function generic over a protocol), or a computed
    /// property. It is taken for the persisted property it reads only where that property's type
    /// has sentinels, and the getter returns both of them unchanged (a getter that transforms
    /// the value, or decides on it, fails one of them); otherwise it stays refused.
    static func chain(_ keyPath: AnyKeyPath, components: Int, from root: ModelLayout) -> [PropertyLayout]? {
        guard components >= 1 else { return nil }
        if components == 1 {
            guard let first = chain(keyPath, components: 1, from: root, alternate: false),
                  let second = chain(keyPath, components: 1, from: root, alternate: true),
                  first.map(\.index) == second.map(\.index) else { return nil }
            return first
        }
        return chain(keyPath, components: components, from: root, alternate: false)
    }

    private static func chain(_ keyPath: AnyKeyPath, components: Int, from root: ModelLayout, alternate: Bool) -> [PropertyLayout]? {
        guard let probe = KeyPathProbe(root, depth: components, alternate: alternate) else { return nil }
        let result = probe.model[keyPath: keyPath]
        var chain: [PropertyLayout] = []
        var current: KeyPathProbe? = probe
        var leaf: Any?
        while let step = current {
            let read = step.marks.filter { $0.value.wasRead }.map(\.key)
            guard read.count == 1, let slot = read.first else {
                if !read.isEmpty || chain.isEmpty { return nil }
                break
            }
            chain.append(step.layout.properties[slot])
            leaf = step.marks[slot]?.placeholder
            current = step.children[slot]
        }
        guard chain.count == components else { return nil }
        if let last = chain.last, last.relationship == nil, let sentinel = Self.sentinel(for: last.valueType, alternate: alternate), let result {
            guard Self.same(result, sentinel), let leaf, Self.same(leaf, sentinel) else { return nil }
        } else if let last = chain.last, last.relationship?.isToMany == false, let stand = leaf as? any PersistentModel {
            // A to-one: the getter must hand back the destination's stand-in itself.
            guard let returned = result as? any PersistentModel, returned === stand else { return nil }
        } else if components == 1 {
            // One component and no sentinel to tell a copy from a transformation: refused.
            return nil
        }
        return chain
    }

    /// A value a getter that transforms its property would hardly return, for the attribute
    /// types a protocol requirement commonly names; `alternate`: a second one, at the edge a
    /// getter that decides on its value would test (empty, zero, negative, `false`).
    private static func sentinel(for type: Any.Type, alternate: Bool = false) -> AnyHashable? {
        switch type {
        case is String.Type, is String?.Type: return alternate ? "" : "\u{10FFFD}probe\u{10FFFD}"
        case is UUID.Type, is UUID?.Type:
            return UUID(uuid: alternate ? (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1) : (0x5E, 0xED, 0xF0, 0x0D, 0x5E, 0xED, 0x4F, 0x0D, 0x85, 0xED, 0xF0, 0x0D, 0x5E, 0xED, 0xF0, 0x0D))
        case is Bool.Type, is Bool?.Type: return !alternate
        case is Int.Type, is Int?.Type: return alternate ? Int(-1) : Int(0x5EED_F00D)
        case is Int64.Type, is Int64?.Type: return alternate ? Int64(-1) : Int64(0x5EED_F00D)
        case is Int32.Type, is Int32?.Type: return alternate ? Int32(-1) : Int32(0x5EED_F00D)
        case is Int16.Type, is Int16?.Type: return alternate ? Int16(-1) : Int16(0x5EED)
        case is Int8.Type, is Int8?.Type: return alternate ? Int8(-1) : Int8(0x5E)
        case is UInt.Type, is UInt?.Type: return alternate ? UInt(0) : UInt(0x5EED_F00D)
        case is UInt64.Type, is UInt64?.Type: return alternate ? UInt64(0) : UInt64(0x5EED_F00D)
        case is UInt32.Type, is UInt32?.Type: return alternate ? UInt32(0) : UInt32(0x5EED_F00D)
        case is UInt16.Type, is UInt16?.Type: return alternate ? UInt16(0) : UInt16(0x5EED)
        case is UInt8.Type, is UInt8?.Type: return alternate ? UInt8(0) : UInt8(0x5E)
        case is Double.Type, is Double?.Type: return alternate ? -0.5 : 0x5EED_F00D as Double
        case is Float.Type, is Float?.Type: return alternate ? Float(-0.5) : Float(0x5EED)
        case is Decimal.Type, is Decimal?.Type: return alternate ? Decimal(-0.5) : Decimal(0x5EED_F00D)
        case is Date.Type, is Date?.Type: return Date(timeIntervalSinceReferenceDate: alternate ? -1 : 0x5EED_F00D)
        case is Data.Type, is Data?.Type: return alternate ? Data() : Data([0x5E, 0xED, 0xF0, 0x0D])
        case is URL.Type, is URL?.Type: return URL(string: alternate ? "file:///" : "https://probe.invalid/5eedf00d")
        default: return nil
        }
    }

    /// Whether a read returned the sentinel itself (an optional holding it counts: the cast
    /// looks through it). Both sides are of the property's type, so no numeric bridging applies.
    private static func same(_ value: Any, _ sentinel: AnyHashable) -> Bool {
        (value as? AnyHashable) == sentinel
    }
}
