import Foundation

/// The schema an OpenSwiftData store file recorded when it was last written (its version, and
/// the description of its tables, ``SchemaFingerprint``) as a ``Schema`` without classes, so that
/// ``SchemaDiff`` can compare it with models. What a file does not record — delete rules,
/// inverses, initial values, former names — the schema leaves out.
enum RecordedSchema {
    static func read(from url: URL) throws -> Schema {
        let path = url.path
        guard FileManager.default.fileExists(atPath: path) else {
            throw SwiftDataError(.loadIssueModelContainer, "there is no store file at \(path)")
        }
        do {
            let connection = try CoreDataModelMap.openForReading(path: path).connection
            if try CoreDataModelMap.isCoreDataFile(connection) {
                throw SwiftDataError(.unknownSchema, "\(path) was written by SwiftData or Core Data, which keep their model in a form this library does not read; replay it as a migration fixture with the models that should open it instead")
            }
            let (recorded, fingerprint) = try description(connection, path: path)
            let version = recorded.flatMap(Schema.Version.init(parsing:)) ?? Schema.Version(0, 0, 0)
            return Schema(described: fingerprint.entityNames.compactMap { fingerprint.entities[$0].map(archive) }.map { $0.entity() }, version: version)
        } catch let error as SQLiteError {
            throw SwiftDataError(.loadIssueModelContainer, "cannot read \(path): \(error.description)")
        }
    }

    /// The version and the description of its tables an OpenSwiftData file (not Core Data's)
    /// recorded, read on `connection`.
    static func description(_ connection: SQLiteConnection, path: String) throws -> (version: String?, fingerprint: SchemaFingerprint) {
        let metadata: [String: String]
        do {
            metadata = try SQLStore.readMetadata(connection, dialect: SQLiteDialect())
        } catch {
            throw SwiftDataError(.loadIssueModelContainer, "\(path) is neither an OpenSwiftData store nor in Core Data's layout (it has no metadata table)")
        }
        return (metadata["version"], try SchemaFingerprint(description: metadata["fingerprint"] ?? ""))
    }

    /// An entity as a schema archive holds it. A subclass's recorded properties are its own
    /// (its superclass's come first in a schema built from models, and a diff skips them).
    private static func archive(_ entity: SchemaFingerprint.Entity) -> SchemaArchive.EntityArchive {
        let attributes = entity.attributes.map { attribute in
            SchemaArchive.PropertyArchive(
                name: attribute.name, originalName: attribute.name, valueType: attribute.typeName, isOptional: attribute.isOptional,
                hashModifier: nil, options: [], relationship: nil)
        }
        let relationships = entity.relationships.map { relationship in
            SchemaArchive.PropertyArchive(
                name: relationship.name, originalName: relationship.name, valueType: relationship.destination, isOptional: true,
                hashModifier: nil, options: [],
                relationship: SchemaArchive.RelationshipArchive(
                    destination: relationship.destination, inverse: nil, deleteRule: .nullify, isToOne: !relationship.isToMany,
                    minimumModelCount: nil, maximumModelCount: nil))
        }
        return SchemaArchive.EntityArchive(
            name: entity.name, superentity: entity.superentity, inheritedCount: 0, properties: attributes + relationships,
            uniquenessConstraints: entity.uniqueness, indices: entity.indices)
    }
}
