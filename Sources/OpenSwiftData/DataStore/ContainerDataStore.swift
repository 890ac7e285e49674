import Foundation

/// A built-in store (SQLite, PostgreSQL) answering SwiftData's ``DataStore`` requests through a
/// container of its own: what ``DefaultStore`` and `PostgresStore` do, written once.
package final class ContainerDataStore: @unchecked Sendable {
    // `@unchecked Sendable`: each request runs on a context of its own; the container is Sendable.
    let container: ModelContainer
    package let schema: Schema
    package let name: String

    /// Opens a container on `configuration` alone, for the models of `schema`.
    package init(_ configuration: any DataStoreConfiguration, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.schema = schema
        self.name = configuration.name
        self.container = try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration])
    }

    /// The store's identifier.
    package var identifier: String { container.stores[0].identifier }

    private var maker: SnapshotMaker { SnapshotMaker(storeIdentifier: identifier, deletedIDs: []) }

    package func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let context = ModelContext(container)
        let snapshots = try context.fetch(request.descriptor).map { try maker.snapshot(of: $0) }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: snapshots)
    }

    package func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try ModelContext(container).fetchCount(request.descriptor)
    }

    package func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try ModelContext(container).fetchIdentifiers(request.descriptor)
    }

    package func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: DefaultSnapshot] {
        let context = ModelContext(container)
        var found: [PersistentIdentifier: DefaultSnapshot] = [:]
        for id in persistentIdentifiers {
            let model = context.model(for: id)
            guard model.persistentBackingData.context === context, !model.persistentBackingData.isGone else { continue }
            found[id] = try maker.snapshot(of: model)
        }
        return found
    }

    /// Writes the request's changes in one transaction: new models for the inserted snapshots,
    /// the updated snapshots' values on their models, deletes with their delete rules.
    package func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let context = ModelContext(container)
        context.author = request.editingState.author
        var created: [PersistentIdentifier: any PersistentModel] = [:]
        var targets: [(model: any PersistentModel, snapshot: DefaultSnapshot)] = []
        for snapshot in request.inserted {
            let layout = try layout(of: snapshot)
            let model = layout.modelType.init(backingData: BackingData(layout: layout))
            context.insertModel(model)
            created[snapshot.persistentIdentifier] = model
            targets.append((model, snapshot))
        }
        for snapshot in request.updated {
            targets.append((try stored(snapshot.persistentIdentifier, in: context), snapshot))
        }
        let resolve = { (id: PersistentIdentifier) throws -> any PersistentModel in
            try created[id] ?? self.stored(id, in: context)
        }
        for (model, snapshot) in targets {
            try apply(snapshot, to: model, resolve: resolve)
        }
        for snapshot in request.deleted {
            context.deleteModel(try stored(snapshot.persistentIdentifier, in: context))
        }
        try context.save()
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for (temporary, model) in created { remapped[temporary] = model.persistentModelID }
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

    private func layout(of snapshot: DefaultSnapshot) throws -> ModelLayout {
        guard let layout = schema.layout(named: snapshot.persistentIdentifier.entityName) else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "the store '\(name)' has no entity \(snapshot.persistentIdentifier.entityName)")
        }
        return layout
    }

    /// The stored model for an identifier, or an error naming it.
    private func stored(_ id: PersistentIdentifier, in context: ModelContext) throws -> any PersistentModel {
        let model = context.model(for: id)
        let data = model.persistentBackingData
        guard data.context === context, !data.isGone, data.layout.entityName == id.entityName else {
            throw SwiftDataError(.modelNotFound, "the store '\(name)' has no \(id.entityName) \(id)")
        }
        return model
    }

    /// Gives a model the snapshot's values: attributes as stored, relationships (with their
    /// inverses kept) to the models the snapshot names. Unchanged values are left alone.
    private func apply(_ snapshot: DefaultSnapshot, to model: any PersistentModel, resolve: (PersistentIdentifier) throws -> any PersistentModel) throws {
        let data = model.persistentBackingData
        let layout = data.layout
        for property in layout.properties {
            let slot = property.index
            if let relationship = property.relationship {
                let wanted = snapshot.relatedIdentifiers(property)
                let current = data.state == .inserted ? [] : data.relatedModels(slot).map(\.persistentModelID)
                guard wanted != current || data.state == .inserted else { continue }
                let models = try wanted.map(resolve)
                guard let value = relationship.access.makeValue(models) else { continue }
                RelationshipMaintenance.set(owner: model, index: slot, to: value)
            } else if property.codec != nil {
                let value = try snapshot.slot(slot, of: layout, storeName: name)
                if data.state != .inserted, case .value(let new) = value, let old = try? data.loadedValue(slot),
                   let codec = property.codec, (try? codec.encode(old)) == (try? codec.encode(new)) {
                    continue
                }
                data.willChange(slot, of: model)
                data.slots[slot] = value
            }
        }
    }
}
