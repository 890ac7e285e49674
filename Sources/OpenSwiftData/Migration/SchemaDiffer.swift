import Foundation

/// Compares two schemas entity by entity and property by property (``SchemaDiff``), and judges
/// each difference as the migration does — the rules of `SQLMigrator` and the *Migrations*
/// article, in their words: what changes here must change there.
struct SchemaDiffer {
    let old: Schema
    let new: Schema
    let isPlanStage: Bool
    /// Whether `old` is what a store file recorded (``RecordedSchema``): types as the file names
    /// them, and no delete rules.
    let oldIsRecorded: Bool
    private var result: [SchemaDiff.Change] = []

    init(old: Schema, new: Schema, isPlanStage: Bool, oldIsRecorded: Bool = false) {
        self.old = old
        self.new = new
        self.isPlanStage = isPlanStage
        self.oldIsRecorded = oldIsRecorded
    }

    mutating func changes() -> [SchemaDiff.Change] {
        result = []
        if !isPlanStage && new.version < old.version {
            add(new.entities.first?.name ?? "", nil, .olderVersion, .refused,
                "the store was written with \(old.version), newer than the models' \(new.version): opening it throws backwardMigration; only a plan's own stage can lead back")
        }
        let oldNames = Set(old.entities.map(\.name)), newNames = Set(new.entities.map(\.name))
        if !isPlanStage && !oldNames.isEmpty && !newNames.isEmpty && oldNames.isDisjoint(with: newNames) {
            add(new.entities[0].name, nil, .noEntityInCommon, .refused,
                "the store holds none of the models' entities (\(oldNames.sorted().joined(separator: ", "))): it is another application's store, and opening it throws schemaMismatch")
        }
        for entity in new.entities {
            guard let before = old.entitiesByName[entity.name] else {
                add(entity.name, nil, .entityAdded, .lightweight, "an empty table")
                continue
            }
            if before.superentityName != entity.superentityName {
                add(entity.name, nil, .superentityChanged, .customStage,
                    "its rows would change tables (\(before.superentityName ?? "no superclass") → \(entity.superentityName ?? "no superclass")), which a lightweight migration does not do: add the class under a new name, copy its models to it in a custom stage, and remove the old one")
            }
            let renamed = compareProperties(before, entity)
            compareConstraints(before, entity, renamed: renamed)
        }
        for entity in old.entities where new.entitiesByName[entity.name] == nil {
            if isPlanStage {
                add(entity.name, nil, .entityRemoved, .lightweight, "its table is dropped with its rows: the stage's version says it is gone")
            } else {
                add(entity.name, nil, .entityRemoved, .dependsOnData,
                    "an empty table is dropped; with rows, opening is refused (schemaMismatch) — opening never deletes data: remove it through a plan whose newest version lacks it (a renamed class is a new entity: keep the class name)")
            }
        }
        return result
    }

    private mutating func add(_ entity: String, _ property: String?, _ kind: SchemaDiff.Kind, _ verdict: SchemaDiff.Verdict, _ detail: String) {
        result.append(SchemaDiff.Change(entityName: entity, propertyName: property, kind: kind, verdict: verdict, detail: detail))
    }

    // MARK: Properties

    /// Compares the entity's own properties (inherited ones are its superclass's); returns the
    /// old name of each renamed property by its new one.
    private mutating func compareProperties(_ before: Schema.Entity, _ entity: Schema.Entity) -> [String: String] {
        var matched = Set<String>()
        var renamed: [String: String] = [:]
        let own = entity.properties.dropFirst(entity.inheritedProperties.count)
        let oldOwn = before.properties.dropFirst(before.inheritedProperties.count)
        func previous(_ property: any SchemaProperty) -> (any SchemaProperty)? {
            for name in [property.name, property.originalName] {
                if let found = oldOwn.first(where: { $0.name == name && $0.isRelationship == property.isRelationship }) { return found }
            }
            return nil
        }
        for property in own {
            let name = entity.name
            guard let former = previous(property) else {
                if let attribute = property as? Schema.Attribute {
                    attributeAdded(name, attribute)
                } else if let relationship = property as? Schema.Relationship {
                    relationshipAdded(name, relationship, kind: .relationshipAdded, detail: "no links")
                }
                continue
            }
            matched.insert(former.name)
            if former.name != property.name {
                renamed[property.name] = former.name
                add(name, property.name, property.isRelationship ? .relationshipRenamed : .attributeRenamed, .lightweight,
                    "the old \(property.isRelationship ? "links" : "values") of \(former.name), under the new name (originalName: \"\(former.name)\")")
            }
            if let attribute = property as? Schema.Attribute, let formerAttribute = former as? Schema.Attribute {
                compareAttribute(name, formerAttribute, attribute)
            } else if let relationship = property as? Schema.Relationship, let formerRelationship = former as? Schema.Relationship {
                compareRelationship(name, formerRelationship, relationship)
            }
        }
        // A recorded subclass lists its inherited properties too: they are its superclass's.
        let inherited = Set(entity.inheritedProperties.flatMap { [$0.name, $0.originalName] })
        for property in oldOwn where !matched.contains(property.name) && !inherited.contains(property.name) {
            add(entity.name, property.name, property.isRelationship ? .relationshipRemoved : .attributeRemoved, .lightweight,
                property.isRelationship ? "its links are deleted" : "its values are deleted with it")
        }
        return renamed
    }

    private mutating func attributeAdded(_ entity: String, _ attribute: Schema.Attribute) {
        if attribute.isOptional {
            add(entity, attribute.name, .attributeAdded, .lightweight, "existing models get nil")
        } else if let value = attribute.defaultValue {
            add(entity, attribute.name, .attributeAdded, .lightweight, "existing models get its initial value, \(Self.describe(value))")
        } else {
            add(entity, attribute.name, .attributeAdded, .dependsOnData,
                "non-optional without an initial value: made while the store holds no \(entity); otherwise refused (schemaMismatch) — give it an initial value in its declaration, or make it optional")
        }
    }

    private mutating func compareAttribute(_ entity: String, _ former: Schema.Attribute, _ attribute: Schema.Attribute) {
        let oldType = Self.baseTypeName(former), newType = oldIsRecorded ? recordedTypeName(entity, attribute) : Self.baseTypeName(attribute)
        if oldType != newType {
            if NumericKind.converts(oldType, to: newType) {
                add(entity, attribute.name, .attributeTypeChanged, .lightweight, "the old values, converted from \(oldType) to \(newType)")
            } else {
                add(entity, attribute.name, .attributeTypeChanged, .customStage,
                    "\(oldType) values cannot become \(newType) in a lightweight migration: keep the old property in the old version, add the new one under another name, and convert the values in the custom stage's didMigrate (or willMigrate)")
            }
        } else if !oldIsRecorded && Self.storedForm(former) != Self.storedForm(attribute) {
            add(entity, attribute.name, .attributeStorageChanged, .customStage,
                "stored \(Self.storedForm(former)) before and \(Self.storedForm(attribute)) now, which a lightweight migration does not convert: add the new form under another name and copy the values in a custom stage")
        }
        if former.isOptional && !attribute.isOptional {
            if let value = attribute.defaultValue {
                add(entity, attribute.name, .attributeMadeNonOptional, .lightweight, "the old values, and \(Self.describe(value)) where there was nil")
            } else {
                add(entity, attribute.name, .attributeMadeNonOptional, .dependsOnData,
                    "made where no stored \(entity) has nil; otherwise refused (schemaMismatch) — give it an initial value, or fill the values in a custom stage's willMigrate")
            }
        } else if !former.isOptional && attribute.isOptional {
            add(entity, attribute.name, .attributeMadeOptional, .lightweight, "the old values")
        }
    }

    private mutating func relationshipAdded(_ entity: String, _ relationship: Schema.Relationship, kind: SchemaDiff.Kind, detail: String) {
        if relationship.isToOneRelationship && !relationship.isOptional {
            add(entity, relationship.name, kind, .dependsOnData,
                "a non-optional to-one with nothing in it: made while the store holds no \(entity); otherwise refused (schemaMismatch) — make it optional, or set it in a custom stage")
        } else {
            add(entity, relationship.name, kind, .lightweight, detail)
        }
    }

    private mutating func compareRelationship(_ entity: String, _ former: Schema.Relationship, _ relationship: Schema.Relationship) {
        if former.destination != relationship.destination {
            relationshipAdded(entity, relationship, kind: .relationshipDestinationChanged,
                              detail: "it now relates to \(relationship.destination), not \(former.destination): the old links are deleted and it starts empty")
            return
        }
        switch (former.isToOneRelationship, relationship.isToOneRelationship) {
        case (true, false):
            add(entity, relationship.name, .relationshipCardinalityChanged, .lightweight, "to-one → to-many: the same links, moved where to-many links are kept")
        case (false, true):
            add(entity, relationship.name, .relationshipCardinalityChanged, .dependsOnData,
                "to-many → to-one: the same links where no \(entity) holds more than one; otherwise refused (schemaMismatch) — reduce each to one in a custom stage's willMigrate")
        default:
            break
        }
        if !oldIsRecorded && former.deleteRule != relationship.deleteRule {
            add(entity, relationship.name, .deleteRuleChanged, .lightweight, "\(former.deleteRule) → \(relationship.deleteRule): nothing changes on disk; the new rule applies from then on")
        }
    }

    // MARK: Uniqueness and indexes

    /// Compares unique constraints (`#Unique` and `.unique`) and `#Index`es, old names read as
    /// the renamed properties' new ones.
    private mutating func compareConstraints(_ before: Schema.Entity, _ entity: Schema.Entity, renamed: [String: String]) {
        let newName = Dictionary(renamed.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })
        func translated(_ groups: [[String]]) -> [[String]] { groups.map { $0.map { newName[$0] ?? $0 } } }
        let oldUnique = Set(translated(Self.uniqueGroups(before)).map { $0.sorted() })
        let newUnique = Set(Self.uniqueGroups(entity).map { $0.sorted() })
        for group in Self.uniqueGroups(entity) where !oldUnique.contains(group.sorted()) {
            add(entity.name, group.joined(separator: ", "), .uniquenessAdded, .dependsOnData,
                "a unique index is created; where stored \(entity.name) models share a value, opening is refused (constraintViolation, naming one) — merge or delete the duplicates in a custom stage's willMigrate")
        }
        for group in translated(Self.uniqueGroups(before)) where !newUnique.contains(group.sorted()) {
            add(entity.name, group.joined(separator: ", "), .uniquenessRemoved, .lightweight, "the unique index is dropped")
        }
        let oldIndexes = translated(before.indices), newIndexes = entity.indices
        for group in newIndexes where !oldIndexes.contains(group) {
            add(entity.name, group.joined(separator: ", "), .indexAdded, .lightweight, "the index is created")
        }
        for group in oldIndexes where !newIndexes.contains(group) {
            add(entity.name, group.joined(separator: ", "), .indexRemoved, .lightweight, "the index is dropped")
        }
    }

    /// An entity's unique constraints: `#Unique` groups and each `.unique` property of its own.
    private static func uniqueGroups(_ entity: Schema.Entity) -> [[String]] {
        var groups = entity.uniquenessConstraints
        for property in entity.properties.dropFirst(entity.inheritedProperties.count) where property.isUnique && !groups.contains([property.name]) {
            groups.append([property.name])
        }
        return groups
    }

    // MARK: Types

    /// The attribute's type without its optionality (`Optional<Int>` and `Int?` are `Int`).
    static func baseTypeName(_ attribute: Schema.Attribute) -> String {
        var name = attribute.valueTypeName
        if name.hasPrefix("Optional<") && name.hasSuffix(">") { name = String(name.dropFirst(9).dropLast()) }
        if name.hasSuffix("?") { name.removeLast() }
        return name
    }

    /// The attribute's type as a store file records it (`Codable` for a `.codable` struct), from
    /// the models' layouts where the new schema has them.
    private func recordedTypeName(_ entity: String, _ attribute: Schema.Attribute) -> String {
        guard let codec = new.layouts.first(where: { $0.entityName == entity })?.properties.first(where: { $0.name == attribute.name })?.codec else {
            return Self.baseTypeName(attribute)
        }
        var name = codec.schemaTypeName
        if name.hasSuffix("?") { name.removeLast() }
        return name
    }

    /// How the attribute is kept: as JSON (`.codable`), through a transformer, or as itself.
    private static func storedForm(_ attribute: Schema.Attribute) -> String {
        if let transformer = attribute.options.lazy.compactMap(\.transformerName).first { return "through the transformer \(transformer)" }
        return attribute.isCodable ? "as JSON (.codable)" : "as itself"
    }

    private static func describe(_ value: Any) -> String {
        if let string = value as? String { return "\"\(string)\"" }
        return String(describing: value)
    }
}
