import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

private typealias Article = CoreDataLayoutModels.Article
private typealias ArticleTag = CoreDataLayoutModels.Tag
private typealias Vehicle = CoreDataLayoutModels.Vehicle
private typealias Car = CoreDataLayoutModels.Car
private typealias Bike = CoreDataLayoutModels.Bike

/// Stores in Core Data's documented SQLite layout for what the SwiftData fixture lacks —
/// many-to-many relationships, an entity hierarchy in one table, dates, booleans, decimals, enums,
/// UUIDs, optionals and arrays — each built here by hand-written SQL that follows the layout
/// (not by OpenSwiftData), then read with the models' declarations.
@Suite struct CoreDataLayoutTests {
    static let storeUUID = "6F1C1A52-9B1E-4C55-8E1A-3D1E2B4C5A60"
    static let reference = UUID(uuidString: "0F8B2C1D-7E6A-4B3C-9D2E-1A0B9C8D7E6F")!

    /// A file in Core Data's layout holding two articles, three tags and three vehicles.
    static func buildStore() throws -> URL {
        let url = try file("Library.sqlite", """
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Article', 0, 2), (2, 'Bike', 5, 0), (3, 'Car', 5, 0), (4, 'Tag', 0, 3), (5, 'Vehicle', 0, 3);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_METADATA VALUES (1, '\(storeUUID)', NULL);
            CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB);
            CREATE TABLE ZARTICLE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZISFEATURED INTEGER, ZRATING FLOAT,
                ZPUBLISHED TIMESTAMP, ZREVISED TIMESTAMP, ZPRICE DECIMAL, ZREFERENCE BLOB, ZSTATUS VARCHAR, ZSUBTITLE VARCHAR,
                ZTITLE VARCHAR, ZKEYWORDS BLOB );
            CREATE TABLE ZTAG ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR );
            CREATE TABLE Z_1TAGS ( Z_1ARTICLES INTEGER, Z_4TAGS INTEGER, PRIMARY KEY (Z_1ARTICLES, Z_4TAGS) );
            CREATE INDEX Z_1TAGS_Z_4TAGS_INDEX ON Z_1TAGS (Z_4TAGS, Z_1ARTICLES);
            CREATE TABLE ZVEHICLE ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZGEARS INTEGER, ZDOORS INTEGER );
            INSERT INTO ZTAG VALUES (1, 4, 1, 'swift'), (2, 4, 1, 'linux'), (3, 4, 1, 'unused');
            INSERT INTO Z_1TAGS VALUES (1, 1), (1, 2), (2, 1);
            INSERT INTO ZVEHICLE VALUES (1, 3, 1, 'Beetle', NULL, 2), (2, 2, 1, 'Brompton', 6, NULL), (3, 5, 1, 'Cart', NULL, NULL);
            """)
        let connection = try SQLiteConnection(path: url.path, readOnly: false, create: false)
        let keywords = PropertyListEncoder()
        keywords.outputFormat = .binary
        let insert = "INSERT INTO ZARTICLE VALUES (?1, 1, 1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
        _ = try connection.execute(insert, bindings: [
            .integer(1), .integer(1), .real(4.5), .real(700_000_000.5), .null, .real(12.5), .blob(withUnsafeBytes(of: reference.uuid) { Data($0) }),
            .text("published"), .null, .text("Swift on Linux"), .blob(try keywords.encode(["swift", "linux"])),
        ])
        _ = try connection.execute(insert, bindings: [
            .integer(2), .integer(0), .real(3), .real(710_000_000), .real(710_000_100.25), .real(19.99), .blob(Data(repeating: 7, count: 16)),
            .text("draft"), .text("the layout"), .text("Core Data inside"), .blob(try keywords.encode([String]())),
        ])
        return url
    }

    /// A file `name` in a folder of its own (removed by ``cleanUp(_:)``), made by `sql`.
    static func file(_ name: String, _ sql: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-coredata-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(name)
        try SQLiteConnection(path: url.path, readOnly: false, create: true).execute(sql)
        return url
    }

    /// `Z_PRIMARYKEY` and `Z_METADATA` of a file with one entity `name`.
    static func bookkeeping(_ name: String) -> String {
        """
        CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
        INSERT INTO Z_PRIMARYKEY VALUES (1, '\(name)', 0, 1);
        CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
        INSERT INTO Z_METADATA VALUES (1, '\(storeUUID)', NULL);
        """
    }

    private static func open() throws -> (ModelContainer, URL) {
        let url = try buildStore()
        return (try ModelContainer(for: Schema(CoreDataLayoutModels.types), configurations: ModelConfiguration(url: url, allowsSave: false)), url)
    }

    static func cleanUp(_ url: URL) {
        try? FileManager.default.removeItem(at: url.deletingLastPathComponent())
    }

    @Test func valuesReadBackAsCoreDataStoresThem() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let articles = try ModelContext(container).fetch(FetchDescriptor<Article>(sortBy: [SortDescriptor(\.published)]))
        #expect(articles.count == 2)
        let first = try #require(articles.first), second = try #require(articles.last)
        #expect(first.title == "Swift on Linux")
        #expect(first.subtitle == nil)
        #expect(first.published == Date(timeIntervalSinceReferenceDate: 700_000_000.5))
        #expect(first.revised == nil)
        #expect(first.rating == 4.5)
        #expect(first.isFeatured)
        #expect(first.price == Decimal(string: "12.5"))
        #expect(first.status == .published)
        #expect(first.reference == Self.reference)
        #expect(first.keywords == ["swift", "linux"])
        #expect(second.subtitle == "the layout")
        #expect(second.revised == Date(timeIntervalSinceReferenceDate: 710_000_100.25))
        #expect(second.isFeatured == false)
        #expect(second.price == Decimal(string: "19.99"))
        #expect(second.status == .draft)
        #expect(second.keywords.isEmpty)
        #expect(first.persistentModelID.storeIdentifier == Self.storeUUID)
    }

    @Test func manyToManyReadsBothWays() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let articles = try context.fetch(FetchDescriptor<Article>(sortBy: [SortDescriptor(\.title)]))
        #expect(articles.map { $0.tags.map(\.name).sorted() } == [["swift"], ["linux", "swift"]])
        let tags = try context.fetch(FetchDescriptor<ArticleTag>(sortBy: [SortDescriptor(\.name)]))
        #expect(tags.map { $0.articles.map(\.title).sorted() } == [["Swift on Linux"], ["Core Data inside", "Swift on Linux"], []])
    }

    @Test func anEntityHierarchyReadsFromOneTable() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let vehicles = try context.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)]))
        #expect(vehicles.map { String(describing: type(of: $0)) } == ["Car", "Bike", "Vehicle"])
        #expect((vehicles[0] as? Car)?.doors == 2)
        #expect((vehicles[1] as? Bike)?.gears == 6)
        #expect(try context.fetch(FetchDescriptor<Car>()).map(\.name) == ["Beetle"])
        #expect(try context.fetchCount(FetchDescriptor<Bike>()) == 1)
        let cars = try context.fetch(FetchDescriptor<Vehicle>(predicate: #Predicate { $0 is Car }))
        #expect(cars.map(\.name) == ["Beetle"])
    }

    @Test func predicatesSelectWhatEvaluatingThemSelects() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Article>())
        let day = Date(timeIntervalSinceReferenceDate: 705_000_000)
        let limit = Decimal(15)
        let predicates: [Predicate<Article>] = [
            #Predicate { $0.published > day },
            #Predicate { $0.isFeatured },
            #Predicate { $0.price > limit },
            #Predicate { $0.rating >= 4 },
            #Predicate { $0.subtitle == nil },
            #Predicate { $0.revised != nil },
            #Predicate { $0.tags.contains { $0.name == "linux" } },
            #Predicate { $0.title.localizedStandardContains("core") },
        ]
        for predicate in predicates {
            let fetched = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.title)])).map(\.title)
            let evaluated = try all.filter { try predicate.evaluate($0) }.map(\.title).sorted()
            #expect(fetched == evaluated, "\(predicate)")
        }
        let reference = Self.reference
        #expect(try context.fetch(FetchDescriptor<Article>(predicate: #Predicate { $0.reference == reference })).map(\.title) == ["Swift on Linux"])
        #expect(try context.fetchCount(FetchDescriptor<ArticleTag>(predicate: #Predicate { $0.articles.isEmpty })) == 1)
    }

    @Test func aPredicateInsideAPropertyListIsRefusedByName() throws {
        let (container, url) = try Self.open()
        defer { Self.cleanUp(url) }
        let error = #expect(throws: SwiftDataError.self) {
            try ModelContext(container).fetch(FetchDescriptor<Article>(predicate: #Predicate { $0.keywords.contains("swift") }))
        }
        #expect(error?.description.contains("Article.keywords is kept as a binary property list") == true, "\(String(describing: error))")
    }

    @Test func theInspectionCountsEachEntityOfAHierarchy() throws {
        let url = try Self.buildStore()
        defer { Self.cleanUp(url) }
        let file = try CoreDataStoreFile(contentsOf: url)
        #expect(file.entities.map { "\($0.name) \($0.count) \($0.table) \($0.superentity ?? "-")" }
            == ["Article 2 ZARTICLE -", "Bike 1 ZVEHICLE Vehicle", "Car 1 ZVEHICLE Vehicle", "Tag 3 ZTAG -", "Vehicle 1 ZVEHICLE -"])
        #expect(file.transactionCount == 0)
        // An OpenSwiftData store is not in Core Data's layout.
        let own = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: own) }
        _ = try ModelContainer(for: Schema([ArticleTag.self]), configurations: ModelConfiguration(url: own))
        let error = #expect(throws: SwiftDataError.self) { try CoreDataStoreFile(contentsOf: own) }
        #expect(error?.description.contains("not in Core Data's layout") == true, "\(String(describing: error))")
        let missing = #expect(throws: SwiftDataError.self) { try CoreDataStoreFile(contentsOf: own.appendingPathExtension("missing")) }
        #expect(missing?.description.contains("there is no file") == true)
    }

    @Test func theInspectionQuotesTableNamesItReadsFromTheFile() throws {
        let url = try Self.buildStore()
        defer { Self.cleanUp(url) }
        // An entity whose name would close the quotes around its table's name and add a query.
        _ = try CoreDataFileRows.read(url, #"INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (99, 'Tag" UNION SELECT 1000 --', 0, 0)"#)
        _ = try CoreDataFileRows.read(url, #"CREATE TABLE "ZTAG"" UNION SELECT 1000 --" (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, ZNAME VARCHAR)"#)
        let file = try CoreDataStoreFile(contentsOf: url)
        let crafted = try #require(file.entities.first { $0.name.hasPrefix("Tag\"") })
        #expect(crafted.count == 0)
        #expect(file.entities.first { $0.name == "Tag" }?.count == 3)
    }

    @Test func savesAreWrittenInTheLayoutAndReadBack() throws {
        let url = try Self.buildStore()
        defer { Self.cleanUp(url) }
        let published = Date(timeIntervalSinceReferenceDate: 720_000_000.25)
        do {
            let context = ModelContext(try ModelContainer(for: Schema(CoreDataLayoutModels.types), configurations: ModelConfiguration(url: url)))
            let tags = try context.fetch(FetchDescriptor<ArticleTag>(sortBy: [SortDescriptor(\.name)]))
            let linux = tags[0], swift = tags[1]
            let article = Article(title: "Servers", published: published, rating: 5, isFeatured: true, price: Decimal(string: "9.95") ?? 0, status: .draft, reference: Self.reference)
            article.keywords = ["server", "linux"]
            let server = ArticleTag(name: "server")
            context.insert(article)
            article.tags = [linux, server]
            context.insert(Car(name: "Van", doors: 4))
            let first = try #require(try context.fetch(FetchDescriptor<Article>(predicate: #Predicate { $0.title == "Swift on Linux" })).first)
            first.tags.removeAll { $0 === swift }
            first.subtitle = "revised"
            first.keywords.append("sqlite")
            try context.delete(model: Bike.self)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(CoreDataLayoutModels.types), configurations: ModelConfiguration(url: url, allowsSave: false)))
        let articles = try context.fetch(FetchDescriptor<Article>(sortBy: [SortDescriptor(\.title)]))
        #expect(articles.map(\.title) == ["Core Data inside", "Servers", "Swift on Linux"])
        let servers = articles[1], first = articles[2]
        #expect(servers.published == published)
        #expect(servers.price == Decimal(string: "9.95"))
        #expect(servers.keywords == ["server", "linux"])
        #expect(servers.status == .draft && servers.isFeatured && servers.subtitle == nil && servers.reference == Self.reference)
        #expect(servers.tags.map(\.name).sorted() == ["linux", "server"])
        #expect(first.tags.map(\.name) == ["linux"])
        #expect(first.subtitle == "revised")
        #expect(first.keywords == ["swift", "linux", "sqlite"])
        #expect(try context.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.name)])).map { "\(type(of: $0)) \($0.name)" } == ["Car Beetle", "Vehicle Cart", "Car Van"])

        // Keys from the top entity's counter (a car's from Vehicle's), the entity number in every
        // row, saves counted, pairs in the join table, values as Core Data stores them.
        #expect(try CoreDataFileRows.read(url, "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT") == ["Article|3", "Bike|0", "Car|0", "Tag|4", "Vehicle|4"])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZDOORS FROM ZVEHICLE ORDER BY Z_PK") == ["1|3|1|Beetle|2", "3|5|1|Cart|NULL", "4|3|1|Van|4"])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_1ARTICLES, Z_4TAGS FROM Z_1TAGS ORDER BY 1, 2") == ["1|2", "2|1", "3|2", "3|4"])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, Z_ENT, Z_OPT FROM ZARTICLE ORDER BY Z_PK") == ["1|1|2", "2|1|1", "3|1|1"])
        #expect(try CoreDataFileRows.read(url, "SELECT typeof(ZPUBLISHED), ZPUBLISHED, typeof(ZPRICE), typeof(ZREFERENCE), ZISFEATURED, substr(ZKEYWORDS, 1, 6) FROM ZARTICLE WHERE Z_PK = 3")
            == ["real|720000000.25|real|blob|1|62706C697374"])
        #expect(try CoreDataFileRows.read(url, "SELECT Z_PK, Z_ENT, Z_OPT, ZNAME FROM ZTAG WHERE Z_PK = 4") == ["4|4|1|server"])
    }
}
