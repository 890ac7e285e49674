import Foundation

/// One persisted property of a model class.
///
/// `@unchecked Sendable`: `relationship` is assigned once while layouts are built inside the
/// registry lock, before the layout is published; everything else is a `let`.
final class PropertyLayout: @unchecked Sendable {
    let name: String
    let index: Int
    let keyPath: AnyKeyPath
    let valueType: Any.Type
    /// The options written with `@Attribute` / `@Relationship`.
    let metadata: (any SchemaProperty)?
    /// The initial value written in the declaration, if any (what a migration gives existing
    /// models when the property is new).
    let defaultValue: Any?
    let typed: (any TypedPropertyInfo)?
    /// For attributes: how values are stored.
    let codec: (any AttributeCodec)?
    /// For relationships: how the value maps to models.
    let relationshipAccess: RelationshipValueAccess?
    /// For relationships: destination, inverse, delete rule and shape (set in the linking phase).
    var relationship: RelationshipLayout?
    let problem: String?

    init(index: Int, metadata: Schema.PropertyMetadata) {
        self.name = metadata.name
        self.index = index
        self.keyPath = metadata.keypath
        self.metadata = metadata.metadata
        self.defaultValue = metadata.defaultValue
        self.typed = metadata.typed
        if let typed = metadata.typed {
            self.valueType = typed.valueType
            let transformable = (metadata.metadata as? Schema.Attribute)?.options.first { $0.transformerName != nil }
            if let access = typed.relationshipAccess {
                self.relationshipAccess = access
                self.codec = nil
                self.problem = nil
            } else if let transformable, let name = transformable.transformerName {
                self.relationshipAccess = nil
                if let transformer = transformable.makeTransformer(), let maker = typed as? any TransformableCodecMaking {
                    self.codec = maker.transformableCodec(transformer: transformer, name: name)
                    self.problem = nil
                } else {
                    self.codec = nil
                    self.problem = "\(metadata.name): no ValueTransformer is registered under the name '\(name)'; register it with ValueTransformer.setValueTransformer(_:forName:) before making the container"
                }
            } else if (metadata.metadata as? Schema.Attribute)?.isCodable == true {
                self.relationshipAccess = nil
                self.codec = AttributeCodecs.codable(for: typed.valueType)
                self.problem = self.codec == nil ? "\(metadata.name): @Attribute(.codable) needs a Codable type, and \(typed.valueType) is not" : nil
            } else if let codec = AttributeCodecs.make(for: typed.valueType) {
                self.relationshipAccess = nil
                self.codec = codec
                self.problem = nil
            } else {
                self.relationshipAccess = nil
                self.codec = nil
                self.problem = "\(metadata.name): type \(typed.valueType) cannot be stored; use a supported attribute type, a Codable or RawRepresentable type, or a @Model class"
            }
        } else {
            self.valueType = Any.self
            self.relationshipAccess = nil
            self.codec = nil
            self.problem = "\(metadata.name): no type information; declare the class with @Model"
        }
    }

    var declaresInverse: Bool { (metadata as? Schema.Relationship)?.inverseKeyPath != nil }

    /// The name the property had in the previous version of the model
    /// (`@Attribute(originalName:)` / `@Relationship(originalName:)`), if it was renamed.
    var originalName: String? {
        let name = (metadata as? Schema.Attribute)?.originalName ?? (metadata as? Schema.Relationship)?.originalName
        return name.flatMap { $0.isEmpty || $0 == self.name ? nil : $0 }
    }

    var attributeOptions: [Schema.Attribute.Option] { (metadata as? Schema.Attribute)?.options ?? [] }

    var isToMany: Bool { relationshipAccess?.isToMany ?? false }

    /// Whether the attribute stores bytes as they are (`Data`, or a transformed value), rather
    /// than a number, text, JSON or a UUID.
    var holdsBytes: Bool {
        guard let codec else { return false }
        return codec.storedType == .blob && codec.meaning == nil && !codec.storesJSON
    }
}
