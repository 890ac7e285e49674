import Foundation
import OpenSwiftData

/// A server's rule for the records devices push of one entity: the app's own input rules, which
/// sync would otherwise bypass (a device's store holds whatever its app saved, or whatever a
/// hostile client wrote).
///
/// Give validators to ``SyncServer``. Each pushed record of the entity (not its deletes) is shown
/// to the validator with the attribute values it carries, typed as the model holds them, before
/// anything of the request is merged. A validator refuses the record by throwing: the request
/// fails with ``SyncError/refused(_:)`` naming the record and the error's description, nothing
/// of it is kept, and the device sets the record aside (see ``SyncRefusal``).
///
/// ```swift
/// let amounts = SyncValidator(for: Expense.self) { record in
///     if let amount = record.value("amount", as: Double.self), !amount.isFinite || abs(amount) > 1e9 {
///         throw ExpenseInputError("amount must be a finite number")
///     }
///     if let note = record.value("note", as: String.self), note.utf8.count > 10_000 {
///         throw ExpenseInputError("a note has at most 10,000 bytes")
///     }
/// }
/// let server = try SyncServer(container: container, validators: [amounts])
/// ```
public struct SyncValidator: Sendable {
    /// The entity whose records it checks.
    public let entity: String
    let validate: @Sendable (Record) throws -> Void

    /// A validator for the entity of the model type `type`.
    public init<T: PersistentModel>(for type: T.Type, _ validate: @escaping @Sendable (Record) throws -> Void) {
        self.init(entity: Schema.entityName(for: type), validate)
    }

    /// A validator for the entity named `entity` in the schema.
    public init(entity: String, _ validate: @escaping @Sendable (Record) throws -> Void) {
        self.entity = entity
        self.validate = validate
    }

    /// The attribute values one pushed record carries: only those it changes (a record of an
    /// existing object may carry one attribute).
    public struct Record {
        /// The entity's name in the schema.
        public let entity: String
        /// The object's global identity.
        public let id: UUID
        let values: [String: Any]
        /// The declared sizes of the values that travel apart, by attribute.
        var largeValueSizes: [String: Int64] = [:]

        /// The names of the attributes the record carries.
        public var attributes: [String] { values.keys.sorted() }

        /// The value of the attribute `name` as the model's property type `T`, or `nil` if the
        /// record does not carry it, or it is `nil`, or not a `T`.
        public func value<T>(_ name: String, as type: T.Type) -> T? {
            values[name].flatMap { $0 as? T }
        }

        /// The size in bytes of the `Data` attribute `name`'s pushed value, whether it came in
        /// the record or apart (a large value, whose bytes may not have arrived yet); `nil`
        /// where the record does not set it.
        ///
        /// ```swift
        /// guard (record.byteCount("image") ?? 0) <= 20 << 20 else { throw TooLarge() }
        /// ```
        public func byteCount(_ name: String) -> Int64? {
            if let data = values[name] as? Data { return Int64(data.count) }
            return largeValueSizes[name]
        }
    }
}
