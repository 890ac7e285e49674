import Foundation
import Testing
@testable import OpenSwiftData

private typealias Place = CompositeModels.Place
private typealias PlaceAddress = CompositeModels.Address
private typealias PlaceLocation = CompositeModels.Location

/// `Codable` structs in a Core Data file: SwiftData keeps them as composite attributes, a column
/// per field named after the field (nested structs flattened), values in each column as Core Data
/// keeps an attribute of that type. The files are built here by SQL following that layout.
@Suite struct CoreDataCompositeTests {
    static let office = UUID(uuidString: "3A1F5C2E-8B4D-4E6F-9A0B-1C2D3E4F5A6B")!
    static let depot = UUID(uuidString: "7D8E9F0A-1B2C-4D3E-8F5A-6B7C8D9E0F1A")!

    /// A file with two places: one with every field, one with the optional ones empty.
    static func buildStore() throws -> URL {
        let url = try CoreDataLayoutTests.file("Places.sqlite", CoreDataLayoutTests.bookkeeping("Place") + """
            CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZVERIFIED INTEGER, ZZIP INTEGER,
                ZSINCE TIMESTAMP, ZLATITUDE FLOAT, ZLONGITUDE FLOAT, ZCITY VARCHAR, ZNAME VARCHAR, ZSTREET VARCHAR, ZID BLOB );
            INSERT INTO ZPLACE VALUES (1, 1, 1, 1, 12345, 700000000.5, 52.5, 13.25, 'Springfield', 'Office', 'Main Street 1', x'\(hex(office))');
            INSERT INTO ZPLACE VALUES (2, 1, 1, 0, NULL, 710000000, NULL, NULL, 'Shelbyville', 'Depot', 'Dock Road', x'\(hex(depot))');
            UPDATE Z_PRIMARYKEY SET Z_MAX = 2;
            """)
        return url
    }

    static func hex(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { $0.map { String(format: "%02X", $0) }.joined() }
    }

    @Test func fieldsReadFromTheirColumns() throws {
        let url = try Self.buildStore()
        defer { CoreDataLayoutTests.cleanUp(url) }
        let before = try Data(contentsOf: url)
        do {
            let context = ModelContext(try ModelContainer(for: Place.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
            let places = try context.fetch(FetchDescriptor<Place>(sortBy: [SortDescriptor(\.name)]))
            #expect(places.map(\.name) == ["Depot", "Office"])
            #expect(places[1].address == PlaceAddress(
                street: "Main Street 1", city: "Springfield", zip: 12345, verified: true, id: Self.office,
                since: Date(timeIntervalSinceReferenceDate: 700_000_000.5), location: PlaceLocation(latitude: 52.5, longitude: 13.25)))
            #expect(places[0].address == PlaceAddress(
                street: "Dock Road", city: "Shelbyville", zip: nil, verified: false, id: Self.depot,
                since: Date(timeIntervalSinceReferenceDate: 710_000_000), location: nil))
            // Predicates on the other attributes still run in SQL; the composite itself is refused by name.
            #expect(try context.fetch(FetchDescriptor<Place>(predicate: #Predicate { $0.name == "Office" })).map(\.address.city) == ["Springfield"])
            let refused = #expect(throws: SwiftDataError.self) {
                try context.fetch(FetchDescriptor<Place>(predicate: #Predicate { $0.address.city == "Springfield" }))
            }
            #expect(refused?.description.contains("Place.address is kept as a composite attribute") == true, "\(String(describing: refused))")
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func anIntegerFieldHoldingAHugeRealIsAnErrorNotATrap() throws {
        let url = try Self.buildStore()
        defer { CoreDataLayoutTests.cleanUp(url) }
        // Another program's 9.3e18 in an integer field: past Int64, so no integer reads from it.
        _ = try CoreDataFileRows.read(url, "UPDATE ZPLACE SET ZZIP = 9.3e18 WHERE Z_PK = 1")
        let context = ModelContext(try ModelContainer(for: Place.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let places = try context.fetch(FetchDescriptor<Place>(sortBy: [SortDescriptor(\.name)]))
        #expect(places.map(\.name) == ["Depot", "Office"])
        #expect(places[1].address.zip == nil)
    }

    @Test func savedValuesAreSpreadOverTheColumns() throws {
        let url = try Self.buildStore()
        defer { CoreDataLayoutTests.cleanUp(url) }
        let warehouse = UUID(uuidString: "0A0B0C0D-0E0F-4010-8111-121314151617")!
        do {
            let context = ModelContext(try ModelContainer(for: Place.self, configurations: ModelConfiguration(url: url)))
            context.insert(Place(name: "Warehouse", address: PlaceAddress(
                street: "Quay 7", city: "Capital City", zip: nil, verified: true, id: warehouse,
                since: Date(timeIntervalSinceReferenceDate: 720_000_000.25), location: PlaceLocation(latitude: -33.5, longitude: 151))))
            let depot = try #require(try context.fetch(FetchDescriptor<Place>(predicate: #Predicate { $0.name == "Depot" })).first)
            depot.address.city = "Ogdenville"
            depot.address.zip = 9
            let office = try #require(try context.fetch(FetchDescriptor<Place>(predicate: #Predicate { $0.name == "Office" })).first)
            office.address.location = nil
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Place.self, configurations: ModelConfiguration(url: url, allowsSave: false)))
        let places = try context.fetch(FetchDescriptor<Place>(sortBy: [SortDescriptor(\.name)]))
        #expect(places.map(\.name) == ["Depot", "Office", "Warehouse"])
        #expect(places[0].address.city == "Ogdenville" && places[0].address.zip == 9 && places[0].address.location == nil)
        #expect(places[1].address.location == nil && places[1].address.id == Self.office && places[1].address.verified)
        #expect(places[2].address == PlaceAddress(
            street: "Quay 7", city: "Capital City", zip: nil, verified: true, id: warehouse,
            since: Date(timeIntervalSinceReferenceDate: 720_000_000.25), location: PlaceLocation(latitude: -33.5, longitude: 151)))
        // Each field in its own column, in Core Data's form: 0/1, seconds since 2001 (a whole number
        // of them kept as an integer by the column's numeric affinity), 16 bytes.
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZCITY, ZZIP, ZVERIFIED, typeof(ZSINCE), ZSINCE, ZID, ZLATITUDE, ZLONGITUDE FROM ZPLACE ORDER BY Z_PK") == [
            "1|1|2|Springfield|12345|1|real|700000000.5|\(Self.hex(Self.office))|NULL|NULL",
            "2|1|2|Ogdenville|9|0|integer|710000000|\(Self.hex(Self.depot))|NULL|NULL",
            "3|1|1|Capital City|NULL|1|real|720000000.25|\(Self.hex(warehouse))|-33.5|151.0",
        ])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_MAX FROM Z_PRIMARYKEY") == ["3"])
    }

    @Test func aFieldNeedingAnotherPropertysColumnIsRefusedByName() throws {
        let url = try CoreDataLayoutTests.file("Signs.sqlite", CoreDataLayoutTests.bookkeeping("Sign") + """
            CREATE TABLE ZSIGN ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZNAME1 VARCHAR );
            INSERT INTO ZSIGN VALUES (1, 1, 1, 'Exit', 'green');
            """)
        defer { CoreDataLayoutTests.cleanUp(url) }
        let before = try Data(contentsOf: url)
        let error = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: CompositeModels.Sign.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error == .unsupportedType)
        #expect(error?.description.contains("Sign.label.name and Sign.name both need the column ZNAME") == true, "\(String(describing: error))")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aMissingFieldColumnIsNamed() throws {
        let url = try CoreDataLayoutTests.file("Places.sqlite", CoreDataLayoutTests.bookkeeping("Place") + """
            CREATE TABLE ZPLACE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZSTREET VARCHAR, ZCITY VARCHAR );
            """)
        defer { CoreDataLayoutTests.cleanUp(url) }
        let error = #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Place.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(error == .schemaMismatch)
        #expect(error?.description.contains("Place.address.zip, a field of the composite attribute address, has no column ZZIP in ZPLACE") == true, "\(String(describing: error))")
    }
}
