import Foundation
import OpenSwiftData

/// What a server lets principals read and write beyond the default, which is: every user reads
/// and writes only the objects that user's devices (or the app's own code, in a context made for
/// that user) created. Rules are given once, to ``SyncServer``, and evaluated there; devices
/// cannot change them.
///
/// ```swift
/// let server = try SyncServer(container: container, rules: [
///     .readsEverything(role: "auditor"),     // an auditor's devices pull every user's objects
///     .readOnly(Category.self),              // devices pull categories but never change them
/// ])
/// ```
public struct SyncRule: Sendable, Hashable {
    enum Kind: Hashable {
        case readsEverything(role: String)
        case readOnly(entity: String)
    }

    let kind: Kind

    /// Devices of a principal with `role` pull every user's objects, not only their user's.
    /// What they push still creates and changes only their own user's objects.
    public static func readsEverything(role: String) -> SyncRule {
        SyncRule(kind: .readsEverything(role: role))
    }

    /// No device writes objects of the entity of `type`: a pushed record of it — an edit, a
    /// delete, or a new object — is refused (``SyncRefusal``) and changes nothing.
    public static func readOnly<T: PersistentModel>(_ type: T.Type) -> SyncRule {
        SyncRule(kind: .readOnly(entity: Schema.entityName(for: type)))
    }
}
