import Foundation

/// An error thrown by OpenSwiftData.
///
/// The static members match SwiftData's, so existing `catch` clauses keep working:
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as SwiftDataError where error == .modelValidationFailure {
///     print(error.localizedDescription)   // says which model and property failed, and why
/// }
/// ```
///
/// Every error carries a ``message`` naming what went wrong and what to do about it.
public struct SwiftDataError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The category of the error; two errors compare equal when their codes are equal.
    public let code: Code
    /// What went wrong, naming the file, model, property or expression involved.
    public let message: String

    /// The kinds of failure OpenSwiftData reports.
    public enum Code: String, Hashable, Sendable {
        /// The code of ``SwiftDataError/loadIssueModelContainer``.
        case loadIssueModelContainer
        /// The code of ``SwiftDataError/configurationFileNameTooLong``.
        case configurationFileNameTooLong
        /// The code of ``SwiftDataError/configurationFileNameContainsInvalidCharacters``.
        case configurationFileNameContainsInvalidCharacters
        /// The code of ``SwiftDataError/configurationSchemaNotFoundInContainerSchema``.
        case configurationSchemaNotFoundInContainerSchema
        /// The code of ``SwiftDataError/duplicateConfiguration``.
        case duplicateConfiguration
        /// The code of ``SwiftDataError/unknownSchema``.
        case unknownSchema
        /// The code of ``SwiftDataError/backwardMigration``.
        case backwardMigration
        /// The code of ``SwiftDataError/includePendingChangesWithBatchSize``.
        case includePendingChangesWithBatchSize
        /// The code of ``SwiftDataError/sortingPendingChangesWithIdentifiers``.
        case sortingPendingChangesWithIdentifiers
        /// The code of ``SwiftDataError/unsupportedKeyPath``.
        case unsupportedKeyPath
        /// The code of ``SwiftDataError/unsupportedPredicate``.
        case unsupportedPredicate
        /// The code of ``SwiftDataError/unsupportedSortDescriptor``.
        case unsupportedSortDescriptor
        /// The code of ``SwiftDataError/historyTokenExpired``.
        case historyTokenExpired
        /// The code of ``SwiftDataError/invalidTransactionFetchRequest``.
        case invalidTransactionFetchRequest
        /// The code of ``SwiftDataError/modelValidationFailure``.
        case modelValidationFailure
        /// The code of ``SwiftDataError/missingModelContext``.
        case missingModelContext
        /// The code of ``SwiftDataError/unsupportedType``.
        case unsupportedType
        /// The code of ``SwiftDataError/readOnlyStore``.
        case readOnlyStore
        /// The code of ``SwiftDataError/storeIO``.
        case storeIO
        /// The code of ``SwiftDataError/constraintViolation``.
        case constraintViolation
        /// The code of ``SwiftDataError/deleteRuleDenied``.
        case deleteRuleDenied
        /// The code of ``SwiftDataError/modelNotFound``.
        case modelNotFound
        /// The code of ``SwiftDataError/schemaMismatch``.
        case schemaMismatch
        /// The code of ``SwiftDataError/unsavedChangesDuringEnumeration``.
        case unsavedChangesDuringEnumeration
        /// The code of ``SwiftDataError/mergeConflict``.
        case mergeConflict
        /// The code of ``SwiftDataError/valueOutOfRange``.
        case valueOutOfRange
        /// The code of ``SwiftDataError/busy``.
        case busy
        /// The code of ``SwiftDataError/storeUnavailable``.
        case storeUnavailable
        /// The code of ``SwiftDataError/readOnlyOwner``.
        case readOnlyOwner
    }

    /// Creates an error of the given kind with a message for the user.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Two errors are equal when they are of the same kind, whatever their messages.
    public static func == (lhs: SwiftDataError, rhs: SwiftDataError) -> Bool { lhs.code == rhs.code }
    /// Hashes the components `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Matches any error of the same kind, so `catch SwiftDataError.unsupportedPredicate` works.
    public static func ~= (lhs: SwiftDataError, rhs: any Error) -> Bool {
        (rhs as? SwiftDataError)?.code == lhs.code
    }

    /// A readable description, for logs and debugging.
    public var description: String { "SwiftDataError.\(code.rawValue): \(message)" }
    /// The message, for `localizedDescription`.
    public var errorDescription: String? { description }

    /// The store could not be opened: missing, unreadable, corrupt or of another model.
    public static let loadIssueModelContainer = SwiftDataError(.loadIssueModelContainer, "the model container could not be loaded")
    /// A configuration's name is too long to become a file name.
    public static let configurationFileNameTooLong = SwiftDataError(.configurationFileNameTooLong, "the configuration name is too long for a file name")
    /// A configuration's name contains characters a file name cannot hold.
    public static let configurationFileNameContainsInvalidCharacters = SwiftDataError(.configurationFileNameContainsInvalidCharacters, "the configuration name contains characters a file name cannot hold")
    /// A configuration names a model that the container's schema does not contain.
    public static let configurationSchemaNotFoundInContainerSchema = SwiftDataError(.configurationSchemaNotFoundInContainerSchema, "a configuration's schema is not part of the container's schema")
    /// Two configurations share a name or a file.
    public static let duplicateConfiguration = SwiftDataError(.duplicateConfiguration, "two configurations use the same name or file")
    /// The store was written with a schema this container does not know.
    public static let unknownSchema = SwiftDataError(.unknownSchema, "the store was written with an unknown schema")
    /// The store was written by a newer schema version than the one opening it.
    public static let backwardMigration = SwiftDataError(.backwardMigration, "the store is newer than the schema opening it")
    /// A fetch asked for both pending changes and batches, which cannot be combined.
    public static let includePendingChangesWithBatchSize = SwiftDataError(.includePendingChangesWithBatchSize, "includePendingChanges cannot be combined with a batch size")
    /// Pending changes cannot be sorted when only identifiers are fetched.
    public static let sortingPendingChangesWithIdentifiers = SwiftDataError(.sortingPendingChangesWithIdentifiers, "pending changes cannot be sorted when fetching identifiers")
    /// A key path does not name a persisted property.
    public static let unsupportedKeyPath = SwiftDataError(.unsupportedKeyPath, "the key path does not name a persisted property")
    /// A predicate contains an expression that cannot be translated to SQL.
    public static let unsupportedPredicate = SwiftDataError(.unsupportedPredicate, "the predicate cannot be translated to SQL")
    /// A sort descriptor cannot be translated to SQL.
    public static let unsupportedSortDescriptor = SwiftDataError(.unsupportedSortDescriptor, "the sort descriptor cannot be translated to SQL")
    /// A history token refers to history that no longer exists.
    public static let historyTokenExpired = SwiftDataError(.historyTokenExpired, "the history token has expired")
    /// A fetch was made inside a transaction in a way that is not allowed.
    public static let invalidTransactionFetchRequest = SwiftDataError(.invalidTransactionFetchRequest, "the fetch is not allowed inside a transaction")
    /// A model failed validation (relationship counts, non-optional values) when saving.
    public static let modelValidationFailure = SwiftDataError(.modelValidationFailure, "a model failed validation")
    /// An operation needed a model context and the model has none.
    public static let missingModelContext = SwiftDataError(.missingModelContext, "the model is not in a model context")
    /// A property type cannot be stored.
    public static let unsupportedType = SwiftDataError(.unsupportedType, "the property type cannot be stored")
    /// The store was opened with `allowsSave: false`.
    public static let readOnlyStore = SwiftDataError(.readOnlyStore, "the store is read-only")
    /// Reading or writing the store failed.
    public static let storeIO = SwiftDataError(.storeIO, "the store could not be read or written")
    /// A save broke a uniqueness or other constraint; nothing was written.
    public static let constraintViolation = SwiftDataError(.constraintViolation, "a constraint was violated")
    /// A delete was refused by a `.deny` delete rule; nothing was deleted.
    public static let deleteRuleDenied = SwiftDataError(.deleteRuleDenied, "a deny delete rule refused the delete")
    /// No row exists for a persistent identifier.
    public static let modelNotFound = SwiftDataError(.modelNotFound, "no model exists for the identifier")
    /// `enumerate` found unsaved changes it would have to keep in memory; save first, or pass
    /// `allowEscapingMutations: true`.
    public static let unsavedChangesDuringEnumeration = SwiftDataError(.unsavedChangesDuringEnumeration, "the context has unsaved changes during enumeration")
    /// Another save changed a property this save changes, after this context read it (a store
    /// shared by several servers, such as PostgreSQL); nothing was saved. Roll back or fetch the
    /// model again, then repeat the change.
    public static let mergeConflict = SwiftDataError(.mergeConflict, "another save changed the same property")
    /// More work waits for the container's threads than it queues
    /// (``ModelContainer/maximumPerformQueue``); nothing was run. A server answers 503 and the
    /// client tries again later.
    public static let busy = SwiftDataError(.busy, "too much work is waiting for the container")
    /// No database server accepts the work now — the primary is gone and no standby has been
    /// promoted yet, or the connection ended in the middle of a save — and nothing was written:
    /// the same save can be made again once a server accepts writes. A server answers 503.
    ///
    /// ```swift
    /// do {
    ///     try context.save()
    /// } catch SwiftDataError.storeUnavailable {
    ///     // the context keeps its changes: save again shortly
    /// }
    /// ```
    public static let storeUnavailable = SwiftDataError(.storeUnavailable, "no database server accepts writes now; nothing was written")
    /// A save would change, delete or add to a row of an owner that the saving context may only
    /// read (``ModelContext/init(_:owner:alsoReading:alsoWriting:includingGrants:)``, an
    /// ``OwnerGrant`` to read); nothing was saved. The message names the model and its owner.
    ///
    /// ```swift
    /// do {
    ///     try context.save()
    /// } catch SwiftDataError.readOnlyOwner {
    ///     context.rollback()   // a web app answers 403
    /// }
    /// ```
    public static let readOnlyOwner = SwiftDataError(.readOnlyOwner, "the context may only read that owner's rows")
    /// A computed value does not fit its type (an integer sum larger than `Int.max`): thrown
    /// instead of wrapping or trapping.
    public static let valueOutOfRange = SwiftDataError(.valueOutOfRange, "a computed value does not fit its type")
    /// The store was written with a different model than the one opening it.
    public static let schemaMismatch = SwiftDataError(.schemaMismatch, "the store was written with a different model")

    /// A registered model stands for a row that is now of another class (the row was deleted and
    /// its key reused for another class of the hierarchy, by another context or process): never
    /// returned as a model of the wrong class.
    static func rowChangedClass(_ registered: ModelLayout, now: ModelLayout, key: Int64) -> SwiftDataError {
        SwiftDataError(.modelNotFound, "this context holds the \(registered.entityName) with key \(key), but that row is now a \(now.entityName) (it was deleted and its key reused by another context or process); fetch again in a new context")
    }

    /// A new model's unique values match a stored model of another class of its hierarchy: an
    /// upsert cannot change a model's class.
    static func upsertChangesClass(_ layout: ModelLayout, existing: String) -> SwiftDataError {
        SwiftDataError(.constraintViolation, "a new \(layout.entityName) has the unique values of a stored \(existing); unique constraints of \(layout.root.entityName) hold across its subclasses, and a save cannot turn a \(existing) into a \(layout.entityName). Nothing was saved; delete the \(existing) first, or give the new model other values")
    }
}
