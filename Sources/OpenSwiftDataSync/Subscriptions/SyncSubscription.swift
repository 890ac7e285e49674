import Foundation
import OpenSwiftData

/// A subset of one model type's objects that a device may ask for instead of all of them
/// (partial sync): a `#Predicate` the app defines, which the device fills with values.
///
/// Give the same subscriptions to the server and to every client (as with ``SyncResolver``s);
/// a device then subscribes by name, with its values (``SyncClient/subscribe(_:_:)``). A
/// predicate from a device would be hostile input for the server to run; a subscription is the
/// app's own code, and a device chooses only its values, which the subscription checks.
///
/// ```swift
/// let recent = SyncSubscription("since", of: Expense.self) { values in
///     let from = try values.date("from")
///     return #Predicate<Expense> { $0.date >= from }
/// }
/// let server = try SyncServer(container: container, subscriptions: [recent])
/// let client = try SyncClient(container: container, transport: transport, subscriptions: [recent])
/// try await client.subscribe("since", ["from": "2026-11-01"])
/// ```
///
/// A device with a subscription for a type receives only its objects that match it (any of its
/// subscriptions for the type), and the objects they refer to; objects of types it has no
/// subscription for it receives all of. See *Subscriptions* in the Sync article.
public struct SyncSubscription: Sendable {
    /// The name devices subscribe by.
    public let name: String
    /// The entity of the subscription's model type.
    public let entity: String
    /// The subscription's predicate for `values`: a check of one model, and a fetch of the
    /// identifiers of the models that match (through the store's indexes).
    let make: @Sendable (Values) throws -> (check: SyncCondition, matching: @Sendable (ModelContext) throws -> [PersistentIdentifier])

    /// A subscription `name` to the objects of `type` that match the predicate `predicate`
    /// makes of a device's values; `predicate` throws ``SyncError/malformed(_:)`` (from
    /// ``Values``) for values it cannot use.
    public init<T: PersistentModel>(_ name: String, of type: T.Type, _ predicate: @escaping @Sendable (Values) throws -> Predicate<T>) {
        self.name = name
        self.entity = Schema.entityName(for: type)
        self.make = { values in
            let made = try predicate(values)
            return (SyncCondition(made, reason: "subscription \(name)"), { context in try context.fetchIdentifiers(FetchDescriptor<T>(predicate: made)) })
        }
    }

    /// A device's values for a subscription, by name, as text; read them with the typed
    /// accessors, which throw ``SyncError/malformed(_:)`` for a missing or unreadable value.
    public struct Values: Sendable, Hashable, Codable {
        /// The values by name.
        public var values: [String: String]

        /// Values `values`.
        public init(_ values: [String: String] = [:]) {
            self.values = values
        }

        /// The text value `name`.
        public func string(_ name: String) throws -> String {
            guard let value = values[name] else { throw SyncError.malformed("the subscription needs a value '\(name.prefix(100))'") }
            return value
        }

        /// The value `name` as a day (`yyyy-MM-dd`, midnight UTC) or an ISO 8601 moment.
        public func date(_ name: String) throws -> Date {
            let text = try string(name)
            if let moment = try? Date(text, strategy: .iso8601) { return moment }
            if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return day }
            throw SyncError.malformed("the subscription's value '\(name.prefix(100))' is not a day (yyyy-MM-dd) or an ISO 8601 moment")
        }

        /// The value `name` as a whole number.
        public func int(_ name: String) throws -> Int {
            guard let value = Int(try string(name)) else {
                throw SyncError.malformed("the subscription's value '\(name.prefix(100))' is not a whole number")
            }
            return value
        }
    }
}

/// The subscriptions one device asked for, as checks by entity: what a server sends it of those
/// entities (``SyncServer``), and what the device keeps (``SyncClient``).
struct SyncSubscriptions: Sendable {
    /// The checks of each subscribed entity; an object matching any of them is sent.
    let byEntity: [String: [SyncCondition]]
    /// The fetches of each subscribed entity's matching models.
    let matching: [String: [@Sendable (ModelContext) throws -> [PersistentIdentifier]]]

    /// Most subscriptions one device holds at once, and most bytes of its values.
    static let maximumCount = 64
    static let maximumBytes = 16 << 10

    /// The checks for `chosen` (name → values) among `definitions`; throws
    /// ``SyncError/malformed(_:)`` for a name none defines, too many or too large values, or
    /// values the subscription refuses.
    init(_ chosen: [String: SyncSubscription.Values], definitions: [String: SyncSubscription]) throws {
        guard chosen.count <= Self.maximumCount else {
            throw SyncError.malformed("a device holds \(chosen.count) subscriptions; the most is \(Self.maximumCount)")
        }
        let bytes = chosen.reduce(0) { $0 + $1.key.utf8.count + $1.value.values.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } }
        guard bytes <= Self.maximumBytes else {
            throw SyncError.malformed("a device's subscriptions take \(bytes) bytes; the most is \(Self.maximumBytes)")
        }
        var byEntity: [String: [SyncCondition]] = [:]
        var matching: [String: [@Sendable (ModelContext) throws -> [PersistentIdentifier]]] = [:]
        for (name, values) in chosen.sorted(by: { $0.key < $1.key }) {
            guard let definition = definitions[name] else {
                throw SyncError.malformed("there is no subscription named '\(name.prefix(100))'; the app defines \(definitions.keys.sorted().joined(separator: ", "))")
            }
            let made = try definition.make(values)
            byEntity[definition.entity, default: []].append(made.check)
            matching[definition.entity, default: []].append(made.matching)
        }
        self.byEntity = byEntity
        self.matching = matching
    }

    /// Whether `model` of `entity` is one the device keeps: of an entity it has no subscription
    /// for, or matching one of that entity's. A check that throws counts as no match.
    func keeps(_ model: any PersistentModel, entity: String) -> Bool {
        guard let checks = byEntity[entity] else { return true }
        return checks.contains { (try? $0.evaluate(model)) == true }
    }

    /// The global identities of the models of `entity` that match one of its subscriptions,
    /// sorted: found through the subscriptions' predicates (the store's indexes serve them),
    /// so the cost is that of what matches, not of every object.
    func matchingIdentities(of entity: String, in context: ModelContext) throws -> [UUID] {
        var ids = Set<PersistentIdentifier>()
        for fetch in matching[entity] ?? [] { ids.formUnion(try fetch(context)) }
        return try context.globalIdentities(of: Array(ids), assigning: false).values.sorted { $0.uuidString < $1.uuidString }
    }

    /// Definitions by name; two of one name are refused.
    static func definitions(_ subscriptions: [SyncSubscription], synced: [String: [SyncPropertyDescription]]) throws -> [String: SyncSubscription] {
        var found: [String: SyncSubscription] = [:]
        for subscription in subscriptions {
            guard synced[subscription.entity] != nil else {
                throw SyncError.unsupportedStore("the subscription '\(subscription.name)' is of \(subscription.entity), which is not a synced entity of the schema")
            }
            guard found.updateValue(subscription, forKey: subscription.name) == nil else {
                throw SyncError.unsupportedStore("two subscriptions are named '\(subscription.name)'")
            }
        }
        return found
    }
}

/// Where a client's first pull of its subscriptions stands: the objects matching them are sent
/// first, found through the subscriptions' predicates (entity by entity, in identity order),
/// then every other change by the server's change order — those of subscribed entities only
/// after `snapshot`, the server's change number when the matching began.
struct SyncMatching: Codable, Sendable, Equatable {
    /// The server's last change number when the matching began.
    var snapshot: Int64
    /// The subscribed entity being matched.
    var entity: String
    /// The last identity of `entity` sent (identities in text order); `nil` before the first.
    var after: UUID?
}
