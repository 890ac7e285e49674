import Foundation

/// The two ways a delete rule refuses a delete, worded once. The context's save follows the rules
/// on models (`SavePlan`), the studio on rows it reads without models (`DeletePlan`); both switch
/// over the same ``Schema/Relationship/DeleteRule`` and throw these errors, so a delete the app
/// could not make is not made by the studio either.
enum DeleteRuleRefusal {
    /// `.deny`: the deleted object's relationship still holds objects that are not deleted with it.
    static func denied(_ entity: String, _ object: String, relationship: String, holds remaining: Int, of destination: String) -> SwiftDataError {
        SwiftDataError(.deleteRuleDenied, "cannot delete \(entity) \(object): its relationship '\(relationship)' has the .deny delete rule and still holds \(remaining) \(destination) \(remaining == 1 ? "object" : "objects"); delete or reassign them first. Nothing was deleted.")
    }

    /// `.nullify` would clear `holder.property`, a to-one that is not optional, on an object
    /// that stays: it would be left without the value its type promises.
    static func requiredReference(deleting entity: String, _ object: String, holder: String, property: String) -> SwiftDataError {
        SwiftDataError(.modelValidationFailure, "deleting \(entity) \(object) would clear \(holder).\(property), which is not optional; reassign or delete that \(holder) first, make the property optional, or use the .cascade delete rule. Nothing was deleted.")
    }
}
