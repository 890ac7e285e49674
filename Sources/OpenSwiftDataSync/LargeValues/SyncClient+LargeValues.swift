import Foundation
import OpenSwiftData

extension SyncClient {
    // MARK: Large values

    /// Sends the server the large values edited here that `records` name (the Sync article's
    /// *Large values*), before the records themselves: each from where the server's copy ends,
    /// so a value a stopped sync sent part of goes on from there. Each chunk is read from the
    /// value's row as it goes: the value is never whole in memory.
    func upload(_ records: [SyncRecord], progress: (@Sendable (Progress) -> Void)?) async throws {
        let reading = ModelContext(replica.container)
        for record in records {
            for (name, field) in record.fields.sorted(by: { $0.key < $1.key }) {
                // Values merged from elsewhere are the server's already.
                guard let large = field.large, field.clock.node == replica.node else { continue }
                var have = try await exchangeChunk(SyncChunk(value: large, offset: 0)).offset
                guard have < large.size, let id = try reading.persistentIdentifiers(entity: record.entity, globalIdentities: [record.id])[record.id] else { continue }
                while have < large.size {
                    // Changed since it was noted: the next capture notes the new value, and it goes next time.
                    guard let piece = try reading.storedBytes(of: id, name, offset: have, length: chunkBytes), piece.total == large.size, !piece.bytes.isEmpty else { break }
                    let answer = try await exchangeChunk(SyncChunk(value: large, offset: have, bytes: piece.bytes))
                    guard answer.offset != have, answer.offset >= 0, answer.offset <= large.size else {
                        throw SyncError.server("\(transport.serverDescription) took no more of a large value at \(have) of \(large.size) bytes")
                    }
                    have = answer.offset
                    progress?(Progress(phase: "sending a large value", done: Int(have), total: Int(large.size)))
                }
            }
        }
    }

    /// Receives the large values `records` name that this store does not hold yet, chunk by
    /// chunk into the folder (where a stopped sync left off); `false` where the server no
    /// longer holds one of them (it changed since the page was read).
    func download(_ records: [SyncRecord], in context: ModelContext, progress: (@Sendable (Progress) -> Void)?) async throws -> Bool {
        let wanted = records.filter { record in
            !replica.largeValuesOnDemand.contains(record.entity) && record.fields.values.contains { $0.large != nil }
        }
        guard !wanted.isEmpty else { return true }
        let known = try replica.syncedObjects(wanted.map(\.id), in: context)
        for record in wanted {
            for (name, field) in record.fields.sorted(by: { $0.key < $1.key }) {
                guard let large = field.large, known[record.id]?.largeValues[name] != large.text else { continue }
                guard try await receive(large, of: record.id, name, progress: progress) else { return false }
            }
        }
        return true
    }

    /// Receives the chunks of `value`, which `object` holds in `property`, into the folder from
    /// where they stopped; `false` where the server no longer holds it there.
    private func receive(_ value: SyncLargeValue, of object: UUID, _ property: String, progress: (@Sendable (Progress) -> Void)?) async throws -> Bool {
        var have = replica.largeValues.received(value)
        while have < value.size {
            let answer = try await exchangeChunk(SyncChunk(value: value, offset: have, length: chunkBytes, object: object, property: property))
            guard let bytes = answer.bytes else { return false }
            guard !bytes.isEmpty else {
                throw SyncError.malformed("\(transport.serverDescription) sent no bytes of a large value at \(have) of \(value.size)")
            }
            have = try replica.largeValues.append(value, at: have, bytes)
            progress?(Progress(phase: "receiving a large value", done: Int(have), total: Int(value.size)))
        }
        return true
    }

    /// Receives the large values of `models` that this device has not received yet (their types
    /// are fetched on demand: `largeValuesOnDemand`) and sets them, as a sync would have;
    /// returns how many it set. A model whose value changed here meanwhile keeps the new one;
    /// one whose value changed on the server since the last sync gets it at the next sync.
    ///
    /// ```swift
    /// let client = try SyncClient(container: container, transport: transport, largeValuesOnDemand: [Receipt.self])
    /// try await client.sync()
    /// try await client.fetchLargeValues(of: [receipt.persistentModelID])
    /// ```
    @discardableResult
    public func fetchLargeValues(of models: [PersistentIdentifier]) async throws -> Int {
        let context = ModelContext(replica.container)
        context.autosaveEnabled = false
        try replica.capture(in: context)
        let identities = try context.globalIdentities(of: models, assigning: false)
        let objects = try replica.syncedObjects(Array(identities.values), in: context)
        var wanted: [(UUID, String, SyncLargeValue)] = []
        for object in objects.values.sorted(by: { $0.globalID.uuidString < $1.globalID.uuidString }) {
            for (name, text) in object.awaitedValues.sorted(by: { $0.key < $1.key }) {
                if let value = SyncLargeValue(text: text) { wanted.append((object.globalID, name, value)) }
            }
        }
        var received: [(UUID, String, SyncLargeValue)] = []
        for (id, name, value) in wanted {
            // Changed on the server since: the next sync brings the new value.
            if try await receive(value, of: id, name, progress: nil) { received.append((id, name, value)) }
        }
        // Set in one save, authored by sync (so no edit is recorded), where each is still awaited.
        try replica.capture(in: context)
        let current = try replica.syncedObjects(received.map(\.0), in: context)
        let models = try replica.localModels(current.values.map { ($0.globalID, $0.entity) }, in: context)
        var set = 0
        for (id, name, value) in received {
            guard let object = current[id], object.awaitedValues[name] == value.text, let model = models[id],
                  let file = replica.largeValues.file(value) else { continue }
            try context.setStoredValue(fromFileAt: file, of: model, name)
            object.awaitedValues[name] = nil
            set += 1
        }
        try replica.save(context)
        for (_, _, value) in received { replica.largeValues.remove(value) }
        return set
    }

    /// The models whose large values this device has not received yet (their types are fetched
    /// on demand; ``fetchLargeValues(of:)`` receives them).
    public func awaitedLargeValues() throws -> [PersistentIdentifier] {
        let context = ModelContext(replica.container)
        let entities = Array(replica.largeValuesOnDemand)
        let objects = try context.fetch(FetchDescriptor<SyncedObject>(predicate: #Predicate { entities.contains($0.entity) && $0.deletedClock == nil }))
            .filter { !$0.awaitedValues.isEmpty }
        var found: [PersistentIdentifier] = []
        for (entity, group) in Dictionary(grouping: objects, by: \.entity) {
            found += try context.persistentIdentifiers(entity: entity, globalIdentities: group.map(\.globalID)).values
        }
        return found
    }

    /// Sends one chunk request and returns the server's answer to it.
    private func exchangeChunk(_ chunk: SyncChunk) async throws -> SyncChunk {
        var request = SyncRequest(schema: replica.schemaVersion, node: replica.node)
        request.chunk = chunk
        let reply = try await exchange(try encode(request))
        guard let answer = reply.chunk, answer.value == chunk.value else {
            throw SyncError.malformed("\(transport.serverDescription) answered a large value's chunk with something else")
        }
        return answer
    }
}
