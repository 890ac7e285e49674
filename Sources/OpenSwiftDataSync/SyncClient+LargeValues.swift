import Foundation
import OpenSwiftData

extension SyncClient {
    // MARK: Large values

    /// Sends the server the large values edited here that `records` name (the Sync article's
    /// *Large values*), before the records themselves: each from where the server's copy ends,
    /// so a value a stopped sync sent part of goes on from there. The value is read from its
    /// row in a context of its own, one value at a time.
    func upload(_ records: [SyncRecord], progress: (@Sendable (Progress) -> Void)?) async throws {
        for record in records {
            for (name, field) in record.fields.sorted(by: { $0.key < $1.key }) {
                // Values merged from elsewhere are the server's already.
                guard let large = field.large, field.clock.node == replica.node else { continue }
                var have = try await exchangeChunk(SyncChunk(value: large, offset: 0)).offset
                guard have < large.size else { continue }
                let reading = ModelContext(replica.container)
                guard let model = try replica.localModels([(record.id, record.entity)], in: reading)[record.id],
                      case .blob(let data) = try reading.storedValue(of: model, name), Int64(data.count) == large.size else {
                    // Changed since it was read: the next capture notes the new value, and it goes next time.
                    continue
                }
                while have < large.size {
                    let end = min(large.size, have + Int64(chunkBytes))
                    let answer = try await exchangeChunk(SyncChunk(value: large, offset: have, bytes: data.subdata(in: Int(have)..<Int(end))))
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
        let wanted = records.filter { $0.fields.values.contains { $0.large != nil } }
        guard !wanted.isEmpty else { return true }
        let known = try replica.syncedObjects(wanted.map(\.id), in: context)
        for record in wanted {
            for (name, field) in record.fields.sorted(by: { $0.key < $1.key }) {
                guard let large = field.large, known[record.id]?.largeValues[name] != large.text else { continue }
                var have = replica.largeValues.received(large)
                while have < large.size {
                    let answer = try await exchangeChunk(SyncChunk(value: large, offset: have, length: chunkBytes, object: record.id, property: name))
                    guard let bytes = answer.bytes else { return false }
                    guard !bytes.isEmpty else {
                        throw SyncError.malformed("\(transport.serverDescription) sent no bytes of a large value at \(have) of \(large.size)")
                    }
                    have = try replica.largeValues.append(large, at: have, bytes)
                    progress?(Progress(phase: "receiving a large value", done: Int(have), total: Int(large.size)))
                }
            }
        }
        return true
    }

    /// Sends one chunk request and returns the server's answer to it.
    private func exchangeChunk(_ chunk: SyncChunk) async throws -> SyncChunk {
        var request = SyncRequest(schema: replica.schemaVersion, node: replica.node)
        request.chunk = chunk
        let reply = try await exchange(try JSONEncoder().encode(request))
        guard let answer = reply.chunk, answer.value == chunk.value else {
            throw SyncError.malformed("\(transport.serverDescription) answered a large value's chunk with something else")
        }
        return answer
    }
}
