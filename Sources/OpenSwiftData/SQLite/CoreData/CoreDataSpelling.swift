import Foundation

/// A Core Data file's spelling (``SQLSpelling``), from its ``CoreDataModelMap``: tables and columns
/// renamed (`Item` → `ZITEM`, `name` → `ZNAME`), composite attributes read as one JSON value built
/// from their columns and written field by field (``CoreDataComposite``), and `.externalStorage`
/// data read and written without its marker byte (``CoreDataExternalData``) — each by table and
/// column, since another table's same-named column may be plain.
struct CoreDataSpelling: SQLSpelling {
    let renames: [String: String]
    let renamedTables: Set<String>
    let composites: [TableColumn: CoreDataComposite]
    /// The `.externalStorage` attributes, and the folder of their externally stored values.
    let externalData: [TableColumn: String]

    init(map: CoreDataModelMap, storePath: String) {
        renames = map.renames
        renamedTables = Set(map.tableEntityNumbers.keys)
        composites = map.composites
        let folder = CoreDataExternalData.folder(ofStoreAt: storePath)
        externalData = Dictionary(uniqueKeysWithValues: map.externalData.map { ($0, folder) })
    }

    func storedName(_ identifier: String) -> String? { renames[identifier] }

    func isRenamedTable(_ table: String) -> Bool { renamedTables.contains(table) }

    func readColumn(_ name: String, qualified: String, qualifier: String?, table: String, dialect: any SQLDialect) -> String? {
        guard !externalData.isEmpty || !composites.isEmpty else { return nil }
        let key = TableColumn(table: table, column: name)
        if let folder = externalData[key] {
            return "osd_external_data(\(qualified), \(dialect.standardLiteral(.text(folder)) ?? "''"))"
        }
        guard let composite = composites[key] else { return nil }
        let columns = composite.elements.map { element in
            qualifier.map { "\($0).\(dialect.quoteWithDoubleQuotes(element.column))" } ?? dialect.quoteWithDoubleQuotes(element.column)
        }
        return "osd_composite(\(dialect.standardLiteral(.text(composite.descriptor)) ?? "''"), \(columns.joined(separator: ", ")))"
    }

    func writeColumn(_ name: String, placeholder: String, table: String, dialect: any SQLDialect) -> [(column: String, value: String)]? {
        guard !externalData.isEmpty || !composites.isEmpty else { return nil }
        let key = TableColumn(table: table, column: name)
        if externalData[key] != nil { return [(dialect.quote(name), "osd_external_data_inline(\(placeholder))")] }
        guard let composite = composites[key] else { return nil }
        return composite.elements.map { element in
            let path = dialect.standardLiteral(.text(element.path.joined(separator: "."))) ?? "''"
            return (dialect.quoteWithDoubleQuotes(element.column), "osd_composite_field(\(placeholder), \(path), '\(element.kind.rawValue)')")
        }
    }
}
