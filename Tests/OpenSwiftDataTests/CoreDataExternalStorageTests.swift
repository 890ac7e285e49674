import Foundation
import Testing
@testable import OpenSwiftData

private typealias Photo = ExternalStorageModels.Photo

/// `.externalStorage` data in a Core Data file: a marker byte, then the bytes (kept in the row) or
/// the name of a file in `.<store>_SUPPORT/_EXTERNAL_DATA/`. The files are built here by SQL
/// following that form.
@Suite struct CoreDataExternalStorageTests {
    static let fileName = "5B0E6C1A-2F3D-4A8B-9C7E-1D2F3A4B5C6D"

    /// A file with a photo kept in its row and one kept in a file of the support folder.
    static func buildStore(rows: String? = nil) throws -> URL {
        let name = Data(fileName.utf8).map { String(format: "%02X", $0) }.joined()
        let url = try CoreDataLayoutTests.file("Photos.sqlite", CoreDataLayoutTests.bookkeeping("Photo") + """
            CREATE TABLE ZPHOTO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMAGE BLOB );
            \(rows ?? "INSERT INTO ZPHOTO VALUES (1, 1, 1, x'01FFD8FFE0'), (2, 1, 1, x'02\(name)00');")
            UPDATE Z_PRIMARYKEY SET Z_MAX = 2;
            """)
        let folder = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(repeating: 0xAB, count: 300_000).write(to: folder.appendingPathComponent(fileName))
        return url
    }

    @Test func dataKeptInTheRowOrInAFileReadsBack() throws {
        let url = try Self.buildStore()
        defer { CoreDataLayoutTests.cleanUp(url) }
        let before = try Data(contentsOf: url)
        do {
            let context = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
            let photos = try context.fetch(FetchDescriptor<Photo>()).map(\.image).sorted { $0.count < $1.count }
            #expect(photos == [Data([0xFF, 0xD8, 0xFF, 0xE0]), Data(repeating: 0xAB, count: 300_000)])
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func savedDataIsKeptInTheRowBehindTheMarker() throws {
        let url = try Self.buildStore()
        defer { CoreDataLayoutTests.cleanUp(url) }
        do {
            let context = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url)))
            context.insert(Photo(image: Data([1, 2, 3])))
            let first = try #require(try context.fetch(FetchDescriptor<Photo>()).first { $0.image == Data([0xFF, 0xD8, 0xFF, 0xE0]) })
            first.image = Data([9])
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let photos = try context.fetch(FetchDescriptor<Photo>()).map(\.image).sorted { $0.count < $1.count }
        #expect(photos == [Data([9]), Data([1, 2, 3]), Data(repeating: 0xAB, count: 300_000)])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, Z_OPT, ZIMAGE FROM ZPHOTO WHERE Z_PK <> 2 ORDER BY Z_PK") == ["1|2|0109", "3|1|01010203"])
    }

    /// Storage is decided per table and column: `Sketch.image` is plain `Data` in its own table,
    /// so it is written and read without the marker `Photo.image` has.
    @Test func aSameNamedPlainAttributeOfAnotherEntityIsWrittenWithoutTheMarker() throws {
        let url = try CoreDataLayoutTests.file("Photos.sqlite", """
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Photo', 0, 1), (2, 'Sketch', 0, 1);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_METADATA VALUES (1, '\(CoreDataLayoutTests.storeUUID)', NULL);
            CREATE TABLE ZPHOTO ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMAGE BLOB );
            INSERT INTO ZPHOTO VALUES (1, 1, 1, x'01FFD8');
            CREATE TABLE ZSKETCH ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZIMAGE BLOB );
            INSERT INTO ZSKETCH VALUES (1, 2, 1, x'0102');
            """)
        defer { CoreDataLayoutTests.cleanUp(url) }
        let schema = Schema([Photo.self, ExternalStorageModels.Sketch.self])
        do {
            let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url)))
            #expect(try context.fetch(FetchDescriptor<ExternalStorageModels.Sketch>()).map(\.image) == [Data([1, 2])])
            context.insert(ExternalStorageModels.Sketch(image: Data([7, 8])))
            context.insert(Photo(image: Data([9])))
            try context.save()
        }
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, ZIMAGE FROM ZSKETCH ORDER BY Z_PK") == ["1|0102", "2|0708"])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, ZIMAGE FROM ZPHOTO ORDER BY Z_PK") == ["1|01FFD8", "2|0109"])
        let context = ModelContext(try ModelContainer(for: schema, configurations: ModelConfiguration(url: url, allowsSave: false)))
        #expect(Set(try context.fetch(FetchDescriptor<ExternalStorageModels.Sketch>()).map(\.image)) == [Data([1, 2]), Data([7, 8])])
        #expect(Set(try context.fetch(FetchDescriptor<Photo>()).map(\.image)) == [Data([0xFF, 0xD8]), Data([9])])
    }

    @Test func aValueInNeitherFormIsAnErrorNamingIt() throws {
        let url = try Self.buildStore(rows: "INSERT INTO ZPHOTO VALUES (1, 1, 1, x'07FFD8');")
        defer { CoreDataLayoutTests.cleanUp(url) }
        let context = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let error = #expect(throws: (any Error).self) { try context.fetch(FetchDescriptor<Photo>()) }
        #expect("\(String(describing: error))".contains("starts with the byte 7, neither 1 (in the row) nor 2 (in a file)"), "\(String(describing: error))")

        let missing = try Self.buildStore(rows: "INSERT INTO ZPHOTO VALUES (1, 1, 1, x'02\(Data("0F0E0D0C-0B0A-4908-8706-050403020100".utf8).map { String(format: "%02X", $0) }.joined())');")
        defer { CoreDataLayoutTests.cleanUp(missing) }
        let other = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: missing, allowsSave: false)))
        let notFound = #expect(throws: (any Error).self) { try other.fetch(FetchDescriptor<Photo>()) }
        #expect("\(String(describing: notFound))".contains("_EXTERNAL_DATA/0F0E0D0C-0B0A-4908-8706-050403020100, which cannot be read"), "\(String(describing: notFound))")
    }

    @Test func aFileOrFolderLeadingOutOfExternalDataIsNotRead() throws {
        let url = try Self.buildStore()
        defer { CoreDataLayoutTests.cleanUp(url) }
        let folder = url.deletingLastPathComponent().appendingPathComponent(".Photos_SUPPORT/_EXTERNAL_DATA", isDirectory: true)
        let secret = url.deletingLastPathComponent().appendingPathComponent("secret.txt")
        try Data("the user's other file".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        // The value's file is a symbolic link to another file of the user's.
        try FileManager.default.removeItem(at: folder.appendingPathComponent(Self.fileName))
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(Self.fileName), withDestinationURL: secret)
        let context = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let linked = #expect(throws: (any Error).self) { try context.fetch(FetchDescriptor<Photo>()) }
        #expect("\(String(describing: linked))".contains("leads out of the store's _EXTERNAL_DATA folder"), "\(String(describing: linked))")

        // The folder itself is a link to another folder holding a file of that name.
        let elsewhere = url.deletingLastPathComponent().appendingPathComponent("elsewhere", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        try Data("another file".utf8).write(to: elsewhere.appendingPathComponent(Self.fileName))
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: elsewhere)
        let again = ModelContext(try ModelContainer(for: Photo.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let moved = #expect(throws: (any Error).self) { try again.fetch(FetchDescriptor<Photo>()) }
        #expect("\(String(describing: moved))".contains("leads out of the store's _EXTERNAL_DATA folder"), "\(String(describing: moved))")
    }
}
