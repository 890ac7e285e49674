import Foundation

/// The object graph a piece of code works on: fetches models, tracks inserts, changes and deletes,
/// keeps relationships consistent, and saves everything in one transaction.
///
/// ```swift
/// let context = ModelContext(container)
/// let food = Category(name: "Food")
/// context.insert(Expense(amount: 12.5, note: "Lunch", category: food))  // food is inserted too
/// try context.save()
///
/// let recent = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date, order: .reverse)]))
/// ```
///
/// A context holds one instance per stored row (an identity map): fetching the same row twice gives
/// the same object. Contexts and models are not `Sendable`; use one context per actor and pass
/// ``PersistentIdentifier``s between them.
public final class ModelContext {
    /// The container the context belongs to.
    public let container: ModelContainer
    /// Whether the context saves automatically. `false` for contexts you create; `true` for
    /// ``ModelContainer/mainContext``, which then saves shortly after models change (once the code
    /// changing them yields the main actor), and at a normal exit if the program asks for it with
    /// ``ModelContainer/saveMainContextAtExit()``.
    /// A failed autosave is logged and posted as ``autosaveFailed``.
    @exclusivity(unchecked) public var autosaveEnabled: Bool = false {
        didSet { if autosaveEnabled && hasChanges { scheduleAutosave() } }
    }
    /// The container's main context: the only one that autosaves on its own.
    var isMainContext = false
    var autosaveScheduled = false
    /// A name recorded with the context's saves (for history and notifications).
    public var author: String?
    /// Which context a custom ``DataStore``'s requests come from: the same for the context's
    /// life, with its current ``author``.
    public var editingState: EditingState {
        if let editingID { return EditingState(id: editingID, author: author, scope: ownerScope) }
        let id = UUID()
        editingID = id
        return EditingState(id: id, author: author, scope: ownerScope)
    }
    /// The owner whose rows the context reads and writes, in a store that keeps owners
    /// (``OwnedRows``); `nil` for a context that reads every row.
    public var owner: String? { ownerScope?.owner }
    /// Owners whose rows the context reads, and may not change, besides ``owner``'s
    /// (``init(_:owner:alsoReading:alsoWriting:includingGrants:)``).
    public var alsoReading: [String] { ownerScope?.alsoReading ?? [] }
    /// Owners whose rows the context reads and may change besides ``owner``'s
    /// (``init(_:owner:alsoReading:alsoWriting:includingGrants:)``).
    public var alsoWriting: [String] { ownerScope?.alsoWriting ?? [] }
    /// Whether the context reads — and, as each grant says, writes — the rows the store's
    /// grants open to its ``owner`` (``OwnerGrant``).
    public var includesGrants: Bool { ownerScope?.includesGrants ?? false }
    /// Whose rows the context reads and writes; `nil` for every row.
    let ownerScope: OwnerScope?
    /// Grants made or revoked here, written by the next save (``grant(_:toRowsOf:to:)``).
    var pendingGrants: [GrantChange] = []
    /// Made on first use: most contexts never meet a custom store.
    private var editingID: UUID?
    /// Whether a save is running (autosave and nested saves wait for it).
    var isSaving = false

    /// Records inserts, deletes and property changes (relationships and their inverses included)
    /// so they can be undone and redone. `nil` (the default) records nothing. ``rollback()``
    /// clears its actions.
    ///
    /// ```swift
    /// context.undoManager = UndoManager()
    /// trip.name = "Kyoto"
    /// context.undoManager?.undo()
    /// ```
    @exclusivity(unchecked) public var undoManager: UndoManager?

    // The state below is touched for every model loaded or changed; a context is used on one
    // thread at a time, so exclusivity is not checked dynamically.
    /// One instance per row: per entity layout, primary key to model.
    @exclusivity(unchecked) var registry: [ObjectIdentifier: EntityRegistry] = [:]
    @exclusivity(unchecked) var insertedSet = ModelSet(.inserted)
    @exclusivity(unchecked) var changedSet = ModelSet(.changed)
    @exclusivity(unchecked) var deletedSet = ModelSet(.deleted)
    /// Deletes by predicate to run in the store at the next save (``delete(model:where:includeSubclasses:)``).
    var pendingBatchDeletes: [BatchDelete] = []
    /// Changes made where this context cannot save them — properties of models ``reset()``
    /// unregistered, deletes of another context's models — reported (refused) by the next save.
    var refusedChanges: [String] = []
    /// Changes made after reading a stored value the property could not hold: refused by the next save.
    var changesOfUnreadValues: [(model: any PersistentModel, slot: Int)] = []
    /// Global identities new models arrive with from a sync, written beside their rows by the
    /// next save (``setGlobalIdentity(_:of:)``); empty otherwise. The model is held so that its
    /// object identifier cannot name another model until the entry goes.
    var pendingGlobalIdentities: [(model: any PersistentModel, id: UUID)] = []
    /// Owners that models inserted here are saved for instead of the context's own
    /// (``setOwner(_:of:)``, for sync's bookkeeping); empty otherwise.
    var pendingOwners: [ObjectIdentifier: (model: any PersistentModel, owner: String)] = [:]
    /// Byte values set from a file (``setStoredValue(fromFileAt:of:_:)``, for sync), which the
    /// next save hands to stores that take them as the file; empty otherwise.
    var pendingFileValues: [PendingFileValue.Key: PendingFileValue] = [:]
    /// Relationships loaded model by model since their models were fetched, to warn of an N+1 loop.
    var rowByRowFaults = RowByRowFaults()
    /// Numbers each run of to-many changes recorded without loading (``PendingMembers``), for undo.
    private var memberGeneration = 0

    func nextMemberGeneration() -> Int {
        memberGeneration &+= 1
        return memberGeneration
    }

    /// Creates a context for a container.
    public convenience init(_ container: ModelContainer) {
        self.init(container: container, scope: nil)
    }

    /// The initializer the others call (see ``init(_:owner:alsoReading:alsoWriting:includingGrants:)``,
    /// in ModelContext+Owners.swift): `scope` is `nil` for a context that reads every row.
    init(container: ModelContainer, scope: OwnerScope?) {
        self.container = container
        self.ownerScope = scope
    }

    deinit {
        // Custom stores hear that a context they served is gone (`invalidateState(for:)`).
        if let editingID {
            let state = EditingState(id: editingID, author: author)
            for store in container.stores { store.contextEnded(state) }
        }
    }

    // MARK: State

    /// Whether the context has unsaved inserts, changes or deletes.
    public var hasChanges: Bool {
        !insertedSet.isEmpty || !changedSet.isEmpty || !deletedSet.isEmpty || !pendingBatchDeletes.isEmpty || !pendingGrants.isEmpty
    }

    /// Models inserted and not yet saved, in insertion order.
    public var insertedModelsArray: [any PersistentModel] { insertedSet.all }
    /// Stored models with unsaved changes (not counting deleted ones).
    public var changedModelsArray: [any PersistentModel] {
        changedSet.all.filter { $0.persistentBackingData.state == .managed }
    }
    /// Models marked for deletion and not yet saved.
    public var deletedModelsArray: [any PersistentModel] { deletedSet.all }

    // MARK: Insert and delete

    /// Registers a new model with the context; it is written to the store on the next save.
    ///
    /// Models it refers to through relationships are inserted too, and relationships assigned in
    /// its initialiser get their inverses. Inserting a model already in the context does nothing;
    /// inserting one marked for deletion cancels the deletion.
    public func insert<T: PersistentModel>(_ model: T) {
        insertModel(model)
    }

    func insertModel(_ model: any PersistentModel) {
        // Related models not in a context yet are inserted too; the list exists only if there are any.
        var work: [any PersistentModel]?
        var next: (any PersistentModel)? = model
        while let current = next {
            insertOne(current, relatedInto: &work)
            next = work?.popLast()
        }
    }

    private func insertOne(_ model: any PersistentModel, relatedInto work: inout [any PersistentModel]?) {
        let data = model.persistentBackingData
        if let owner = data.context {
            if owner === self, data.state == .deleted {
                undeleteModel(model)
            } else if owner !== self {
                Log.general.error("\(data.layout.entityName) is already registered in another ModelContext; it was not inserted")
            }
            return
        }
        data.context = self
        data.unregisteredBy = nil
        if let primaryKey = data.primaryKey {
            data.state = .managed
            register(model, layout: data.layout, primaryKey: primaryKey)
        } else {
            data.state = .inserted
            insertedSet.insert(model)
            registerUndo(model) { context, model in context.undoInsertion(model) }
            if autosaveEnabled { scheduleAutosave() }
        }
        RelationshipMaintenance.fixUpInverses(of: model)
        for index in data.layout.relationshipSlots {
            guard case .value(let value) = data.slots[index],
                  let access = data.layout.properties[index].relationshipAccess else { continue }
            if !access.isToMany {
                if let related = access.first(value), related.persistentBackingData.context == nil {
                    if work == nil { work = [] }
                    work?.append(related)
                }
                continue
            }
            for related in access.models(value) where related.persistentBackingData.context == nil {
                if work == nil { work = [] }
                work?.append(related)
            }
        }
    }

    /// Marks a model for deletion. It stays in the context, with ``PersistentModel/isDeleted``
    /// `true`, until the next save applies its relationships' delete rules and removes it.
    ///
    /// ```swift
    /// context.delete(trip)
    /// try context.save()
    /// ```
    ///
    /// A model that ``reset()`` unregistered from this context deletes the row it stands for. A
    /// model of another context is not deleted here: the next save throws
    /// ``SwiftDataError/missingModelContext`` naming it (delete `model(for: its persistentModelID)`).
    public func delete<T: PersistentModel>(_ model: T) {
        deleteModel(model)
    }

    func deleteModel(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        guard data.context === self else { return deleteModelNotHeld(model) }
        switch data.state {
        case .inserted:
            insertedSet.remove(model)
            data.state = .deleted
            deletedSet.insert(model)
        case .managed:
            data.state = .deleted
            deletedSet.insert(model)
        case .deleted, .detached:
            return
        }
        registerUndo(model) { context, model in context.undeleteModel(model) }
        if autosaveEnabled { scheduleAutosave() }
    }

    /// Cancels a pending deletion; for a deletion already saved, inserts the model again (as a new
    /// row with its current values).
    func undeleteModel(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        if data.context == nil, data.state == .detached {
            data.primaryKey = nil
            data.storeIdentifier = nil
            insertModel(model)
            return
        }
        guard data.context === self, data.state == .deleted else { return }
        deletedSet.remove(model)
        data.state = data.primaryKey == nil ? .inserted : .managed
        if data.state == .inserted { insertedSet.insert(model) }
        registerUndo(model) { context, model in context.deleteModel(model) }
    }

    /// Undoes an insert: an unsaved model leaves the context; a saved one is deleted.
    func undoInsertion(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        guard data.context === self else { return deleteModelNotHeld(model) }
        switch data.state {
        case .inserted:
            insertedSet.remove(model)
            detach(model)
            registerUndo(model) { context, model in context.insertModel(model) }
        case .managed:
            deleteModel(model)
        case .deleted, .detached:
            break
        }
    }

    /// Registers an undo action on `model` that runs `action` with this context, if it still exists.
    private func registerUndo(_ model: any PersistentModel, _ action: @escaping (ModelContext, any PersistentModel) -> Void) {
        guard let undoManager, undoManager.isUndoRegistrationEnabled else { return }
        registerUndo(on: model, undoManager) { [weak self] target in
            if let self { action(self, target) }
        }
    }

    private func registerUndo<M: PersistentModel>(on model: M, _ undoManager: UndoManager, _ handler: @escaping (any PersistentModel) -> Void) {
        undoManager.registerUndo(withTarget: model) { handler($0) }
    }

    /// Discards unsaved changes: inserted models leave the context, deleted ones come back, and
    /// edited properties (relationships included) return to their saved values. The undo
    /// manager's actions are removed.
    public func rollback() {
        for model in changedSet.all + deletedSet.all {
            model.persistentBackingData.restoreOriginals(of: model)
        }
        for model in deletedSet.all {
            let data = model.persistentBackingData
            if data.primaryKey == nil {
                detach(model)
            } else {
                data.state = .managed
            }
        }
        for model in insertedSet.all {
            detach(model)
        }
        insertedSet.removeAll()
        changedSet.removeAll()
        deletedSet.removeAll()
        pendingBatchDeletes.removeAll()
        pendingGrants.removeAll()
        changesOfUnreadValues.removeAll()
        pendingGlobalIdentities.removeAll()
        pendingOwners.removeAll()
        pendingFileValues.removeAll()
        undoManager?.removeAllActions()
    }

    /// Lets go of every model the context holds, unsaved changes included, and of the references
    /// between them, for a context that ends with its work (``ModelContainer/perform(_:)``'s).
    ///
    /// A loaded to-many and the to-ones pointing back at its owner reference each other, and
    /// models reference their context: such a graph would keep itself, and the context, alive
    /// after the work that read it — memory a server would lose with every request.
    func releaseModels() {
        var models = insertedSet.all + changedSet.all + deletedSet.all
        for entities in registry.values { models += entities.liveModels }
        insertedSet.removeAll()
        changedSet.removeAll()
        deletedSet.removeAll()
        pendingBatchDeletes.removeAll()
        changesOfUnreadValues.removeAll()
        registry.removeAll()
        // Relationships are let go, except the to-ones nothing could stand in for once unloaded
        // (a detached model cannot load them again).
        let keepsSome = container.schema.hasToOnesWithoutStandIn
        for model in models {
            let data = model.persistentBackingData
            data.context = nil
            data.state = .detached
            data.originals.removeAll()
            let kept = keepsSome ? data.layout.toOnesWithoutStandIn : []
            for index in data.layout.relationshipSlots where !kept.contains(index) { data.slots[index] = .unloaded }
        }
    }

    func detach(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        data.context = nil
        data.state = .detached
        data.originals.removeAll()
    }

    /// Called by backing data when a stored model's property changes.
    func noteChanged(_ model: any PersistentModel) {
        let state = model.persistentBackingData.state
        if state == .managed || state == .deleted {
            changedSet.insert(model)
        }
        if autosaveEnabled { scheduleAutosave() }
    }

    // MARK: Identity map

    /// The identity map of one entity, created on first use. Fetches look it up once per query.
    /// The models of a class hierarchy share one (their keys are unique across it): a `Trip`
    /// reference to key 5 finds the `BusinessTrip` registered under 5.
    func entityRegistry(_ layout: ModelLayout) -> EntityRegistry {
        let key = ObjectIdentifier(layout.root)
        if let existing = registry[key] { return existing }
        let created = EntityRegistry()
        registry[key] = created
        return created
    }

    func register(_ model: any PersistentModel, layout: ModelLayout, primaryKey: Int64) {
        entityRegistry(layout).insert(model, primaryKey: primaryKey)
    }

    func unregister(layout: ModelLayout, primaryKey: Int64) {
        registry[ObjectIdentifier(layout.root)]?.remove(primaryKey)
    }

    /// How many models of an entity the identity map holds (owners and live unowned entries).
    func registeredCount(of layout: ModelLayout) -> Int {
        registry[ObjectIdentifier(layout.root)]?.count ?? 0
    }

    func registered(layout: ModelLayout, primaryKey: Int64) -> (any PersistentModel)? {
        registry[ObjectIdentifier(layout.root)]?.model(primaryKey)
    }

    /// The live registered models of an entity (and of its subclasses).
    func registeredModels(of layout: ModelLayout) -> [any PersistentModel] {
        let all = registry[ObjectIdentifier(layout.root)]?.liveModels ?? []
        return layout.root === layout ? all : all.filter { $0.persistentBackingData.layout.isKind(of: layout) }
    }

    func layout<T: PersistentModel>(for type: T.Type) throws -> ModelLayout {
        guard let layout = container.schema.layout(for: type) else {
            throw SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "\(T.self) is not part of this container's schema; add it to ModelContainer(for:)")
        }
        return layout
    }
}
