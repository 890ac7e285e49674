import Foundation
import Testing
import StoreTestSupport
@testable import OpenSwiftData

/// Hostile input: truncated files, huge and odd values, a full disk. Each case either round-trips
/// or throws a named error, and the store stays as it was.
@Suite struct BadInputTests {
    @Test func aTruncatedFileThrowsAndIsLeftAlone() throws {
        let url = TestStore.temporaryURL()
        defer { TestStore.removeFiles(at: url) }
        do {
            let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for amount in 1...300 { context.insert(Expense(amount: Double(amount), note: String(repeating: "n", count: 200))) }
            try context.save()
        }
        let whole = try Data(contentsOf: url)
        let truncated = whole.prefix(whole.count / 2)
        try truncated.write(to: url)
        #expect(throws: SwiftDataError.self) {
            let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            _ = try ModelContext(container).fetch(FetchDescriptor<Expense>())
        }
        #expect(try Data(contentsOf: url) == truncated)
    }

    @Test func aValueAnotherProgramWroteBadlyLeavesTheEntityReadable() throws {
        let store = try TestStore(.file, [Expense.self])
        let url = try #require(store.url)
        let context = store.context()
        context.insert(Expense(amount: 1, note: "bad"))
        context.insert(Expense(amount: 2, note: "good"))
        try context.save()
        // Another program writes text where a number belongs.
        do {
            let connection = try SQLiteConnection(path: url.path, readOnly: false, create: false)
            try connection.execute("PRAGMA busy_timeout = 5000; UPDATE \"Expense\" SET \"amount\" = 'abc' WHERE \"note\" = 'bad'")
        }
        let fresh = store.context()
        let expenses = try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.note)]))
        #expect(expenses.map(\.note) == ["bad", "good"])
        #expect(expenses.map(\.amount) == [0, 2])   // the bad value reads as empty; the rest as stored
        // Saving another change to that row leaves the stored value alone.
        expenses[0].note = "still bad"
        try fresh.save()
        #expect(try storedAmount(url, note: "still bad") == .text("abc"))

        // A change derived from the stand-in (read, then written) would replace a value that was
        // never read: the save refuses it, and nothing is written.
        expenses[0].amount += 5
        expenses[1].amount = 3
        let error = #expect(throws: SwiftDataError.self) { try fresh.save() }
        #expect(error?.code == .modelValidationFailure)
        #expect(error?.message.contains("property amount") == true, "\(String(describing: error))")
        #expect(try storedAmount(url, note: "still bad") == .text("abc"))
        #expect(try storedAmount(url, note: "good") == .real(2))
        fresh.rollback()

        // Assigned without reading it first, it is a new value like any other.
        let again = store.context()
        let bad = try #require(try again.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == "still bad" })).first)
        bad.amount = 7
        try again.save()
        #expect(try storedAmount(url, note: "still bad") == .real(7))
    }

    private func storedAmount(_ url: URL, note: String) throws -> StoredValue? {
        let connection = try SQLiteConnection(path: url.path, readOnly: true, create: false)
        let check = try connection.prepare("SELECT \"amount\" FROM \"Expense\" WHERE \"note\" = ?1")
        defer { check.reset() }
        try check.bind([.text(note)])
        return try check.step() ? check.value(at: 0) : nil
    }

    @Test func aFilesOwnTriggersCannotCallTheLibrarysFunctions() throws {
        let store = try TestStore(.file, [Expense.self, Category.self])
        let url = try #require(store.url)
        // A crafted file: a trigger that calls one of the library's SQL functions on every insert.
        _ = try CoreDataFileRows.read(url, #"CREATE TRIGGER "crafted" AFTER INSERT ON "Expense" BEGIN SELECT osd_contains(NEW."note", 'x'); END"#)
        let context = store.context()
        context.insert(Expense(amount: 1, note: "x"))
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.message.contains("unsafe use of osd_contains") == true, "\(String(describing: error))")
        #expect(try store.context().fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test func preparedStatementsOfEveryShapeKeepTheCacheBounded() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false, create: true)
        let held = try connection.prepare("SELECT 'held'")
        for number in 0..<(3 * SQLiteConnection.cacheLimit) {
            let statement = try connection.prepare("SELECT \(number)")
            #expect(try statement.step())
            statement.reset()
            #expect(connection.cachedStatementCount <= SQLiteConnection.cacheLimit)
        }
        // A statement dropped from the cache while its user holds it still works.
        #expect(try held.step())
        #expect(held.value(at: 0) == .text("held"))
        held.reset()
    }

    /// The cache hashes a statement by its length and its first and last 64 bytes; texts that
    /// share those and differ only in the middle are still different statements.
    @Test func statementsThatDifferOnlyInTheMiddleAreCachedApart() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false, create: true)
        let padding = String(repeating: " ", count: 100)
        let texts = (1...3).map { "SELECT\(padding)\($0)\(padding)" }
        for round in 0..<2 {
            for (index, text) in texts.enumerated() {
                let statement = try connection.prepare(text)
                #expect(try statement.step())
                #expect(statement.value(at: 0) == .integer(Int64(index + 1)), "round \(round)")
                statement.reset()
            }
            #expect(connection.cachedStatementCount == 3)
        }
    }

    @Test func aKeyCounterAtItsEndIsAnErrorNotATrap() throws {
        let store = try TestStore(.file, [Expense.self, Category.self])
        let url = try #require(store.url)
        // Another program moves the counter to the last key there is.
        _ = try CoreDataFileRows.read(url, #"UPDATE "Z_PRIMARYKEY" SET "Z_MAX" = 9223372036854775806 WHERE "Z_ENTITY" = 'Expense'"#)
        let context = store.context()
        let last = Expense(amount: 1)
        context.insert(last)
        try context.save()
        #expect(last.persistentModelID.primaryKey == Int64.max)
        context.insert(Expense(amount: 2))
        let error = #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(error?.code == .storeIO && error?.message.contains("counter Expense") == true, "\(String(describing: error))")
        #expect(try store.context().fetch(FetchDescriptor<Expense>()).map(\.amount) == [1])
    }

    @Test func aHistoryKeyRangeNoSaveCouldWriteIsAnErrorNotATrap() throws {
        let store = try TestStore(.file, [Expense.self, Category.self])
        let url = try #require(store.url)
        let context = store.context()
        context.insert(Expense(amount: 1))
        try context.save()
        _ = try CoreDataFileRows.read(url, #"UPDATE "Z_HISTORYCHANGE" SET "Z_KEYS" = '0-9223372036854775807'"#)
        let error = #expect(throws: SwiftDataError.self) { try store.context().fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()) }
        #expect(error?.code == .storeIO && error?.message.contains("cannot read") == true, "\(String(describing: error))")
        // A run ending at Int64.max is written and read back as one.
        #expect(HistoryKeyList.encode([Int64.max - 1, .max]) == "9223372036854775806-9223372036854775807")
        #expect(HistoryKeyList.decode("9223372036854775806-9223372036854775807") == [.max - 1, .max])
        #expect(SQLSaveWriter.keys(inList: "-9223372036854775808,7") == [.min, 7])
    }

    /// Lists each under the cap must not add up past it in one read: the budget is the read's.
    @Test func historyKeyListsShareOneBudgetPerRead() {
        var remaining: Int64 = 10
        #expect(HistoryKeyList.decode("1-6", remaining: &remaining) == [1, 2, 3, 4, 5, 6])
        #expect(remaining == 4)
        #expect(HistoryKeyList.decode("10-13", remaining: &remaining) == [10, 11, 12, 13])
        #expect(remaining == 0)
        #expect(HistoryKeyList.decode("20", remaining: &remaining) == nil)
        var more: Int64 = 3
        #expect(HistoryKeyList.decode("1,2,3,4", remaining: &more) == nil)
        #expect(more == 3)
    }

    @Test func anInfiniteDecimalIsAnErrorNotZero() throws {
        // A REAL column holding ±infinity (another program's): no Decimal, so the value is
        // unreadable (a stand-in and a refused write-back, as above), never a silent 0.
        #expect(throws: (any Error).self) { try Decimal.decode(.real(.infinity)) }
        #expect(throws: (any Error).self) { try Decimal.decode(.real(-.infinity)) }
        #expect(try Decimal.decode(.real(19.99)) == Decimal(string: "19.99"))
    }

    @Test(arguments: StoreKind.allCases)
    func hugeAndOddValuesRoundTrip(_ kind: StoreKind) throws {
        let store = try TestStore(kind, [Sample.self])
        // PostgreSQL's text cannot hold NUL (a clear error, tested in PostgresStoreTests).
        let nul = kind.isPostgres ? "\u{1}" : "\u{0}"
        let huge = String(repeating: "ก\(nul)x", count: 10 * 1024 * 1024 / 5)  // about 10 MB of UTF-8, NULs included
        let dates = [Date.distantPast, Date.distantFuture, Date(timeIntervalSinceReferenceDate: -1e15), Date(timeIntervalSinceReferenceDate: 1e15)]
        let context = store.context()
        for (index, date) in dates.enumerated() {
            context.insert(Sample(int: index, int64: index.isMultiple(of: 2) ? .min : .max, uint64: .max,
                                  text: index == 0 ? huge : nul, date: date, data: Data(repeating: 0, count: 1_000_000)))
        }
        try context.save()
        let loaded = try store.context().fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        #expect(loaded.map(\.date) == dates)
        #expect(loaded.map(\.int64) == [.min, .max, .min, .max])
        #expect(loaded.allSatisfy { $0.uint64 == .max && $0.data.count == 1_000_000 })
        #expect(loaded.first?.text == huge)
        #expect(loaded.last?.text == nul)
    }

    /// A 512 KB tmpfs, mounted where the machine allows it (root with mount rights).
    private static let smallDisk: URL? = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-full-\(getpid())")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=512k", "tmpfs", folder.path]
        mount.standardError = FileHandle.nullDevice
        guard (try? mount.run()) != nil else { return nil }
        mount.waitUntilExit()
        return mount.terminationStatus == 0 ? folder : nil
    }()

    @Test(.enabled(if: smallDisk != nil, "a full disk needs a small tmpfs; run the tests as root where mount is allowed"))
    func aFullDiskThrowsAndKeepsWhatWasSaved() throws {
        let folder = try #require(Self.smallDisk)
        defer {
            let unmount = Process()
            unmount.executableURL = URL(fileURLWithPath: "/bin/umount")
            unmount.arguments = [folder.path]
            try? unmount.run()
            unmount.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
        let url = folder.appendingPathComponent("full.store")
        let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        context.insert(Expense(amount: 1, note: "first"))
        try context.save()
        var failure: (any Error)?
        for round in 0..<200 where failure == nil {
            for _ in 0..<50 { context.insert(Expense(amount: Double(round), note: String(repeating: "z", count: 1_000))) }
            do { try context.save() } catch { failure = error }
        }
        let error = try #require(failure as? SwiftDataError, "the disk never filled")
        #expect(error == .storeIO)
        #expect(error.message.contains("full"))
        // What was saved before is still there and whole.
        let saved = try ModelContext(container).fetchCount(FetchDescriptor<Expense>())
        #expect(saved >= 1)
        context.rollback()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.note == "first" })).count == 1)
    }
}
