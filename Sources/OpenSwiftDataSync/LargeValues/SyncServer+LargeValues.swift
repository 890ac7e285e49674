import Foundation
import OpenSwiftData

extension SyncServer {
    // MARK: Large values

    /// Answers a request's chunk (the Sync article's *Large values*). An upload's bytes wait in
    /// the uploading user's space of the server's folder, within its limits
    /// (``SyncLargeValueLimits``), until a push of that user names their value; nothing is read
    /// from what was uploaded but by a merge of that user's record. A download
    /// names the object and attribute whose value it wants: it is answered only where
    /// `principal` reads that object and the object holds that value now (otherwise the reply
    /// carries no bytes, and the device pulls again). The chunk is read from the folder where an
    /// upload left the value whole, and otherwise from the object's row, without the rest.
    func answer(_ chunk: SyncChunk, principal: SyncPrincipal?) throws -> Data {
        var reply = SyncReply(schema: replica.schemaVersion, accepted: 0, cursor: 0, more: false)
        // Each user's uploads in a space of their own: nobody learns of, or uses, another's.
        let folder = replica.largeValues.space(for: principal?.user)
        guard let object = chunk.object else {
            if let bytes = chunk.bytes {
                guard bytes.count <= Self.maximumChunkBytes else {
                    throw SyncError.tooLarge("a chunk of \(bytes.count) bytes; the most a server takes is \(Self.maximumChunkBytes)")
                }
                let have = try folder.append(chunk.value, at: chunk.offset, bytes)
                if have == chunk.value.size { folder.sweep() }
                reply.chunk = SyncChunk(value: chunk.value, offset: have)
            } else {
                reply.chunk = SyncChunk(value: chunk.value, offset: folder.received(chunk.value))
            }
            return try JSONEncoder().encode(reply)
        }
        guard let property = chunk.property, let asked = chunk.length, asked > 0, chunk.offset >= 0, chunk.offset < max(chunk.value.size, 1) else {
            throw SyncError.malformed("a download names an object, one of its attributes, and a positive length within the value")
        }
        reply.chunk = SyncChunk(value: chunk.value, offset: chunk.offset, object: object, property: property)
        let view = principal == nil ? SyncView(context: ModelContext(replica.container), everyone: nil, shared: []) : try access.readingView(for: principal, replica: replica)
        guard let synced = try view.syncedObjects([object], replica: replica)[object], synced.deletedClock == nil,
              synced.largeValues[property] == chunk.value.text else {
            return try JSONEncoder().encode(reply)
        }
        let length = min(asked, Self.maximumChunkBytes)
        if let bytes = try folder.read(chunk.value, at: chunk.offset, length: length) {
            reply.chunk?.bytes = bytes
        } else if let id = try view.context.persistentIdentifiers(entity: synced.entity, globalIdentities: [object])[object],
                  let piece = try view.context.storedBytes(of: id, property, offset: chunk.offset, length: length), piece.total == chunk.value.size {
            reply.chunk?.bytes = piece.bytes
        }
        return try JSONEncoder().encode(reply)
    }
}
