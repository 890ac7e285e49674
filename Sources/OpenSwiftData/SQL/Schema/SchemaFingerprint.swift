import Foundation

/// The tables an SQL store holds, read back from the schema description it keeps beside its data
/// (``ModelLayout/fingerprintDescription``), so a migration knows what is on disk without the model
/// types that wrote it.
struct SchemaFingerprint {
    struct Attribute: Equatable {
        let name: String
        /// The Swift type without its `?`.
        let typeName: String
        let storedType: StoredType
        let isSwiftString: Bool
        let isOptional: Bool
    }

    struct Relationship {
        let name: String
        let destination: String
        let isToMany: Bool
        let storage: RelationshipStorage
    }

    struct Entity {
        let name: String

        init(name: String) {
            self.name = name
        }

        /// The entity it inherits from; it shares that entity's table.
        var superentity: String?
        var attributes: [Attribute] = []
        var relationships: [Relationship] = []
        /// Unique constraints and indexes, as groups of property names.
        var uniqueness: [[String]] = []
        var indices: [[String]] = []

        func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }
        func relationship(_ name: String) -> Relationship? { relationships.first { $0.name == name } }

        /// The to-one key columns of the entity's table.
        var keyColumns: [String] {
            relationships.compactMap { relationship in
                if case .foreignKey(let column) = relationship.storage { return column }
                return nil
            }
        }

        /// The join tables this entity's relationships use.
        var joinTables: [String] {
            relationships.compactMap { relationship in
                if case .joinTable(let table, _, _) = relationship.storage { return table }
                return nil
            }
        }
    }

    /// The entities by name.
    private(set) var entities: [String: Entity] = [:]
    /// Entity names in the order of the description.
    private(set) var entityNames: [String] = []

    /// The top entity of `name`'s hierarchy, whose table holds its rows.
    func tableName(of name: String) -> String {
        var current = name
        var seen = Set<String>()
        while let next = entities[current]?.superentity, seen.insert(current).inserted { current = next }
        return current
    }

    /// Reads a description; throws when it is not one this version of OpenSwiftData wrote.
    init(description: String) throws {
        var current: Entity?
        func finish() {
            if let entity = current {
                entities[entity.name] = entity
                entityNames.append(entity.name)
            }
        }
        for rawLine in description.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            let words = line.split(separator: " ").map(String.init)
            guard let kind = words.first else { continue }
            switch kind {
            case "entity" where words.count == 2:
                finish()
                current = Entity(name: words[1])
            case "attr" where words.count >= 4:
                // `attr name Type stored[ swift][ null]`; the type name may contain spaces.
                var rest = Array(words.dropFirst(2))
                let isOptional = rest.last == "null"
                if isOptional { rest.removeLast() }
                let isSwiftString = rest.last == "swift"
                if isSwiftString { rest.removeLast() }
                guard rest.count >= 2, let type = rest.last.flatMap(StoredType.init(rawValue:)) else { throw Self.unreadable(line) }
                var typeName = rest.dropLast().joined(separator: " ")
                if typeName.hasSuffix("?") { typeName.removeLast() }
                current?.attributes.append(Attribute(
                    name: words[1], typeName: typeName, storedType: type, isSwiftString: isSwiftString, isOptional: isOptional))
            case "rel" where words.count == 6 && words[2] == "->":
                guard let storage = RelationshipStorage(fingerprint: words[5]) else { throw Self.unreadable(line) }
                current?.relationships.append(Relationship(name: words[1], destination: words[3], isToMany: words[4] == "many", storage: storage))
            case "super" where words.count == 2:
                current?.superentity = words[1]
            case "unique" where words.count == 2:
                // A migration compares indexes with the database's own list; a schema diff reads these.
                current?.uniqueness.append(words[1].split(separator: ",").map(String.init))
            case "index" where words.count == 2:
                current?.indices.append(words[1].split(separator: ",").map(String.init))
            default:
                throw Self.unreadable(line)
            }
            if current == nil { throw Self.unreadable(line) }
        }
        finish()
    }

    /// The description of `layouts`, as a store would keep it.
    static func describing(_ layouts: [ModelLayout]) -> String {
        layouts.sorted { $0.entityName < $1.entityName }.map(\.fingerprintDescription).joined(separator: "\n")
    }

    private static func unreadable(_ line: String) -> SwiftDataError {
        SwiftDataError(.loadIssueModelContainer, "the store's schema description has a line this version of OpenSwiftData cannot read ('\(line)'); the store was written by a newer version or is damaged")
    }
}

extension RelationshipStorage {
    /// Reads the form ``fingerprint`` writes.
    init?(fingerprint: String) {
        func inside(_ prefix: String) -> String? {
            guard fingerprint.hasPrefix(prefix + "("), fingerprint.hasSuffix(")") else { return nil }
            return String(fingerprint.dropFirst(prefix.count + 1).dropLast())
        }
        if let column = inside("fk") {
            self = .foreignKey(column: column)
        } else if let body = inside("inverse-fk") {
            let parts = body.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            self = .inverseForeignKey(table: parts[0], column: parts[1])
        } else if let body = inside("join") {
            let parts = body.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            let columns = parts[1].split(separator: ",").map(String.init)
            guard columns.count == 2 else { return nil }
            self = .joinTable(table: parts[0], ownerColumn: columns[0], otherColumn: columns[1])
        } else {
            return nil
        }
    }
}
