import Foundation
import OpenSwiftData

/// What a server lets principals read and write beyond the default, which is: every user reads
/// and writes only the objects that user's devices (or the app's own code, in a context made for
/// that user) created. Rules are given once, to ``SyncServer``, and evaluated there; devices
/// cannot change them.
///
/// ```swift
/// let server = try SyncServer(container: container, rules: [
///     .readsEverything(role: "auditor"),      // an auditor's devices pull every user's objects
///     .readOnly(Category.self),               // devices pull their categories but never change them
///     .readableByEveryone(Product.self),      // every device pulls the catalogue; the server's code writes it
///     .requiring(#Predicate<Expense> { $0.amount >= 0 }, "an amount is never negative"),
/// ])
/// ```
public struct SyncRule: Sendable {
    enum Kind: Sendable {
        case readsEverything(role: String)
        case readOnly(entity: String)
        case readableByEveryone(entity: String)
        case requiring(SyncCondition)
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

    /// The objects of `type` belong to no user: every user's devices pull all of them, and no
    /// device writes them (as ``readOnly(_:)``) — the server's own code does, in a context
    /// without an owner. CloudKit's public database, for one entity: a catalogue, a price list,
    /// the app's categories.
    ///
    /// The store keeps no owner for the entity (name it in `OwnedRows.allEntities(except:)`).
    /// Users' objects may refer to these objects by a to-one (an expense's product); the entity's
    /// own synced relationships lead only to entities every user reads, and no user's to-many
    /// holds them (each member's joining would be recorded on the shared object, for every user
    /// to see).
    ///
    /// ```swift
    /// configuration.ownedRows = .allEntities(except: SyncSchema.sharedModels + [Product.self])
    /// let server = try SyncServer(container: container, rules: [.readableByEveryone(Product.self)])
    /// ```
    public static func readableByEveryone<T: PersistentModel>(_ type: T.Type) -> SyncRule {
        SyncRule(kind: .readableByEveryone(entity: Schema.entityName(for: type)))
    }

    /// Every object of `T` (or of a subclass) a device creates or changes must match
    /// `predicate` as the server would save it — the record merged with what the server holds —
    /// or the record is refused with `reason` (``SyncRefusal``), and nothing of the request is
    /// kept. The predicate is evaluated in memory on the merged object, so it may use whatever
    /// Foundation's `Predicate` evaluates (relationships included); a predicate that throws
    /// refuses the record too.
    ///
    /// ```swift
    /// .requiring(#Predicate<Expense> { $0.amount >= 0 && $0.note.utf8.count <= 10_000 },
    ///            "an amount is never negative, and a note has at most 10,000 bytes")
    /// ```
    ///
    /// A ``SyncValidator`` sees only the values one record carries; a rule sees the whole object.
    public static func requiring<T: PersistentModel>(_ predicate: Predicate<T>, _ reason: String) -> SyncRule {
        SyncRule(kind: .requiring(SyncCondition(predicate, reason: reason)))
    }
}
