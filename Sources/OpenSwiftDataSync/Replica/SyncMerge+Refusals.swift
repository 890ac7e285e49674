import Foundation
import OpenSwiftData

extension SyncMerge {
    // MARK: Identities that belong to another entity

    /// A refusal of the record of `id` of `entity`.
    func refusal(_ id: UUID, _ entity: String, _ reason: String) -> SyncError {
        .refused(SyncRefusal(entity: entity, id: id, reason: reason))
    }

    /// Refuses a record whose identity this store knows as an object of another entity: its
    /// bookkeeping says so (after ``load(_:)``), or, with no bookkeeping, a row of another
    /// entity answers to it (an identity is unique across the store's entities).
    func refuseIdentitiesOfOtherEntities(_ records: [SyncRecord]) throws {
        var unknown: [UUID: String] = [:]
        for record in records {
            for id in [record.id] + (record.alias.map { [$0] } ?? []) {
                if let object = objects[id] {
                    guard replica.sameHierarchy(object.entity, record.entity) else {
                        throw refusal(record.id, record.entity, "the identity \(id) names an object of \(object.entity) here")
                    }
                } else {
                    unknown[id] = record.entity
                }
            }
        }
        guard !unknown.isEmpty else { return }
        for entity in replica.entities.keys.sorted() {
            let others = unknown.filter { !replica.sameHierarchy($0.value, entity) }
            guard !others.isEmpty, let (id, _) = try context.persistentIdentifiers(entity: entity, globalIdentities: Array(others.keys)).first else { continue }
            throw refusal(id, others[id] ?? entity, "the identity \(id) names an object of \(entity) here")
        }
    }

    /// The bookkeeping of `id`, made if there is none; refused where it is another entity's.
    mutating func object(_ id: UUID, entity: String, for record: SyncRecord) throws -> SyncedObject {
        let object = object(id, entity: entity)
        guard replica.sameHierarchy(object.entity, entity) else {
            throw refusal(record.id, record.entity, "the identity \(id) names an object of \(object.entity) here, not of \(entity)")
        }
        return object
    }

    /// The model of an object, where it is one of `entity`'s hierarchy (a model found for one
    /// entity is never used for another).
    func model(_ id: UUID, of entity: String) -> (any PersistentModel)? {
        guard let model = model(id), replica.sameHierarchy(model.persistentModelID.entityName, entity) else { return nil }
        return model
    }

    // MARK: Rules

    /// Refuses the first record whose object, as the batch leaves it, does not match a
    /// condition its model type is held to (``SyncRule/requiring(_:_:)``).
    func requireConditions(_ conditions: [SyncCondition], of records: [SyncRecord]) throws {
        guard !conditions.isEmpty else { return }
        for record in records where record.deleted == nil && record.alias == nil {
            guard let model = model(record.id, of: record.entity), !model.isDeleted else { continue }
            for condition in conditions {
                let matches: Bool?
                do {
                    matches = try condition.evaluate(model)
                } catch {
                    throw refusal(record.id, record.entity, "\(condition.reason) (\(error))")
                }
                if matches == false { throw refusal(record.id, record.entity, condition.reason) }
            }
        }
    }

    // MARK: Aliases

    /// Refuses an alias record unless its entity has a unique constraint (only a constraint
    /// merges two objects into one) and, where both objects have rows here, the two rows hold
    /// equal values of one of its constraints.
    func requireAliasAllowed(_ alias: UUID, _ aliasModel: (any PersistentModel)?, of target: (any PersistentModel)?, entity: String) throws {
        guard let constraints = replica.constraints[entity], !constraints.isEmpty else {
            throw refusal(alias, entity, "\(entity) has no unique constraint, so no object of it is merged into another")
        }
        guard let aliasModel, let target, aliasModel.persistentModelID != target.persistentModelID else { return }
        for names in constraints {
            let equal = try names.allSatisfy { name in
                let value = try context.storedValue(of: aliasModel, name)
                let other = try context.storedValue(of: target, name)
                return !value.isNull && value == other
            }
            if equal { return }
        }
        throw refusal(alias, entity, "the object and the one it is said to be merged into differ on every unique constraint of \(entity)")
    }
}
