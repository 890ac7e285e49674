import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Part of a stored `Data` value read without the rest (`ModelContext.storedBytes`, which sync
/// sends large values with): the same slices and sizes from every store — the SQL stores read
/// only the bytes asked for, a custom store reads the value whole and slices it.
@Suite struct StoredBytesTests {
    @Model
    final class Scan {
        var name: String
        @Attribute(.externalStorage) var image: Data
        var preview: Data?

        init(name: String, image: Data, preview: Data? = nil) {
            self.name = name
            self.image = image
            self.preview = preview
        }
    }

    @Test(arguments: StoreKind.allCases)
    func slicesAndSizesReadBackFromTheSavedRow(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Scan.self])
        let image = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9) })
        let context = ModelContext(store.container)
        let scan = Scan(name: "scan", image: image)
        let empty = Scan(name: "empty", image: Data())
        context.insert(scan)
        context.insert(empty)
        try context.save()
        let id = scan.persistentModelID

        let fresh = ModelContext(store.container)
        let first = try #require(try fresh.storedBytes(of: id, "image", offset: 0, length: 1000))
        #expect(first.total == 300_000)
        #expect(first.bytes == image.subdata(in: 0..<1000))
        let middle = try #require(try fresh.storedBytes(of: id, "image", offset: 123_456, length: 70_000))
        #expect(middle.bytes == image.subdata(in: 123_456..<193_456))
        // Past the end: what there is, then nothing.
        #expect(try fresh.storedBytes(of: id, "image", offset: 299_990, length: 1000)?.bytes == image.subdata(in: 299_990..<300_000))
        #expect(try fresh.storedBytes(of: id, "image", offset: 300_000, length: 1000)?.bytes.isEmpty == true)
        // The size alone, and values that are empty or none.
        #expect(try fresh.storedBytes(of: id, "image", offset: 0, length: 0)?.total == 300_000)
        #expect(try fresh.storedBytes(of: empty.persistentModelID, "image", offset: 0, length: 10)?.total == 0)
        #expect(try fresh.storedBytes(of: id, "preview", offset: 0, length: 10)?.total == 0)
        // An attribute that is not Data is refused; a row deleted since is not there.
        #expect(throws: SwiftDataError.self) { try fresh.storedBytes(of: id, "name", offset: 0, length: 10) }
        context.delete(scan)
        try context.save()
        #expect(try ModelContext(store.container).storedBytes(of: id, "image", offset: 0, length: 10) == nil)
    }

    @Test(arguments: StoreKind.keepingOwners)
    func aContextReadsOnlyTheRowsItsOwnerReads(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Scan.self], ownedRows: .allEntities())
        let alice = ModelContext(store.container, owner: "alice")
        let scan = Scan(name: "hers", image: Data(repeating: 1, count: 5000))
        alice.insert(scan)
        try alice.save()
        let id = scan.persistentModelID
        #expect(try ModelContext(store.container, owner: "alice").storedBytes(of: id, "image", offset: 0, length: 10)?.total == 5000)
        #expect(try ModelContext(store.container, owner: "bob").storedBytes(of: id, "image", offset: 0, length: 10) == nil)
    }
}
