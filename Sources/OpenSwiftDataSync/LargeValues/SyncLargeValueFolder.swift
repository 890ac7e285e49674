import Foundation
import OpenSwiftData
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where large values wait, by hash, while their chunks arrive (`<sha256>.part`) and once
/// whole and checked (`<sha256>`): a device keeps what it downloads until the merge that uses
/// it is saved; a server keeps uploads until a push uses them.
///
/// **Where.** Beside the store's file (`default.sync-values` beside `default.store`), or — for a store kept in memory or
/// on a database server — in a folder with a random name in the temporary directory; either
/// way `0700`, and refused where it is not this process's user's. Only bytes this process wrote,
/// or hashed again before their first use, are used.
///
/// **Whose.** A server keeps each user's uploads in a space of their own (``space(for:)``):
/// nobody learns from the folder whether another user uploaded a value, or uses another user's
/// bytes for their own record.
///
/// **How much.** A space holds at most ``Limits/bytesPerSpace`` of values still arriving, and
/// all spaces together ``Limits/bytesInAll``: a chunk past either is refused (413 where the value
/// could never fit, 429 where others must finish or expire first). A value still arriving that
/// is not written to for ``Limits/partialRetention`` is removed, and a whole one not used for
/// ``Limits/wholeRetention``; ``sweep(now:)`` removes them (a server runs it on a timer).
final class SyncLargeValueFolder: @unchecked Sendable {
    // `@unchecked Sendable`: `shared.lock` orders every file operation of the process.
    /// This space's folder.
    let url: URL
    private let shared: Shared

    /// How much a folder keeps, and for how long.
    struct Limits: Sendable {
        /// Seconds a value still arriving stays after its last chunk.
        var partialRetention: TimeInterval
        /// Seconds a whole value stays after it was last written or read.
        var wholeRetention: TimeInterval
        /// The most bytes of values still arriving in one space; `nil`: no limit.
        var bytesPerSpace: Int64?
        /// The most bytes of values still arriving in all spaces; `nil`: no limit.
        var bytesInAll: Int64?

        /// A device's: its own downloads, which a stopped sync takes up again the next day.
        static let device = Limits(partialRetention: 24 * 60 * 60, wholeRetention: 24 * 60 * 60, bytesPerSpace: nil, bytesInAll: nil)
        /// A server's (``SyncServer/largeValueLimits``).
        static func server(_ limits: SyncLargeValueLimits) -> Limits {
            Limits(partialRetention: limits.partialUploadRetention, wholeRetention: limits.unusedUploadRetention,
                   bytesPerSpace: limits.bytesPerUser, bytesInAll: limits.bytesInAll)
        }
    }

    /// What every space of one folder shares.
    private final class Shared: @unchecked Sendable {
        let root: URL
        let limits: Limits
        let lock = NSLock()
        /// Whole values whose bytes this process wrote or hashed again, by path.
        var trusted = Set<String>()

        init(root: URL, limits: Limits) {
            self.root = root
            self.limits = limits
        }
    }

    /// The bytes read at a time while checking a value's hash.
    private static let readSize = 1 << 20

    /// The folder at `root`: refused where it is there and not a folder of this process's user;
    /// made (`0700`) when a value first needs it.
    init(root: URL, limits: Limits) throws {
        // Anything there already — a link included, even a dangling one — is checked now.
        var info = stat()
        if lstat(root.path, &info) == 0 { try Self.prepare(root) }
        shared = Shared(root: root, limits: limits)
        url = root
    }

    private init(url: URL, shared: Shared) {
        self.url = url
        self.shared = shared
    }

    /// The space of `user`'s uploads (`nil`: the one dataset of a server without users), a
    /// folder named after the user's hash, so the name says nothing and takes any user.
    func space(for user: String?) -> SyncLargeValueFolder {
        var hash = SyncSHA256()
        hash.update(Data("user:\(user ?? "")".utf8))
        return SyncLargeValueFolder(url: shared.root.appendingPathComponent("u-" + hash.finish().prefix(32), isDirectory: true), shared: shared)
    }

    /// Where a store's large values wait by default: beside its file (named after it, its
    /// extension `sync-values`), or in a new folder with a random name in the temporary directory.
    static func defaultRoot(for container: ModelContainer) -> URL {
        if let configuration = container.configurations.first(where: { !$0.isStoredInMemoryOnly }), container.configurations.count == 1 {
            let file = configuration.url.standardizedFileURL
            return file.deletingPathExtension().appendingPathExtension("sync-values")
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-sync-values-\(UUID().uuidString)", isDirectory: true)
    }

    /// Makes `folder` (`0700`) where missing; refuses one that is no folder (a link included),
    /// belongs to another user, or that others may write; takes away others' reading.
    private static func prepare(_ folder: URL) throws {
        let path = folder.path
        var info = stat()
        if lstat(path, &info) != 0 {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw SyncError.unsupportedStore("sync cannot make its folder for large values at \(path) (\(error.localizedDescription))")
            }
            guard lstat(path, &info) == 0 else { throw SyncError.unsupportedStore("sync cannot make its folder for large values at \(path)") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw SyncError.unsupportedStore("the folder for large values \(path) is not a folder (a link, or a file); give sync another")
        }
        guard info.st_uid == geteuid() else {
            throw SyncError.unsupportedStore("the folder for large values \(path) belongs to another user; sync keeps its values only in a folder of its own")
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw SyncError.unsupportedStore("the folder for large values \(path) is open to other users and cannot be closed")
        }
    }

    /// Makes this space's folder (and the root) on first use (most stores never sync a large value).
    private func prepareSpace() throws {
        try Self.prepare(shared.root)
        guard url != shared.root else { return }
        try Self.prepare(url)
    }

    private func whole(_ value: SyncLargeValue) -> URL { url.appendingPathComponent(value.sha256) }
    private func part(_ value: SyncLargeValue) -> URL { url.appendingPathComponent(value.sha256 + ".part") }

    private static func size(of file: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
    }

    /// How many of the value's bytes are here: all of them once it is whole.
    func received(_ value: SyncLargeValue) -> Int64 {
        shared.lock.withLock { receivedLocked(value) }
    }

    private func receivedLocked(_ value: SyncLargeValue) -> Int64 {
        if value.size == 0 || trustedWholeLocked(value) != nil { return value.size }
        return min(Self.size(of: part(value)) ?? 0, value.size)
    }

    /// Adds `bytes` at `offset`, and returns how many of the value's bytes are here now. Bytes
    /// for another offset than the next (sent again, or after a gap) are left out: the answer
    /// tells the sender where to go on. The last bytes make it whole once its hash is checked;
    /// a value whose bytes do not have its hash is thrown away (``SyncError/malformed(_:)``). A
    /// chunk past the folder's limits is refused (``SyncError/tooLarge(_:)``, ``SyncError/busy(_:)``).
    func append(_ value: SyncLargeValue, at offset: Int64, _ bytes: Data) throws -> Int64 {
        try shared.lock.withLock {
            let have = receivedLocked(value)
            guard offset == have, have < value.size else { return have }
            guard Int64(bytes.count) <= value.size - have else {
                throw SyncError.malformed("a chunk of a large value goes past its size of \(value.size) bytes")
            }
            try checkLimitsLocked(value, adding: Int64(bytes.count))
            let file = part(value)
            try prepareSpace()
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
            guard try Self.hash(of: file) == value.sha256 else {
                try? FileManager.default.removeItem(at: file)
                throw SyncError.malformed("the bytes received of a large value do not have its hash (\(value.sha256.prefix(12))…); it is sent again from the start")
            }
            try? FileManager.default.removeItem(at: whole(value))
            do {
                try FileManager.default.moveItem(at: file, to: whole(value))
            } catch {
                throw SyncError.server("sync could not keep a large value in \(url.path) (\(error.localizedDescription))")
            }
            shared.trusted.insert(whole(value).path)
            return now
        }
    }

    /// Refuses `adding` more bytes of `value` past the folder's limits: a value larger than a
    /// space holds never fits (413); a space or the folder that is full now must wait (429).
    private func checkLimitsLocked(_ value: SyncLargeValue, adding: Int64) throws {
        let limits = shared.limits
        if let perSpace = limits.bytesPerSpace {
            guard value.size <= perSpace else {
                throw SyncError.tooLarge("a large value of \(value.size) bytes; this server keeps at most \(perSpace) bytes of one user's values arriving at once")
            }
            guard Self.arrivingBytes(in: url) + adding <= perSpace else {
                throw SyncError.busy("this user's values still arriving fill the \(perSpace) bytes the server keeps for them; finish those first, or wait for the unfinished ones to expire")
            }
        }
        if let inAll = limits.bytesInAll {
            let arriving = ((try? FileManager.default.contentsOfDirectory(at: shared.root, includingPropertiesForKeys: nil)) ?? [])
                .reduce(Int64(0)) { $0 + Self.arrivingBytes(in: $1) } + Self.arrivingBytes(in: shared.root)
            guard arriving + adding <= inAll else {
                throw SyncError.busy("the server's room for large values still arriving (\(inAll) bytes) is full; try again shortly")
            }
        }
    }

    /// The bytes of the values still arriving in `folder`.
    private static func arrivingBytes(in folder: URL) -> Int64 {
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.fileSizeKey])) ?? []
        return files.filter { $0.pathExtension == "part" }.reduce(0) { $0 + Int64((try? $1.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0) }
    }

    private static func hash(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hash = SyncSHA256()
        while let data = try handle.read(upToCount: Self.readSize), !data.isEmpty { hash.update(data) }
        return hash.finish()
    }

    /// The whole value's file where its bytes are here and trusted: written by this process, or
    /// hashed again now (a file that does not hold its value's bytes is removed).
    private func trustedWholeLocked(_ value: SyncLargeValue) -> URL? {
        let file = whole(value)
        guard Self.size(of: file) == value.size else { return nil }
        if shared.trusted.contains(file.path) { return file }
        guard (try? Self.hash(of: file)) == value.sha256 else {
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        shared.trusted.insert(file.path)
        return file
    }

    /// The whole value, read from its file as it is used (mapped, not copied into memory);
    /// `nil` while it is not whole here.
    func contents(_ value: SyncLargeValue) -> Data? {
        guard value.size > 0 else { return Data() }
        return file(value).flatMap { try? Data(contentsOf: $0, options: .alwaysMapped) }
    }

    /// The file holding the whole value, for a store to write from; `nil` while it is not whole here.
    func file(_ value: SyncLargeValue) -> URL? {
        shared.lock.withLock {
            if value.size == 0 {
                let file = whole(value)
                if Self.size(of: file) == nil {
                    try? prepareSpace()
                    _ = FileManager.default.createFile(atPath: file.path, contents: Data(), attributes: [.posixPermissions: 0o600])
                }
                return Self.size(of: file) == 0 ? file : nil
            }
            guard let file = trustedWholeLocked(value) else { return nil }
            touch(file)
            return file
        }
    }

    /// Up to `length` bytes of the whole value at `offset`; `nil` while it is not whole here.
    func read(_ value: SyncLargeValue, at offset: Int64, length: Int) throws -> Data? {
        try shared.lock.withLock {
            guard let file = trustedWholeLocked(value) else { return nil }
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
        shared.lock.withLock {
            try? FileManager.default.removeItem(at: whole(value))
            try? FileManager.default.removeItem(at: part(value))
            shared.trusted.remove(whole(value).path)
        }
    }

    /// Removes, in every space, the values still arriving that were not written for
    /// ``Limits/partialRetention``, and the whole ones not used for ``Limits/wholeRetention``.
    func sweep(now: Date = Date()) {
        shared.lock.withLock {
            let root = shared.root
            let spaces = ((try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: [.isDirectoryKey])) ?? [])
                .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true }
            for folder in [root] + spaces {
                let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.contentModificationDateKey, .isDirectoryKey])) ?? []
                for file in files where (try? file.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory != true {
                    let modified = (try? file.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate ?? now
                    let retention = file.pathExtension == "part" ? shared.limits.partialRetention : shared.limits.wholeRetention
                    if now.timeIntervalSince(modified) > retention {
                        try? FileManager.default.removeItem(at: file)
                        shared.trusted.remove(file.path)
                    }
                }
            }
        }
    }

    private func touch(_ file: URL) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    }
}
