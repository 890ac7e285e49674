import Foundation

/// Making the model object for a stored model, shared by every store's read path.
enum StoredModel {
    /// A new model of `layout` around `data` (holding the row's values; everything not read is
    /// "not loaded"), registered in `context` under `primaryKey`. While the model's initialiser
    /// runs, property defaults do not write the slots, and `data` is handed over instead of a new one.
    @inline(__always)
    static func make(
        _ layout: ModelLayout, data: BackingData, primaryKey: Int64, storeIdentifier: String,
        in context: ModelContext, registry: EntityRegistry
    ) -> any PersistentModel {
        let model = instantiate(layout, data: data)
        data.needsInverseFixup = false
        data.primaryKey = primaryKey
        data.storeIdentifier = storeIdentifier
        data.context = context
        data.state = .managed
        registry.insert(model, primaryKey: primaryKey, data: data)
        return model
    }

    /// A model of `layout`'s class around new backing data holding `slots`, its initialiser run
    /// without property defaults writing the slots (nothing else about the model is set).
    static func instantiate(_ layout: ModelLayout, slots: ContiguousArray<BackingData.Slot>) -> (any PersistentModel, BackingData) {
        let data = BackingData(layout: layout, slots: slots)
        return (instantiate(layout, data: data), data)
    }

    /// A model of `layout`'s class around `data`, its initialiser run without property defaults
    /// writing the slots.
    @inline(__always)
    static func instantiate(_ layout: ModelLayout, data: BackingData) -> any PersistentModel {
        // The slots are in place before the initialiser runs: while materialising, property
        // defaults do not write them.
        data.isMaterializing = true
        BackingDataHandOff.offer(data)
        let model = layout.modelType.init(backingData: data)
        BackingDataHandOff.withdraw()
        data.isMaterializing = false
        return model
    }
}
