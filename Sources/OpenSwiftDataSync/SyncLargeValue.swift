import Foundation

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
        externalStorage ? !data.isEmpty : data.count > threshold
    }

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
