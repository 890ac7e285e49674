/// A 64-bit FNV-1a hash of text, for fingerprints both sides of a sync compute alike (the
/// schema's, the shared trees a user reads): stable across processes, unlike `Hasher`.
struct SyncFingerprint {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ text: String) {
        for byte in text.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    }

    /// The value in hexadecimal.
    var text: String { String(value, radix: 16) }
}
