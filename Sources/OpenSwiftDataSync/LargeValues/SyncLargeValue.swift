import Foundation
import OpenSwiftData

/// A large `Data` value as records name it: its SHA-256 and its size. Its bytes travel apart
/// from the records, in chunks (``SyncChunk``), and wait in a ``SyncLargeValueFolder`` until
/// they are whole.
struct SyncLargeValue: Codable, Hashable, Sendable {
    /// 64 lowercase hexadecimal digits.
    var sha256: String
    var size: Int64

    /// A `Data` attribute's value travels apart when its attribute is declared
    /// `@Attribute(.externalStorage)` (and it is not empty), or when it is larger than this.
    static let threshold = 1 << 20

    /// Whether `data`, a value of an attribute declared with `.externalStorage` or not, travels apart.
    static func travelsApart(_ data: Data, externalStorage: Bool) -> Bool {
        travelsApart(size: Int64(data.count), externalStorage: externalStorage)
    }

    /// Whether a value of `size` bytes travels apart.
    static func travelsApart(size: Int64, externalStorage: Bool) -> Bool {
        externalStorage ? size > 0 : size > Int64(threshold)
    }

    /// The value of the `Data` attribute `name` of the stored model `id`, read from its row a
    /// piece at a time (never whole in memory): its hash and size, or `nil` where it does not
    /// travel apart (or the row is gone, or it changed while being read).
    static func reading(_ id: PersistentIdentifier, _ name: String, externalStorage: Bool, in context: ModelContext) throws -> SyncLargeValue? {
        // The size first: a small value's bytes are not read at all.
        guard let size = try context.storedBytes(of: id, name, offset: 0, length: 0)?.total,
              travelsApart(size: size, externalStorage: externalStorage) else { return nil }
        var hash = SyncSHA256()
        var offset: Int64 = 0
        while offset < size {
            guard let next = try context.storedBytes(of: id, name, offset: offset, length: pieceBytes), next.total == size, !next.bytes.isEmpty else { return nil }
            hash.update(next.bytes)
            offset += Int64(next.bytes.count)
        }
        return SyncLargeValue(sha256: hash.finish(), size: size)
    }

    /// The bytes read from a row at a time while hashing it.
    static let pieceBytes = 1 << 20

    init(sha256: String, size: Int64) {
        self.sha256 = sha256
        self.size = size
    }

    init(of data: Data) {
        self.init(sha256: SyncSHA256.hex(of: data), size: Int64(data.count))
    }

    /// The form ``SyncedObject/largeValues`` keeps: `sha256:size`.
    var text: String { "\(sha256):\(size)" }

    /// A value read from ``text``, or from a client: `nil` unless the hash is 64 lowercase
    /// hexadecimal digits (it names a file) and the size is within what a server takes.
    init?(text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let size = Int64(parts[1]) else { return nil }
        self.init(sha256: String(parts[0]), size: size)
        guard isValid else { return nil }
    }

    var isValid: Bool {
        sha256.utf8.count == 64 && sha256.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
            && size >= 0 && size <= SyncServer.maximumLargeValueBytes
    }

    private enum CodingKeys: String, CodingKey { case sha256 = "h", size = "s" }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sha256 = try container.decode(String.self, forKey: .sha256)
        size = try container.decode(Int64.self, forKey: .size)
        guard isValid else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a large value is named by 64 hexadecimal digits and a size of at most \(SyncServer.maximumLargeValueBytes) bytes"))
        }
    }
}

/// A piece of a large value's transfer, in a request or a reply. A device sends bytes at
/// `offset` (`bytes`; without them, it asks how much the server has) and hears back, in
/// `offset`, how many of the value's bytes the server now has; or it asks for `length` bytes at
/// `offset` of the value `object` holds in `property`, and hears them back in `bytes`.
struct SyncChunk: Codable, Sendable {
    var value: SyncLargeValue
    var offset: Int64
    var bytes: Data? = nil
    var length: Int? = nil
    var object: UUID? = nil
    var property: String? = nil
}
