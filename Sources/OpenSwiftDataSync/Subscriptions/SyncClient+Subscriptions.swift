import Foundation
import OpenSwiftData

extension SyncClient {
    // MARK: Subscriptions

    /// Subscribes this device to the subscription `name` with `values` (replacing its values if
    /// subscribed already): from its next sync on, it keeps only the objects of the
    /// subscription's type that match one of its subscriptions for that type (and what they
    /// refer to). Saved in the store, it lasts until changed. Throws
    /// ``SyncError/malformed(_:)`` for a name this client was not given, or values the
    /// subscription refuses.
    ///
    /// ```swift
    /// try await client.subscribe("since", ["from": "2026-11-01"])
    /// ```
    public func subscribe(_ name: String, _ values: [String: String] = [:]) throws {
        guard let definition = definitions[name] else {
            throw SyncError.malformed("there is no subscription named '\(name)'; this client was given \(definitions.keys.sorted().joined(separator: ", "))")
        }
        _ = try definition.make(SyncSubscription.Values(values))
        try changeSubscriptions { $0[name] = SyncSubscription.Values(values) }
    }

    /// Ends the subscription `name`: from the next sync on, this device receives every object
    /// of its type again (unless another subscription for the type selects some).
    public func unsubscribe(_ name: String) throws {
        try changeSubscriptions { $0[name] = nil }
    }

    /// The subscriptions this device holds, by name, with their values.
    public func subscriptions() throws -> [String: [String: String]] {
        try (Self.decode(replica.state(in: ModelContext(replica.container)).subscriptions) ?? [:]).mapValues(\.values)
    }

    private func changeSubscriptions(_ change: (inout [String: SyncSubscription.Values]) -> Void) throws {
        let context = ModelContext(replica.container)
        let state = try replica.state(in: context)
        var chosen = try Self.decode(state.subscriptions) ?? [:]
        change(&chosen)
        let text = try Self.encode(chosen)
        guard text != state.subscriptions else { return }
        state.subscriptions = text
        // A first pull of other subscriptions matches from the start.
        state.matching = ""
        state.matchedThrough = -1
        try replica.save(context)
    }

    /// Subscriptions as the state keeps them: JSON with sorted keys (equal choices, equal text).
    private static func encode(_ chosen: [String: SyncSubscription.Values]) throws -> String {
        guard !chosen.isEmpty else { return "" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(chosen), as: UTF8.self)
    }

    static func decodeMatching(_ text: String) -> SyncMatching? {
        guard !text.isEmpty else { return nil }
        return try? JSONDecoder().decode(SyncMatching.self, from: Data(text.utf8))
    }

    static func decode(_ text: String) throws -> [String: SyncSubscription.Values]? {
        guard !text.isEmpty else { return nil }
        do {
            return try JSONDecoder().decode([String: SyncSubscription.Values].self, from: Data(text.utf8))
        } catch {
            throw SyncError.malformed("this store's subscriptions cannot be read (\(error)); subscribe again")
        }
    }
}
