import Foundation

/// Finds the persisted properties a key path walks through, such as `\Expense.category?.name`
/// (the to-one `category`, then `name` of `Category`).
///
/// Key paths are opaque; a compound one cannot be taken apart through public API. Each `@Model`
/// property is a computed property, and Swift describes a key path component as
/// `<computed 0xADDRESS (Type)>`, where the address identifies the property's getter. Matching
/// those addresses against the models' own key paths recovers the chain. Where an optimised build
/// gave the key path accessors of its own, ``KeyPathProbe`` reads it on stand-in models instead.
/// A key path that cannot be resolved either way gives `nil`, and the caller throws a clear error.
enum KeyPathResolver {
    static func chain(_ keyPath: AnyKeyPath, from root: ModelLayout) -> [PropertyLayout]? {
        if let property = root.property(for: keyPath) { return [property] }
        if let known = resolved.withLock({ $0[keyPath] }) { return known }
        guard let chain = addressChain(keyPath, from: root)
                ?? KeyPathProbe.chain(keyPath, components: componentAddresses(String(describing: keyPath)).count, from: root) else { return nil }
        resolved.withLock { cache in
            // Key paths are written in code, so few; the bound keeps generated ones from growing it.
            if cache.count >= 512 { cache.removeAll() }
            cache[keyPath] = chain
        }
        return chain
    }

    /// The one persisted property `keyPath` reaches: the model's own key path, or one that reaches
    /// the property another way (a protocol requirement's witness, in code generic over the
    /// protocol, from whichever module wrote it).
    static func property(_ keyPath: AnyKeyPath, of layout: ModelLayout) -> PropertyLayout? {
        if let property = layout.property(for: keyPath) { return property }
        guard let chain = chain(keyPath, from: layout), chain.count == 1 else { return nil }
        return chain[0]
    }

    /// Compound key paths resolved so far (a key path names its root type, so one root each).
    private static let resolved = Locked<[AnyKeyPath: [PropertyLayout]]>([:])

    /// The chain found by matching getter addresses (see the type's comment).
    private static func addressChain(_ keyPath: AnyKeyPath, from root: ModelLayout) -> [PropertyLayout]? {
        let addresses = componentAddresses(String(describing: keyPath))
        guard !addresses.isEmpty else { return nil }
        var layout = root
        var result: [PropertyLayout] = []
        for (position, address) in addresses.enumerated() {
            guard let property = layout.properties.first(where: { componentAddresses(String(describing: $0.keyPath)).last == address }) else {
                return nil
            }
            result.append(property)
            if position < addresses.count - 1 {
                guard let relationship = property.relationship, !relationship.isToMany else { return nil }
                layout = relationship.destination
            }
        }
        return result
    }

    /// The getter addresses of a key path's components, in order.
    static func componentAddresses(_ description: String) -> [Substring] {
        var addresses: [Substring] = []
        var rest = description[...]
        while let start = rest.range(of: "<computed 0x") {
            let digits = rest[start.upperBound...].prefix { $0.isHexDigit }
            addresses.append(digits)
            rest = rest[digits.endIndex...]
        }
        return addresses
    }
}
