import Foundation

/// The model a SwiftData or Core Data file carries in `Z_MODELCACHE`: a keyed archive of the
/// `NSManagedObjectModel` that last wrote it, compressed with raw deflate. Read into a
/// ``StoreCatalog`` — entities, attribute types, relationships with their destinations, inverses,
/// delete rules and to-many-ness, unique constraints — so a file can be looked at without the app.
///
/// The archive comes from a file another program wrote: every reference is checked, and anything
/// unexpected is an error naming the file, never a trap.
enum CoreDataModelArchive {
    /// `archive`: the inflated contents of `Z_MODELCACHE`; `numbers`: `Z_PRIMARYKEY`'s entity
    /// numbers by name; `tables`: the file's tables (to find a many-to-many's table of pairs).
    static func catalog(_ archive: Data, numbers: [String: Int64], tables: Set<String>, place: String) throws -> StoreCatalog {
        func unreadable(_ detail: String) -> SwiftDataError {
            SwiftDataError(.loadIssueModelContainer, "\(place) carries a Core Data model this library cannot read (\(detail))")
        }
        let root: BinaryPropertyList.Value
        do {
            root = try BinaryPropertyList.read(archive)
        } catch let error as BinaryPropertyList.Unreadable {
            throw unreadable(error.description)
        }
        guard let objects = root.dictionary?["$objects"]?.array,
              let top = root.dictionary?["$top"]?.dictionary?.values.first?.uid else {
            throw unreadable("it is not a keyed archive")
        }
        let archiveReader = KeyedArchive(objects: objects)
        guard let model = archiveReader.object(top), let entityRefs = archiveReader.members(model["NSEntities"]) else {
            throw unreadable("it has no entities")
        }
        var entities: [StoreCatalog.Entity] = []
        var descriptions: [(name: String, superentity: String?, properties: [(String, [String: BinaryPropertyList.Value])], unique: [[String]])] = []
        for reference in entityRefs {
            guard let entity = archiveReader.object(reference), let name = archiveReader.string(entity["NSEntityName"]) else {
                throw unreadable("an entity has no name")
            }
            let superentity = archiveReader.object(entity["NSSuperentity"]).flatMap { archiveReader.string($0["NSEntityName"]) }
            var properties: [(String, [String: BinaryPropertyList.Value])] = []
            for (key, value) in archiveReader.pairs(entity["NSProperties"]) {
                guard let property = archiveReader.object(value) else { continue }
                properties.append((key, property))
            }
            let unique = (archiveReader.members(entity["NSUniqueTuples"]) ?? []).map { tuple in
                (archiveReader.members(tuple) ?? []).compactMap { archiveReader.string($0) ?? archiveReader.object($0).flatMap { archiveReader.string($0["NSPropertyName"]) } }
            }
            descriptions.append((name, superentity, properties.sorted { $0.0 < $1.0 }, unique.filter { !$0.isEmpty }))
        }
        let superOf = Dictionary(descriptions.map { ($0.name, $0.superentity) }, uniquingKeysWith: { first, _ in first })
        func rootName(_ name: String) -> String {
            StoreCatalog.ancestors(of: name, superentities: superOf)?.last ?? name
        }
        for description in descriptions.sorted(by: { $0.name < $1.name }) {
            let table = CoreDataModelMap.storedName(rootName(description.name))
            var attributes: [StoreCatalog.Attribute] = []
            var relationships: [StoreCatalog.Relationship] = []
            for (name, property) in description.properties {
                let className = archiveReader.className(property)
                let isOptional = property["NSIsOptional"]?.bool ?? true
                if className == "NSAttributeDescription" {
                    let code = property["NSAttributeType"]?.integer ?? 0
                    let (kind, typeName) = Self.attributeType(code, className: archiveReader.string(property["NSAttributeValueClassName"]))
                    attributes.append(StoreCatalog.Attribute(name: name, typeName: typeName, kind: kind, isOptional: isOptional, column: CoreDataModelMap.storedName(name)))
                } else if className == "NSRelationshipDescription" {
                    guard let destination = archiveReader.object(property["NSDestinationEntity"]).flatMap({ archiveReader.string($0["NSEntityName"]) }) else {
                        throw unreadable("the relationship \(description.name).\(name) has no destination")
                    }
                    let inverseProperty = archiveReader.object(property["NSInverseRelationship"])
                    let inverse = inverseProperty.flatMap { archiveReader.string($0["NSPropertyName"]) } ?? archiveReader.string(property["_NSInverseRelationshipName"])
                    let isToMany = (property["NSMaxCount"]?.integer ?? 1) != 1
                    let inverseIsToMany = inverseProperty.map { ($0["NSMaxCount"]?.integer ?? 1) != 1 } ?? false
                    let storage: RelationshipStorage
                    if !isToMany {
                        storage = .foreignKey(column: CoreDataModelMap.storedName(name))
                    } else if let inverse, !inverseIsToMany {
                        storage = .inverseForeignKey(table: CoreDataModelMap.storedName(rootName(destination)), column: CoreDataModelMap.storedName(inverse))
                    } else if let inverse, let owner = numbers[description.name], let other = numbers[destination] {
                        // Core Data's table of pairs: named after one side (`Z_<n><RELATIONSHIP>`), each
                        // column after the entity whose keys it holds and the relationship pointing at them.
                        let candidates = ["Z_\(owner)\(name.uppercased())", "Z_\(other)\(inverse.uppercased())"]
                        guard let pairs = candidates.first(where: tables.contains) else {
                            throw unreadable("the many-to-many relationship \(description.name).\(name) has no table of pairs")
                        }
                        storage = .joinTable(table: pairs, ownerColumn: "Z_\(owner)\(inverse.uppercased())", otherColumn: "Z_\(other)\(name.uppercased())")
                    } else {
                        throw unreadable("the to-many relationship \(description.name).\(name) has no inverse")
                    }
                    // `NSDeleteRule`'s numbers, in Core Data's order.
                    let rules: [Schema.Relationship.DeleteRule] = [.noAction, .nullify, .cascade, .deny]
                    let ruleNumber = Int(property["NSDeleteRule"]?.integer ?? 1)
                    relationships.append(StoreCatalog.Relationship(
                        name: name, destination: destination, isToMany: isToMany, inverse: inverse,
                        deleteRule: rules.indices.contains(ruleNumber) ? rules[ruleNumber] : nil, isOptional: isOptional, storage: storage))
                }
            }
            entities.append(StoreCatalog.Entity(
                name: description.name, superentity: description.superentity, attributes: attributes, relationships: relationships,
                uniqueness: description.unique, indices: [], table: table,
                entityValues: StoreCatalog.lineage(of: description.name, superentities: superOf).compactMap { numbers[$0] }.map { .integer($0) }))
        }
        return StoreCatalog(layout: .coreData, version: nil, entities: entities, entityColumn: "Z_ENT")
    }

    /// The kind and Swift type of a Core Data attribute type (`NSAttributeType`'s raw values).
    private static func attributeType(_ code: Int64, className: String?) -> (StoreCatalog.ValueKind, String) {
        switch code {
        case 100: return (.integer, "Int16")
        case 200: return (.integer, "Int32")
        case 300: return (.integer, "Int")
        case 400: return (.decimal, "Decimal")
        case 500: return (.double, "Double")
        case 600: return (.double, "Float")
        case 700: return (.string, "String")
        case 800: return (.bool, "Bool")
        case 900: return (.date, "Date")
        case 1000: return (.data, "Data")
        case 1100: return (.uuid, "UUID")
        case 1200: return (.url, "URL")
        case 1800: return (.other, className.map { "Transformable (\($0))" } ?? "Transformable")
        case 2200: return (.other, "Composite")
        default: return (.other, "Core Data type \(code)")
        }
    }

    /// Objects of a keyed archive looked up by reference.
    private struct KeyedArchive {
        let objects: [BinaryPropertyList.Value]

        func resolve(_ value: BinaryPropertyList.Value?) -> BinaryPropertyList.Value? {
            guard let value else { return nil }
            guard let uid = value.uid else { return value }
            guard uid > 0, uid < objects.count else { return nil }
            return objects[uid]
        }

        func object(_ value: BinaryPropertyList.Value?) -> [String: BinaryPropertyList.Value]? { resolve(value)?.dictionary }
        func object(_ uid: Int) -> [String: BinaryPropertyList.Value]? { object(.uid(uid)) }
        func string(_ value: BinaryPropertyList.Value?) -> String? { resolve(value)?.string }

        func className(_ object: [String: BinaryPropertyList.Value]) -> String? {
            self.object(object["$class"]).flatMap { string($0["$classname"]) }
        }

        /// The members of an archived array or set.
        func members(_ value: BinaryPropertyList.Value?) -> [BinaryPropertyList.Value]? {
            guard let container = object(value) else { return nil }
            if let items = container["NS.objects"]?.array { return items }
            // Core Data's known-keys dictionary keeps its values in an array of its own.
            if let values = container["values"] { return members(values) }
            return nil
        }

        /// The key–value pairs of an archived dictionary (plain or Core Data's known-keys kind).
        func pairs(_ value: BinaryPropertyList.Value?) -> [(String, BinaryPropertyList.Value)] {
            guard let container = object(value) else { return [] }
            if let keys = container["NS.keys"]?.array, let values = container["NS.objects"]?.array {
                return zip(keys, values).compactMap { key, value in string(key).map { ($0, value) } }
            }
            if let keys = object(container["searchMapping"]).flatMap({ members(.dictionary($0)) ?? $0["keys"].flatMap { members($0) } }),
               let values = members(container["values"]) {
                return zip(keys, values).compactMap { key, value in string(key).map { ($0, value) } }
            }
            return []
        }
    }
}
