import Foundation

/// The tables every SQL store keeps besides its entities' — `Z_METADATA` (identifier, schema
/// fingerprint, version, layout format), `Z_PRIMARYKEY` (the last key given per entity) and the
/// history tables (`+History`) — in any engine's dialect.
extension SQLStore {
    /// Creates the tables and indexes of `layouts` and fills the metadata of a new store.
    static func createSchema(
        on connection: any SQLConnection, layouts: [ModelLayout], dialect: any SQLDialect, identifier: String, version: Schema.Version,
        ownedRows: RowOwners? = nil
    ) throws {
        for statement in DDL.statements(for: layouts, dialect: dialect, ownedRows: ownedRows) {
            _ = try connection.execute(statement, bindings: [])
        }
        let insertMetadata = SQLRenderer.render(.insert(table: metadataTable, columns: ["Z_KEY", "Z_VALUE"], orIgnore: false), dialect: dialect).text
        var metadata = [("identifier", identifier), ("fingerprint", SchemaFingerprint.describing(layouts)), ("version", version.description), ("format", formatVersion)]
        if !dialect.typedValues.isEmpty {
            metadata.append((typedValuesKey, dialect.typedValues.map(\.rawValue).sorted().joined(separator: ",")))
        }
        if let ownedRows {
            metadata.append((ownedTablesKey, try ownedRows.tables(of: layouts).sorted().joined(separator: ",")))
        }
        for (key, value) in metadata {
            _ = try connection.execute(insertMetadata, bindings: [.text(key), .text(value)])
        }
        try recordRelationships(of: layouts, on: connection, dialect: dialect)
        let insertKey = SQLRenderer.render(.insert(table: primaryKeyTable, columns: ["Z_ENTITY", "Z_MAX"], orIgnore: false), dialect: dialect).text
        for table in Set(layouts.map(\.tableName)).sorted() {
            _ = try connection.execute(insertKey, bindings: [.text(table), .integer(0)])
        }
        try prepareHistory(on: connection, dialect: dialect, tables: [])
    }

    /// The metadata key naming the values a store keeps in types of their own (``SQLDialect/typedValues``).
    static let typedValuesKey = "typed values"

    /// The values an existing store keeps in types of their own, as its metadata says (none for a
    /// store created before there were any); `nil` when `tables` has no store yet.
    package static func storedTypedValues(on connection: any SQLConnection, dialect: any SQLDialect, tables: Set<String>) throws -> Set<ValueMeaning>? {
        guard tables.contains(metadataTable) else { return nil }
        let names = try readMetadata(connection, dialect: dialect)[typedValuesKey] ?? ""
        return Set(names.split(separator: ",").compactMap { ValueMeaning(rawValue: String($0)) })
    }

    /// The store's metadata, key by key.
    static func readMetadata(_ connection: any SQLConnection, dialect: any SQLDialect) throws -> [String: String] {
        let select = SQLSelect(
            columns: [.column(table: "m", name: "Z_KEY"), .column(table: "m", name: "Z_VALUE")],
            from: SQLTableReference(table: metadataTable, alias: "m"))
        let rendered = SQLRenderer.render(.select(select), dialect: dialect)
        var result: [String: String] = [:]
        try connection.query(rendered.text, bindings: rendered.bindings) { row in
            if case .text(let key) = row.value(at: 0), case .text(let value) = row.value(at: 1) {
                result[key] = value
            }
        }
        return result
    }

    /// Replaces metadata values (`version`, `fingerprint`).
    static func writeMetadata(_ values: [String: String], on connection: any SQLConnection, dialect: any SQLDialect) throws {
        let update = SQLRenderer.render(.updateByKey(table: metadataTable, columns: ["Z_VALUE"], key: "Z_KEY"), dialect: dialect).text
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            _ = try connection.execute(update, bindings: [.text(value), .text(key)])
        }
    }

    /// A short account of how two schema fingerprints differ, for the mismatch error.
    static func describeDifference(stored: String, current: String) -> String {
        func entities(_ text: String) -> [String: [String]] {
            var result: [String: [String]] = [:]
            var currentEntity = ""
            for line in text.split(separator: "\n") {
                if line.hasPrefix("entity ") {
                    currentEntity = String(line.dropFirst("entity ".count))
                    result[currentEntity] = []
                } else {
                    result[currentEntity, default: []].append(line.trimmingCharacters(in: .whitespaces))
                }
            }
            return result
        }
        let old = entities(stored)
        let new = entities(current)
        var notes: [String] = []
        for name in Set(old.keys).union(new.keys).sorted() {
            switch (old[name], new[name]) {
            case (nil, _?): notes.append("the model has entity \(name), the store does not")
            case (_?, nil): notes.append("the store has entity \(name), the model does not")
            case (let a?, let b?):
                let removed = Set(a).subtracting(b).sorted()
                let added = Set(b).subtracting(a).sorted()
                if !removed.isEmpty { notes.append("\(name) in the store has \(removed.joined(separator: "; "))") }
                if !added.isEmpty { notes.append("\(name) in the model has \(added.joined(separator: "; "))") }
            default: break
            }
        }
        return notes.isEmpty ? "the schemas differ" : notes.joined(separator: "; ")
    }
}

/// Each relationship's delete rule and inverse, kept beside the schema description, which
/// records tables only: a tool looking at the store without its models (``StoreBrowser``)
/// applies the rules when it deletes. One line per relationship: `Entity.name rule [inverse]`.
extension SQLStore {
    static let relationshipsKey = "relationships"

    /// Replaces the recorded rules with those of `layouts` (at creation and after a migration).
    static func recordRelationships(of layouts: [ModelLayout], on connection: any SQLConnection, dialect: any SQLDialect) throws {
        var lines: [String] = []
        for layout in layouts.sorted(by: { $0.entityName < $1.entityName }) {
            let inherited = layout.superLayout?.properties.count ?? 0
            for (slot, property) in layout.properties.enumerated() where slot >= inherited {
                guard let relationship = property.relationship else { continue }
                // `Entity.property rule [inverse]`, and for a to-one that may not be empty
                // `Entity.property rule inverse-or-"-" required` (a reader that knows only the
                // first form skips such a line, and the rule reads as the default).
                var line = "\(layout.entityName).\(property.name) \(relationship.deleteRule)"
                let isRequired = property.relationshipAccess?.isRequiredToOne == true
                if let inverse = relationship.inverse {
                    line += " \(inverse.name)"
                } else if isRequired {
                    line += " -"
                }
                if isRequired { line += " required" }
                lines.append(line)
            }
        }
        let delete = SQLRenderer.render(.delete(table: metadataTable, whereClause: .binary(.column(table: "", name: "Z_KEY"), .equal, .bind(.text(relationshipsKey)))), dialect: dialect)
        _ = try connection.execute(delete.text, bindings: delete.bindings)
        _ = try connection.execute(
            SQLRenderer.render(.insert(table: metadataTable, columns: ["Z_KEY", "Z_VALUE"], orIgnore: false), dialect: dialect).text,
            bindings: [.text(relationshipsKey), .text(lines.joined(separator: "\n"))])
    }

    /// The recorded rules and inverses by `Entity.name`; empty for a store written before they were
    /// kept. Which to-ones are required is recorded since it mattered to the studio's deletes; a
    /// store recorded before that reads every to-one as optional until a migration records again.
    static func recordedRelationships(_ metadata: [String: String]) -> [String: RecordedRelationship] {
        var result: [String: RecordedRelationship] = [:]
        for line in (metadata[relationshipsKey] ?? "").split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            guard (2...4).contains(words.count) else { continue }
            let inverse = words.count >= 3 && words[2] != "-" ? words[2] : nil
            result[words[0]] = RecordedRelationship(rule: Schema.Relationship.DeleteRule(rawValue: words[1]), inverse: inverse, isRequired: words.count == 4 && words[3] == "required")
        }
        return result
    }
}
