import Foundation

/// Models of one entity, in the order they were added to their set.
struct ModelGroup {
    let layout: ModelLayout
    var models: [any PersistentModel]

    /// The models of `set` that pass `include`, grouped by entity in order of first appearance.
    static func grouping(_ set: ModelSet, include: (any PersistentModel, BackingData) -> Bool) -> [ModelGroup] {
        var groups: [ModelGroup] = []
        var current = -1
        set.forEach { model in
            let data = model.persistentBackingData
            guard include(model, data) else { return }
            // Consecutive models are mostly of one entity.
            if current < 0 || groups[current].layout !== data.layout {
                if let index = groups.firstIndex(where: { $0.layout === data.layout }) {
                    current = index
                } else {
                    current = groups.count
                    groups.append(ModelGroup(layout: data.layout, models: []))
                }
            }
            groups[current].models.append(model)
        }
        return groups
    }
}
