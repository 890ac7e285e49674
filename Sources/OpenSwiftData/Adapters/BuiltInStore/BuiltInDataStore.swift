import Foundation

/// A built-in store (SQLite, PostgreSQL) answering SwiftData's ``DataStore`` requests: what
/// ``DefaultStore`` and `PostgresStore` do, written once.
///
/// Fetches and saves go straight to the store's rows and values (``RowsToSnapshots``,
/// ``SnapshotsToValues``): no model is made for a snapshot, nor a snapshot from a model. The
/// container opens and migrates the store and owns it; requests that apply delete rules (a delete
/// by predicate) or read history go through a context of its own.
package final class BuiltInDataStore: @unchecked Sendable {
    // `@unchecked Sendable`: the container and the store are Sendable; the rest is immutable.
    let container: ModelContainer
    let store: any RowStore
    package let schema: Schema
    package let name: String
    /// The store's entities by name.
    private let layouts: [String: ModelLayout]

    /// Opens a container on `configuration` alone, for the models of `schema`.
    package init(_ configuration: any DataStoreConfiguration, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.schema = schema
        self.name = configuration.name
        self.container = try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration])
        guard let store = container.stores.first else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the configuration '\(configuration.name)' opened no store")
        }
        self.store = store
        var layouts: [String: ModelLayout] = [:]
        for layout in container.schema.layouts { layouts[layout.entityName] = layout }
        self.layouts = layouts
    }

    /// The store's identifier.
    package var identifier: String { store.identifier }

    private func request<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> StoreFetch<T> {
        guard let layout = container.schema.layout(for: T.self) else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the store '\(name)' has no entity for \(T.self)")
        }
        return StoreFetch(descriptor: descriptor, layout: layout)
    }

    package func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let snapshots = try RowsToSnapshots(store: store).fetch(self.request(request.descriptor))
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    package func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try store.countRows(self.request(request.descriptor))
    }

    package func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try store.rowIdentifiers(self.request(request.descriptor))
    }

    /// The stored snapshots of the identifiers that name a row.
    package func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        let reader = RowsToSnapshots(store: store)
        var found: [PersistentIdentifier: DefaultSnapshot] = [:]
        for (entity, ids) in Dictionary(grouping: persistentIdentifiers, by: \.entityName) {
            guard let layout = layouts[entity] else { continue }
            let stored = try reader.load(layout, keys: ids.compactMap(\.primaryKey))
            for id in ids {
                guard let key = id.primaryKey, let snapshot = stored[key], snapshot.persistentIdentifier.entityName == entity else { continue }
                found[id] = snapshot
            }
        }
        return found
    }

    /// Writes the request's changes in one transaction: rows for the inserted snapshots (a unique
    /// constraint's match updated instead), what differs from the stored rows for the updated ones,
    /// and the deleted ones removed.
    package func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let (changes, tokens) = try SnapshotsToValues(store: store, layouts: layouts, storeName: name).build(request)
        let prepared = try store.prepareSave(changes, schema: container.schema)
        try prepared.commit()
        let result = prepared.result
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for run in result.keys {
            for (offset, key) in run.keys.enumerated() where run.firstToken + offset < tokens.count {
                let temporary = tokens[run.firstToken + offset]
                remapped[temporary] = PersistentIdentifier(entityName: temporary.entityName, storeIdentifier: identifier, storedKey: key)
            }
        }
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    /// Deletes the models a predicate matches, with their delete rules, in one transaction.
    package func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let context = ModelContext(container)
        context.author = request.editingState.author
        try context.delete(model: T.self, where: request.predicate, includeSubclasses: request.includeSubclasses)
        try context.save()
    }

    /// The history transactions `descriptor` selects (see ``ModelContext/fetchHistory(_:)``).
    package func fetchHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws -> [DefaultHistoryTransaction] {
        try ModelContext(container).fetchHistory(descriptor)
    }

    /// Deletes the history transactions `descriptor` selects (see ``ModelContext/deleteHistory(_:)``).
    package func deleteHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>) throws {
        try ModelContext(container).deleteHistory(descriptor)
    }

    /// Deletes every model in the store.
    package func erase() throws {
        container.deleteAllData()
    }
}
