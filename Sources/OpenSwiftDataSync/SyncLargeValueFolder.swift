import Foundation

/// Where large values wait, by hash, while their chunks arrive (`<sha256>.part`) and once
/// whole and checked (`<sha256>`): a device keeps what it downloads until the merge that uses
/// it is saved; a server keeps uploads until a push uses them, and serves downloads from them
/// for ``retention`` after their last use. Several server instances on one machine share it
/// (the folder is named after the store); instances on several machines each keep their own,
/// so a device's upload that moves between them starts again on the one it reaches.
final class SyncLargeValueFolder: @unchecked Sendable {
    // `@unchecked Sendable`: `lock` orders appends of one process; another process appending
    // at the same time breaks the hash check, and the value is sent again from the start.
    let url: URL
    private let lock = NSLock()
    /// Seconds a value stays after it was last written or read.
    static let retention: TimeInterval = 24 * 60 * 60
    /// The bytes read at a time while checking a value's hash.
    private static let readSize = 1 << 20

    init(url: URL) {
        self.url = url
    }

    /// Makes the folder on first use (most stores never sync a large value).
    private func prepare() throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw SyncError.server("sync cannot make its folder for large values at \(url.path) (\(error.localizedDescription))")
        }
    }

    /// The folder of a store whose replica is `node`, in the temporary directory.
    static func temporary(for node: String) -> URL {
        let name = String(node.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? Character($0) : "-" }.prefix(80))
        return FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-sync-values-\(name)", isDirectory: true)
    }

    private func whole(_ value: SyncLargeValue) -> URL { url.appendingPathComponent(value.sha256) }
    private func part(_ value: SyncLargeValue) -> URL { url.appendingPathComponent(value.sha256 + ".part") }

    private func size(of file: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
    }

    /// How many of the value's bytes are here: all of them once it is whole.
    func received(_ value: SyncLargeValue) -> Int64 {
        lock.withLock { receivedLocked(value) }
    }

    private func receivedLocked(_ value: SyncLargeValue) -> Int64 {
        if value.size == 0 || size(of: whole(value)) == value.size { return value.size }
        return min(size(of: part(value)) ?? 0, value.size)
    }

    /// Adds `bytes` at `offset`, and returns how many of the value's bytes are here now. Bytes
    /// for another offset than the next (sent again, or after a gap) are left out: the answer
    /// tells the sender where to go on. The last bytes make it whole once its hash is checked;
    /// a value whose bytes do not have its hash is thrown away (``SyncError/malformed(_:)``).
    func append(_ value: SyncLargeValue, at offset: Int64, _ bytes: Data) throws -> Int64 {
        try lock.withLock {
            let have = receivedLocked(value)
            guard offset == have, have < value.size else { return have }
            guard Int64(bytes.count) <= value.size - have else {
                throw SyncError.malformed("a chunk of a large value goes past its size of \(value.size) bytes")
            }
            let file = part(value)
            try prepare()
            if have == 0 { FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) }
            do {
                let handle = try FileHandle(forWritingTo: file)
                defer { try? handle.close() }
                try handle.truncate(atOffset: UInt64(have))
                try handle.seekToEnd()
                try handle.write(contentsOf: bytes)
            } catch {
                throw SyncError.server("sync could not keep a chunk of a large value in \(url.path) (\(error.localizedDescription))")
            }
            let now = have + Int64(bytes.count)
            guard now == value.size else { return now }
            guard try hash(of: file) == value.sha256 else {
                try? FileManager.default.removeItem(at: file)
                throw SyncError.malformed("the bytes received of a large value do not have its hash (\(value.sha256.prefix(12))…); it is sent again from the start")
            }
            try? FileManager.default.removeItem(at: whole(value))
            do {
                try FileManager.default.moveItem(at: file, to: whole(value))
            } catch {
                throw SyncError.server("sync could not keep a large value in \(url.path) (\(error.localizedDescription))")
            }
            return now
        }
    }

    private func hash(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hash = SyncSHA256()
        while let data = try handle.read(upToCount: Self.readSize), !data.isEmpty { hash.update(data) }
        return hash.finish()
    }

    /// The whole value, read from its file as it is used (mapped, not copied into memory);
    /// `nil` while it is not whole here.
    func contents(_ value: SyncLargeValue) -> Data? {
        guard value.size > 0 else { return Data() }
        return file(value).flatMap { try? Data(contentsOf: $0, options: .alwaysMapped) }
    }

    /// The file holding the whole value, for a store to write from; `nil` while it is not whole here.
    func file(_ value: SyncLargeValue) -> URL? {
        lock.withLock {
            let file = whole(value)
            if value.size == 0 && size(of: file) == nil { _ = FileManager.default.createFile(atPath: file.path, contents: Data()) }
            guard size(of: file) == value.size else { return nil }
            touch(file)
            return file
        }
    }

    /// Up to `length` bytes of the whole value at `offset`; `nil` while it is not whole here.
    func read(_ value: SyncLargeValue, at offset: Int64, length: Int) throws -> Data? {
        try lock.withLock {
            let file = whole(value)
            guard size(of: file) == value.size else { return nil }
            guard offset >= 0, offset <= value.size, length >= 0 else {
                throw SyncError.malformed("a chunk asked for lies outside its value of \(value.size) bytes")
            }
            touch(file)
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            return try handle.read(upToCount: length) ?? Data()
        }
    }

    /// Removes the value, whole or in part.
    func remove(_ value: SyncLargeValue) {
        lock.withLock {
            try? FileManager.default.removeItem(at: whole(value))
            try? FileManager.default.removeItem(at: part(value))
        }
    }

    /// Removes the values not written or read for ``retention``.
    func sweep(now: Date = Date()) {
        lock.withLock {
            let files = (try? FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: [.contentModificationDateKey])) ?? []
            for file in files {
                let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? now
                if now.timeIntervalSince(modified) > Self.retention { try? FileManager.default.removeItem(at: file) }
            }
        }
    }

    private func touch(_ file: URL) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    }
}
