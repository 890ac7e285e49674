#if PostgreSQL
import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import PostgresNIO
import TestModels
import JSONStore
import Logging

/// What only the PostgreSQL store has: namespaces, several containers (several servers) on one
/// database, and errors at container creation. The behaviour every store shares runs against it
/// in the shared suites (``StoreKind/postgres``).
@Suite(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
struct PostgresStoreTests {
    /// A fresh namespace, dropped when the test ends.
    private final class Namespace {
        let name = PostgresServer.newNamespace()
        func configuration(_ allowsSave: Bool = true) throws -> PostgresConfiguration {
            PostgresConfiguration("shop", url: try #require(PostgresServer.url), postgresSchema: name, allowsSave: allowsSave)
        }
        deinit { PostgresServer.drop(name) }
    }

    /// `PostgresStore` through the `DataStore` API, behind a decorator: what a context saves as
    /// snapshots (relationships on both sides, a unique upsert, a move, a delete) reads back the
    /// same through the store's own container.
    /// History numbers are transaction ids, and a read shows only those below the oldest write
    /// still running — of this store's writers, not of every transaction on the server.
    @Test func historyReadsDoNotWaitForUnrelatedTransactions() throws {
        let store = try TestStore(.postgres, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 1))
        try context.save()
        let token = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        // Another session's write transaction (it touches nothing of this store) stays open.
        let other = try PostgresConnectionPool(url: try PostgresURL(try #require(PostgresServer.url)), maximum: 1, connectTimeout: .seconds(5))
        let connection = try other.acquire()
        defer {
            _ = try? other.run("ROLLBACK", on: connection)
            other.release(connection)
            other.shutDown()
        }
        _ = try other.run("BEGIN", on: connection)
        _ = try other.run("SELECT txid_current()", on: connection)

        context.insert(Expense(amount: 2))
        try context.save()
        let newer = try ModelContext(store.container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(newer.count == 1)
        #expect(newer.first?.changes.count == 1)
    }

    @Test func thePostgresStoreAnswersThroughTheDataStoreAPI() throws {
        let namespace = Namespace()
        var logger = Logger(label: "tests")
        logger.logLevel = .critical
        let schema = Schema([Expense.self, Category.self, Tag.self, Course.self, Pupil.self])
        let decorated = try ModelContainer(for: schema, configurations: LoggingStoreConfiguration(wrapping: try namespace.configuration(), logger: logger))
        let context = ModelContext(decorated)
        let food = Category(name: "Food"), travel = Category(name: "Travel")
        let lunch = Expense(amount: 5, category: food), train = Expense(amount: 30, category: food)
        let maths = Course(title: "Maths"), ada = Pupil(name: "Ada")
        context.insert(lunch)
        context.insert(train)
        context.insert(travel)
        context.insert(Tag(name: "swift", uses: 1))
        context.insert(maths)
        ada.courses.append(maths)
        context.insert(ada)
        try context.save()
        train.category = travel
        context.insert(Tag(name: "swift", uses: 5))
        try context.save()
        context.delete(lunch)
        try context.save()

        let plain = ModelContext(try ModelContainer(for: schema, configurations: try namespace.configuration()))
        #expect(try plain.fetch(FetchDescriptor<Expense>()).map { "\($0.amount) \($0.category?.name ?? "-")" } == ["30.0 Travel"])
        #expect(try plain.fetch(FetchDescriptor<Category>(sortBy: [SortDescriptor(\.name)])).map(\.expenses.count) == [0, 1])
        #expect(try plain.fetch(FetchDescriptor<Tag>()).map(\.uses) == [5])
        #expect(try plain.fetch(FetchDescriptor<Course>()).first?.pupils.map(\.name) == ["Ada"])
        // And the decorated container reads the same from the store's snapshots.
        #expect(try ModelContext(decorated).fetch(FetchDescriptor<Pupil>()).first?.courses.map(\.title) == ["Maths"])
    }

    /// A new store keeps UUIDs in `uuid` columns and decimals in `numeric` ones (every digit, NaN
    /// included); dates stay seconds in `DOUBLE PRECISION`, so they read back exactly.
    @Test func uuidsAndDecimalsLiveInColumnsOfTheirOwnType() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Sample.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        let id = UUID()
        let big = try #require(Decimal(string: "12345678901234567890.123456789012345678", locale: Locale(identifier: "en_US_POSIX")))
        let tiny = try #require(Decimal(string: "-0.000000000000000000000000001", locale: Locale(identifier: "en_US_POSIX")))
        let when = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789)
        context.insert(Sample(int: 1, decimal: big, date: when, uuid: id, optionalUUID: id))
        context.insert(Sample(int: 2, decimal: tiny))
        context.insert(Sample(int: 3, decimal: .nan))
        try context.save()

        let types = try PostgresServer.columnTypes("Sample", in: namespace.name)
        #expect(types["decimal"] == "numeric" && types["uuid"] == "uuid" && types["optionalUUID"] == "uuid")
        #expect(types["date"] == "double precision")

        let fresh = ModelContext(try ModelContainer(for: Sample.self, configurations: try namespace.configuration()))
        let all = try fresh.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        #expect(all.count == 3)
        #expect(all.first?.decimal == big && all.first?.uuid == id && all.first?.optionalUUID == id && all.first?.date == when)
        #expect(all.dropFirst().first?.decimal == tiny)
        #expect(all.last?.decimal.isNaN == true)
        #expect(try fresh.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.uuid == id })).map(\.int) == [1])
        let threshold = Decimal(1000)
        #expect(try fresh.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.decimal > threshold })).map(\.int) == [1])
        #expect(try fresh.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.optionalUUID == nil }, sortBy: [SortDescriptor(\.int)])).map(\.int) == [2, 3])
    }

    /// With `storesDatesAsTimestamps`, dates live in `timestamptz` columns: whole microseconds read
    /// back exactly, a finer part rounds to the nearest microsecond, predicates compare times, and a
    /// date no `timestamptz` holds is refused with nothing saved.
    @Test func datesCanLiveInTimestampColumns() throws {
        let namespace = Namespace()
        var configuration = try namespace.configuration()
        configuration.storesDatesAsTimestamps = true
        let container = try ModelContainer(for: Sample.self, configurations: configuration)
        let context = ModelContext(container)
        let exact = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456)
        let finer = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
        let early = Date(timeIntervalSinceReferenceDate: -3_000_000_000.5)
        context.insert(Sample(int: 1, date: exact, optionalDate: early))
        context.insert(Sample(int: 2, date: finer))
        try context.save()
        #expect(try PostgresServer.columnTypes("Sample", in: namespace.name)["date"] == "timestamp with time zone")

        let fresh = ModelContext(try ModelContainer(for: Sample.self, configurations: try namespace.configuration()))
        let all = try fresh.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        #expect(all.map(\.date) == [exact, Date(timeIntervalSinceReferenceDate: 123_456_789.123_457)])
        #expect(all.first?.optionalDate == early)
        let cut = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_5)
        #expect(try fresh.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.date < cut })).map(\.int) == [1])

        fresh.insert(Sample(int: 3, date: Date(timeIntervalSinceReferenceDate: .infinity)))
        #expect(throws: SwiftDataError.self) { try fresh.save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Sample>()) == 2)
    }

    /// A store created before UUIDs and decimals had columns of their own (bytes and text) keeps
    /// them so: it reads, writes and filters them as before, and new columns are made alike.
    @Test func aStoreFromBeforeTypedColumnsKeepsItsForms() throws {
        let namespace = Namespace()
        let id = UUID()
        do {
            let context = ModelContext(try ModelContainer(for: Sample.self, configurations: try namespace.configuration()))
            context.insert(Sample(int: 1, decimal: 19.99, uuid: id))
            try context.save()
        }
        // The columns as the earlier version made them, and no record of typed values.
        try PostgresServer.execute([
            #"ALTER TABLE "Sample" ALTER COLUMN "decimal" TYPE TEXT USING "decimal"::text"#,
            #"ALTER TABLE "Sample" ALTER COLUMN "uuid" TYPE BYTEA USING decode(replace("uuid"::text, '-', ''), 'hex')"#,
            #"ALTER TABLE "Sample" ALTER COLUMN "optionalUUID" TYPE BYTEA USING decode(replace("optionalUUID"::text, '-', ''), 'hex')"#,
            #"DELETE FROM "Z_METADATA" WHERE "Z_KEY" = 'typed values'"#,
        ], in: namespace.name)
        let container = try ModelContainer(for: Sample.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        let other = UUID()
        context.insert(Sample(int: 2, decimal: 5, uuid: other))
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)])).map(\.uuid) == [id, other])
        #expect(try fresh.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.uuid == id })).map(\.decimal) == [19.99])
        let types = try PostgresServer.columnTypes("Sample", in: namespace.name)
        #expect(types["uuid"] == "bytea" && types["decimal"] == "text")

        // The move the PostgreSQL article documents, then the store reads as a new one would.
        try PostgresServer.execute([
            #"ALTER TABLE "Sample" ALTER COLUMN "uuid" TYPE UUID USING encode("uuid", 'hex')::uuid"#,
            #"ALTER TABLE "Sample" ALTER COLUMN "optionalUUID" TYPE UUID USING encode("optionalUUID", 'hex')::uuid"#,
            #"ALTER TABLE "Sample" ALTER COLUMN "decimal" TYPE NUMERIC USING "decimal"::numeric"#,
            #"INSERT INTO "Z_METADATA" ("Z_KEY", "Z_VALUE") VALUES ('typed values', 'decimal,uuid')"#,
        ], in: namespace.name)
        let moved = ModelContext(try ModelContainer(for: Sample.self, configurations: try namespace.configuration()))
        #expect(try moved.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.uuid == other })).map(\.decimal) == [5])
        moved.insert(Sample(int: 3, decimal: .nan, uuid: id))
        try moved.save()
        #expect(try moved.fetch(FetchDescriptor<Sample>(predicate: #Predicate { $0.uuid == id }, sortBy: [SortDescriptor(\.int)])).map(\.int) == [1, 3])
        #expect(try PostgresServer.columnTypes("Sample", in: namespace.name)["uuid"] == "uuid")
    }

    @Test func namespacesKeepTheirOwnModels() throws {
        let first = Namespace(), second = Namespace()
        let one = try ModelContainer(for: Expense.self, Category.self, configurations: try first.configuration())
        let two = try ModelContainer(for: Expense.self, Category.self, configurations: try second.configuration())
        let context = ModelContext(one)
        context.insert(Expense(amount: 12.5, note: "lunch"))
        try context.save()
        #expect(try ModelContext(one).fetchCount(FetchDescriptor<Expense>()) == 1)
        #expect(try ModelContext(two).fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test func containersOnOneDatabaseSeeEachOthersCommits() throws {
        let namespace = Namespace()
        let (serverA, serverB) = try twoServers(namespace)
        let writer = ModelContext(serverA)
        let food = Category(name: "Food")
        writer.insert(food)
        writer.insert(Expense(amount: 4.2, note: "bread", category: food))
        try writer.save()

        let reader = ModelContext(serverB)
        let expenses = try reader.fetch(FetchDescriptor<Expense>())
        #expect(expenses.map(\.note) == ["bread"])
        #expect(expenses.first?.category?.name == "Food")
        #expect(serverA.stores[0].identifier == serverB.stores[0].identifier)
    }

    @Test func concurrentSavesFromSeveralContainersGetDistinctKeys() throws {
        let namespace = Namespace()
        let containers = try (0..<3).map { _ in try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration()) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            let context = ModelContext(containers[worker % containers.count])
            for round in 0..<5 {
                for item in 0..<4 { context.insert(Expense(amount: Double(worker * 100 + round * 10 + item))) }
                do { try context.save() } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let amounts = try ModelContext(containers[0]).fetch(FetchDescriptor<Expense>()).map(\.amount)
        #expect(amounts.count == 6 * 5 * 4)
        #expect(Set(amounts).count == amounts.count)
    }

    /// Two containers (two application servers) on one namespace.
    private func twoServers(_ namespace: Namespace) throws -> (ModelContainer, ModelContainer) {
        (try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration()),
         try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration()))
    }

    /// Two containers (two application servers) on one namespace holding one expense.
    private func twoServersWithOneExpense(_ namespace: Namespace) throws -> (ModelContainer, ModelContainer) {
        let (serverA, serverB) = try twoServers(namespace)
        let setup = ModelContext(serverA)
        setup.insert(Expense(amount: 10, note: "first"))
        try setup.save()
        return (serverA, serverB)
    }

    @Test func theSamePropertyChangedOnTwoServersIsAConflictNotALostUpdate() throws {
        let namespace = Namespace()
        let (serverA, serverB) = try twoServersWithOneExpense(namespace)
        let a = ModelContext(serverA), b = ModelContext(serverB)
        let onA = try #require(try a.fetch(FetchDescriptor<Expense>()).first)
        let onB = try #require(try b.fetch(FetchDescriptor<Expense>()).first)
        onA.note = "from A"
        try a.save()
        onB.note = "from B"
        do {
            try b.save()
            Issue.record("server B overwrote server A's change without an error")
        } catch let error as SwiftDataError {
            #expect(error == .mergeConflict)
            #expect(error.message.contains("note"), "\(error.message)")
        }
        #expect(try ModelContext(serverA).fetch(FetchDescriptor<Expense>()).map(\.note) == ["from A"])

        // Starting again from what is stored, the change goes through.
        b.rollback()
        let retry = ModelContext(serverB)
        let again = try #require(try retry.fetch(FetchDescriptor<Expense>()).first)
        again.note = "from B"
        try retry.save()
        #expect(try ModelContext(serverA).fetch(FetchDescriptor<Expense>()).map(\.note) == ["from B"])
    }

    /// A save changing many rows sends them together (many rows a statement); every row is
    /// still checked alone: one conflicting row fails the whole save, naming that row, and a
    /// `nil` among the values is stored as `nil`.
    @Test func manyRowsChangedInOneSaveAreCheckedRowByRow() throws {
        let namespace = Namespace()
        let (serverA, serverB) = try twoServers(namespace)
        let setup = ModelContext(serverA)
        let food = Category(name: "food")
        for number in 0..<50 { setup.insert(Expense(amount: Double(number), note: "n\(number)", category: food)) }
        try setup.save()

        // All rows at once, values and nils mixed in one statement.
        let a = ModelContext(serverA)
        let onA = try a.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        for expense in onA {
            expense.note = expense.amount < 25 ? nil : "late \(Int(expense.amount))"
            expense.category = expense.amount < 10 ? nil : expense.category
        }
        let b = ModelContext(serverB)
        let onB = try b.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        try a.save()
        let stored = try ModelContext(serverB).fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(stored.map(\.note) == (0..<50).map { $0 < 25 ? nil : "late \($0)" })
        #expect(stored.map { $0.category?.name } == (0..<50).map { $0 < 10 ? nil : "food" })

        // Server B read the notes before A changed them: its save of all of them conflicts, and
        // stores nothing — not even the amounts it changed alone.
        for expense in onB {
            expense.amount += 1000
            if expense.amount == 1030 { expense.note = "from B" }
        }
        do {
            try b.save()
            Issue.record("server B overwrote a note server A changed")
        } catch let error as SwiftDataError {
            #expect(error == .mergeConflict)
            #expect(error.message.contains("note"), "\(error.message)")
        }
        let after = try ModelContext(serverA).fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(after.map(\.amount) == (0..<50).map(Double.init))
        #expect(after[30].note == "late 30")

        // A row deleted by the other server is reported as gone.
        b.rollback()
        let c = ModelContext(serverB)
        let onC = try c.fetch(FetchDescriptor<Expense>())
        let doomed = ModelContext(serverA)
        try doomed.delete(model: Expense.self, where: #Predicate { $0.amount == 7 })
        try doomed.save()
        for expense in onC { expense.amount += 1 }
        #expect(throws: SwiftDataError.modelNotFound) { try c.save() }
        #expect(try ModelContext(serverA).fetchCount(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount >= 1000 })) == 0)
    }

    @Test func changesToDifferentPropertiesOnTwoServersMerge() throws {
        let namespace = Namespace()
        let (serverA, serverB) = try twoServersWithOneExpense(namespace)
        let a = ModelContext(serverA), b = ModelContext(serverB)
        let onA = try #require(try a.fetch(FetchDescriptor<Expense>()).first)
        let onB = try #require(try b.fetch(FetchDescriptor<Expense>()).first)
        onA.note = "lunch"
        onB.amount = 12.5
        try a.save()
        try b.save()
        let stored = try ModelContext(serverA).fetch(FetchDescriptor<Expense>())
        #expect(stored.map(\.note) == ["lunch"])
        #expect(stored.map(\.amount) == [12.5])
    }

    @Test func uniqueUpsertsRacingFromSeveralServersLeaveOneRowEach() throws {
        let namespace = Namespace()
        let servers = try (0..<2).map { _ in try ModelContainer(for: Tag.self, configurations: try namespace.configuration()) }
        let failures = Locked<[String]>([])
        // Four workers on two servers insert the same ten names, each in its own saves.
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let context = ModelContext(servers[worker % 2])
            for round in 0..<10 {
                context.insert(Tag(name: "tag \(round)", uses: worker))
                do { try context.save() } catch { failures.withLock { $0.append("\(error)") } }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let names = try ModelContext(servers[0]).fetch(FetchDescriptor<Tag>()).map(\.name)
        #expect(names.sorted() == (0..<10).map { "tag \($0)" }.sorted())
    }

    @Test func canonicallyEqualStringsAreOneUniqueValue() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Tag.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        context.insert(Tag(name: "Jos\u{e9}", uses: 1))
        try context.save()
        let other = ModelContext(container)
        other.insert(Tag(name: "Jose\u{301}", uses: 2))
        try other.save()
        let tags = try ModelContext(container).fetch(FetchDescriptor<Tag>())
        #expect(tags.count == 1)
        #expect(tags.first?.uses == 2)
    }

    @Test func modelActorsOutnumberingConnectionsNeverDeadlock() async throws {
        let namespace = Namespace()
        var configuration = try namespace.configuration()
        configuration.maximumConnections = 2
        let container = try ModelContainer(for: Tick.self, configurations: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    try await ConcurrencyTests.TickWriter(modelContainer: container).write(writer: writer, count: 30, saveEvery: 10)
                }
            }
            try await group.waitForAll()
        }
        let ticks = try ModelContext(container).fetch(FetchDescriptor<Tick>())
        #expect(Set(ticks.map { [$0.writer, $0.sequence] }).count == 8 * 30)
    }

    @Test func aServerRestartBetweenSavesCostsOneErrorAtMost() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        context.insert(Expense(amount: 1))
        try context.save()
        // End every session of this store, as a restart of the server would.
        let address = try PostgresURL(try #require(PostgresServer.url))
        let admin = try PostgresConnectionPool(url: address, maximum: 1, connectTimeout: .seconds(5))
        defer { admin.shutDown() }
        var binds = PostgresBindings()
        binds.append("OpenSwiftData \(namespace.name)")
        let ended = try admin.withConnection { connection in
            try admin.run(PostgresQuery(unsafeSQL: "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", binds: binds), on: connection).count
        }
        #expect(ended >= 1)
        var failures: [SwiftDataError] = []
        for amount in 2...3 {
            context.insert(Expense(amount: Double(amount)))
            do { try context.save() } catch let error as SwiftDataError { failures.append(error) }
        }
        #expect(failures.count <= 1)
        #expect(failures.allSatisfy { $0 == .storeIO && $0.message.contains("PostgreSQL") }, "\(failures)")
        let amounts = try ModelContext(container).fetch(FetchDescriptor<Expense>()).map(\.amount).sorted()
        #expect(amounts.last == 3)
    }

    /// A large save goes up as arrays, 10,000 rows a statement: 12,500 rows are two statements,
    /// with keys and references bound in each, inserted and then all updated.
    @Test func aLargeSaveGoesUpInArraysAndReadsBackExactly() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        let categories = (0..<3).map { Category(name: "c\($0)") }
        let count = 12_500
        for number in 0..<count {
            context.insert(Expense(amount: Double(number), note: number.isMultiple(of: 7) ? nil : "n\(number)", category: categories[number % 3]))
        }
        try context.save()
        let fresh = ModelContext(container)
        let expenses = try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(expenses.map(\.amount) == (0..<count).map(Double.init))
        #expect(expenses.map(\.note) == (0..<count).map { $0.isMultiple(of: 7) ? nil : "n\($0)" })
        #expect(expenses.map { $0.category?.name } == (0..<count).map { "c\($0 % 3)" })
        #expect(Set(expenses.map(\.persistentModelID)).count == count)

        for expense in expenses {
            expense.note = expense.note == nil ? "was nil" : nil
            expense.amount += 0.5
        }
        try fresh.save()
        let updated = try ModelContext(container).fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)]))
        #expect(updated.map(\.amount) == (0..<count).map { Double($0) + 0.5 })
        #expect(updated.map(\.note) == (0..<count).map { $0.isMultiple(of: 7) ? "was nil" : nil })
    }

    /// Rows of large values go up in as many statements as keep each under 32 MB (here two for
    /// three rows of 20 MB), inserted and updated, every row read back whole.
    @Test func largeValuesGoUpInStatementsOfBoundedSize() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Sample.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        let blobs = (0..<3).map { Data(repeating: UInt8($0 + 1), count: 20 << 20) }
        for (number, blob) in blobs.enumerated() { context.insert(Sample(int: number, data: blob)) }
        try context.save()
        func stored() throws -> [Data] {
            try ModelContext(container).fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)])).map(\.data)
        }
        #expect(try stored() == blobs)
        let texts = (0..<3).map { String(repeating: "x\($0)", count: 10 << 20) }
        let samples = try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        for (sample, text) in zip(samples, texts) {
            sample.text = text
            sample.data = Data([UInt8(sample.int)])
        }
        try context.save()
        let fresh = try ModelContext(container).fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        #expect(fresh.map(\.text) == texts)
        #expect(fresh.map(\.data) == [Data([0]), Data([1]), Data([2])])
    }

    /// Every kind of value — typed dates, decimals (NaN too) and UUIDs, bytes, text with quotes,
    /// commas and braces, special doubles, and nils among values — goes up in arrays, inserted and
    /// updated, and reads back exactly.
    @Test func everyKindOfValueGoesUpInArraysAndReadsBackExactly() throws {
        let namespace = Namespace()
        var configuration = try namespace.configuration()
        configuration.storesDatesAsTimestamps = true
        let container = try ModelContainer(for: Sample.self, configurations: configuration)
        let context = ModelContext(container)
        let texts = ["plain", "a,\"b\"{c}\\d", "", "Jos\u{e9} \u{1F600}", "NULL"]
        let decimals: [Decimal] = [Decimal(string: "12345678901234567890.123456789")!, .nan, -0.001, 0]
        let doubles: [Double] = [.infinity, -.infinity, -0.0, 1e-300, .greatestFiniteMagnitude]
        func describe(_ sample: Sample) -> String {
            [String(sample.int), String(describing: sample.decimal), sample.text, sample.double.isNaN ? "nan" : String(sample.double),
             String(sample.date.timeIntervalSinceReferenceDate), sample.data.base64EncodedString(), sample.uuid.uuidString,
             String(describing: sample.optionalText), String(describing: sample.optionalDate?.timeIntervalSinceReferenceDate),
             String(describing: sample.optionalUUID), String(describing: sample.optionalInt)].joined(separator: "|")
        }
        var expected: [String] = []
        for number in 0..<40 {
            let sample = Sample(
                int: number, double: doubles[number % doubles.count], decimal: decimals[number % decimals.count], text: texts[number % texts.count],
                date: Date(timeIntervalSinceReferenceDate: Double(number) * 86_400.25), data: Data((0..<number % 4).map { UInt8($0 * 80) }),
                optionalInt: number.isMultiple(of: 3) ? nil : number, optionalText: number.isMultiple(of: 2) ? nil : texts[number % texts.count],
                optionalDate: number.isMultiple(of: 5) ? Date(timeIntervalSinceReferenceDate: -1e9) : nil, optionalUUID: number.isMultiple(of: 4) ? UUID() : nil)
            context.insert(sample)
            expected.append(describe(sample))
        }
        try context.save()
        func stored() throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)])).map(describe)
        }
        #expect(try stored() == expected)

        let samples = try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        for sample in samples {
            sample.decimal = sample.decimal.isNaN ? 1 : .nan
            sample.text = texts[(sample.int + 1) % texts.count]
            sample.optionalText = sample.optionalText == nil ? "set" : nil
            sample.optionalDate = sample.optionalDate == nil ? Date(timeIntervalSinceReferenceDate: 5e8) : nil
            sample.optionalUUID = sample.optionalUUID == nil ? UUID() : nil
        }
        try context.save()
        #expect(try stored() == samples.map(describe))

        // A value no column holds fails the whole save, and nothing changes.
        let before = try stored()
        for sample in samples { sample.int += 1000 }
        samples[20].date = Date(timeIntervalSinceReferenceDate: .infinity)
        #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(try stored() == before)
    }

    /// A save's rows of small values go up as one `COPY`, whose text form must say exactly what
    /// the binary parameters say: COPY's escape characters in text, special and tiny doubles,
    /// dates to the microsecond at both ends of the years it writes, empty and binary bytes.
    /// Rows it cannot write (a date before the year 1) and rows of large values go up as arrays.
    @Test func rowsOfSmallValuesGoUpAsOneCopyAndReadBackExactly() throws {
        let namespace = Namespace()
        var configuration = try namespace.configuration()
        configuration.storesDatesAsTimestamps = true
        let container = try ModelContainer(for: Sample.self, configurations: configuration)
        let store = try #require(container.stores.first as? SQLStore)
        let texts = ["tab\there", "line\nbreak\r\n", "back\\slash", "\\N", "\\.", "\\x00", "\t\t", "naïve 🚲"]
        let doubles: [Double] = [.nan, .infinity, -.infinity, -0.0, 5e-324, 0.1 + 0.2, -1.7976931348623157e308, 123456789.123456789]
        let dates = [-63_113_904_000.0, 252_423_993_599.5, 0.000_001, -0.5, 86_399.999_999, 1e9 + 0.123_456]
            .map(Date.init(timeIntervalSinceReferenceDate:))
        func describe(_ sample: Sample) -> String {
            [String(sample.int), sample.text, sample.double.isNaN ? "nan" : String(sample.double.bitPattern), String(sample.float.bitPattern),
             String(sample.date.timeIntervalSinceReferenceDate), sample.data.base64EncodedString(), sample.uuid.uuidString,
             String(describing: sample.decimal), String(describing: sample.optionalText)].joined(separator: "|")
        }
        func stored() throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)])).map(describe)
        }
        func save(_ samples: [Sample]) throws -> [RenderedSQL] {
            let context = ModelContext(container)
            for sample in samples { context.insert(sample) }
            store.startTracing()
            defer { store.stopTracing() }
            try context.save()
            return store.stopTracing()
        }
        var expected: [String] = []
        var samples: [Sample] = []
        for number in 0..<SQLStore.copiedRows {
            let sample = Sample(int: number, double: doubles[number % doubles.count], text: texts[number % texts.count],
                                date: dates[number % dates.count], data: Data((0..<number % 5).map { UInt8(truncatingIfNeeded: $0 * 97) }),
                                optionalText: number.isMultiple(of: 3) ? nil : texts[(number + 1) % texts.count])
            sample.float = Float(doubles[(number + 3) % doubles.count])
            samples.append(sample)
            expected.append(describe(sample))
        }
        let copied = try save(samples)
        #expect(copied.contains { $0.text.hasPrefix("COPY \"Sample\"") })
        #expect(!copied.contains { $0.text.hasPrefix("INSERT INTO \"Sample\"") })
        // Microseconds are what a timestamptz keeps: read back as binary parameters would write them.
        #expect(try stored() == expected)

        // As many rows again, one with a date before the year 1: they go up as arrays, and read
        // back the same; so do rows of large values (hex would double them), and a few rows.
        let base = SQLStore.copiedRows
        let ancient = (base..<2 * base).map { Sample(int: $0, text: "ancient", date: Date(timeIntervalSinceReferenceDate: $0 == base ? -63_200_000_000 : 0)) }
        let large = (2 * base..<3 * base).map { Sample(int: $0, text: String(repeating: "large ", count: 200)) }
        let few = (3 * base..<3 * base + 3).map { Sample(int: $0, text: "few") }
        for batch in [ancient, large, few] {
            let statements = try save(batch)
            #expect(!statements.contains { $0.text.hasPrefix("COPY \"Sample\"") })
            #expect(statements.contains { $0.text.hasPrefix("INSERT INTO \"Sample\"") })
        }
        #expect(try stored() == expected + (ancient + large + few).map(describe))

        // A copy the server refuses (a key twice) throws the server's reason as a constraint
        // violation, writes nothing, and leaves the connection usable.
        try store.read { connection in
            _ = try connection.execute("CREATE TABLE \"Plain\" (k bigint PRIMARY KEY)", bindings: [])
            #expect {
                _ = try connection.copy(into: "Plain", columns: ["k"], values: [.integer(1), .integer(1)], width: 1)
            } throws: { ($0 as? SwiftDataError)?.code == .constraintViolation && "\($0)".contains("duplicate key") }
            var count: Int64 = -1
            try connection.query("SELECT count(*) FROM \"Plain\"", bindings: []) { count = $0.int64(at: 0) }
            #expect(count == 0)
        }
    }

    @Test func aReadOnlyConfigurationOfAnEmptyNamespaceIsAClearError() throws {
        let namespace = Namespace()
        do {
            _ = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration(false))
            Issue.record("a read-only configuration opened a namespace with no store")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains("has no store yet"), "\(error.message)")
        }
    }

    @Test func anotherModelInTheNamespaceIsRefusedAndLeftAlone() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        context.insert(Expense(amount: 1))
        try context.save()
        do {
            _ = try ModelContainer(for: Team.self, Member.self, configurations: try namespace.configuration())
            Issue.record("a container with other models opened the namespace")
        } catch let error as SwiftDataError {
            #expect(error == .schemaMismatch)
            #expect(error.message.contains("the model has entity Team"), "\(error.message)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 1)
    }

    @Test func textWithNULIsAClearErrorAndNothingIsWritten() throws {
        let namespace = Namespace()
        let container = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let context = ModelContext(container)
        context.insert(Expense(amount: 1, note: "fine"))
        context.insert(Expense(amount: 2, note: "nul\u{0}inside"))
        do {
            try context.save()
            Issue.record("text with NUL was saved")
        } catch let error as SwiftDataError {
            #expect(error == .unsupportedType)
            #expect(error.message.contains("NUL character"), "\(error.message)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test func wrongPasswordFailsAtContainerCreation() throws {
        let server = try #require(PostgresServer.url)
        var components = try #require(URLComponents(url: server, resolvingAgainstBaseURL: false))
        components.password = "not-the-password"
        let wrong = try #require(components.url)
        let configuration = PostgresConfiguration("shop", url: wrong, postgresSchema: "unused")
        do {
            _ = try ModelContainer(for: Expense.self, configurations: configuration)
            Issue.record("a wrong password was accepted")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains("password authentication failed"), "\(error.message)")
        }
    }

    @Test func databaseURLComesFromTheEnvironment() throws {
        let server = try #require(PostgresServer.url)
        let configuration = try PostgresConfiguration(name: "shop", postgresSchema: "x", environment: ["DATABASE_URL": server.absoluteString])
        #expect(configuration.url == server)
        #expect(configuration.postgresSchema == "x")
        do {
            _ = try PostgresConfiguration(name: "shop", environment: [:])
            Issue.record("a missing DATABASE_URL was accepted")
        } catch let error as SwiftDataError {
            #expect(error.message.contains("DATABASE_URL is not set"))
        }
    }

    /// Three servers of the new release start at once on a store of the old one: one migrates,
    /// the others wait for its transaction and open the migrated store, running nothing.
    @Test func serversStartingTogetherMigrateTheStoreOnce() throws {
        let namespace = Namespace()
        do {
            let old = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: try namespace.configuration())
            let context = ModelContext(old)
            context.insert(NotesV1.Note(title: "Plan", folder: NotesV1.Folder(name: "Work")))
            context.insert(NotesV1.Note(title: "Budget", folder: NotesV1.Folder(name: "Work")))
            try context.save()
        }
        let configuration = try namespace.configuration()
        let stagesRun = Locked<[String]>([])
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            do {
                let container = try MigrationProgress.observe({ progress in
                    if progress.entityName == nil { stagesRun.withLock { $0.append(progress.stageDescription) } }
                }, during: {
                    try ModelContainer(for: Schema(versionedSchema: NotesV3.self), migrationPlan: NotesPlan.self, configurations: configuration)
                })
                let folders = try ModelContext(container).fetch(FetchDescriptor<NotesV3.Folder>())
                if folders.map(\.name) != ["Work"] || folders.first?.notes.count != 2 {
                    failures.withLock { $0.append("saw \(folders.map(\.name))") }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(stagesRun.withLock { $0 } == ["1.0.0 → 2.0.0, lightweight", "2.0.0 → 3.0.0, custom"])
    }
}
#endif
