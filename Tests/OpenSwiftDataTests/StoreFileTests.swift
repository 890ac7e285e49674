import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Opening store files: missing, read-only, corrupt, foreign, or written with another model. Each
/// throws an error naming the problem, and the file is left as it was.
@Suite struct StoreFileTests {
    private func writeSampleStore() throws -> TestStore {
        let store = try TestStore(.file, [Expense.self])
        let context = store.context()
        context.insert(Expense(amount: 42, note: "kept", category: Category(name: "Food")))
        try context.save()
        return store
    }

    private func contents(_ url: URL) throws -> Data {
        try Data(contentsOf: url)
    }

    @Test func readOnlyStoreRefusesToSaveAndKeepsItsData() throws {
        let store = try writeSampleStore()
        let url = try #require(store.url)
        let readOnly = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(readOnly)
        let expenses = try context.fetch(FetchDescriptor<Expense>())
        #expect(expenses.map(\.note) == ["kept"])
        expenses[0].note = "changed"
        context.insert(Expense(amount: 1))
        do {
            try context.save()
            Issue.record("saving to a read-only store succeeded")
        } catch let error as SwiftDataError {
            #expect(error == .readOnlyStore)
            #expect(error.message.contains("allowsSave"))
        }
        let again = try store.reopen([Expense.self])
        #expect(try ModelContext(again).fetch(FetchDescriptor<Expense>()).map(\.note) == ["kept"])
    }

    @Test func missingFileOpenedReadOnlyThrows() throws {
        let url = TestStore.temporaryURL()
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func corruptFileThrowsAndIsLeftAlone() throws {
        let url = TestStore.temporaryURL()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            Issue.record("opening a corrupt file succeeded")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains("not a database"))
        }
        #expect(try contents(url) == garbage)
    }

    @Test func damagedPagesThrowInsteadOfCrashing() throws {
        let url = TestStore.temporaryURL()
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        do {
            let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for amount in 1...200 { context.insert(Expense(amount: Double(amount), note: String(repeating: "x", count: 100))) }
            try context.save()
        }  // the last connection closes and checkpoints the WAL into the file
        var data = try contents(url)
        let pageSize = 4096
        #expect(data.count > pageSize * 3)
        // Keep page 1 (header and table list), scribble over every other page.
        for offset in pageSize..<data.count { data[offset] = UInt8(truncatingIfNeeded: offset &* 131) }
        try data.write(to: url)
        #expect(throws: SwiftDataError.self) {
            let container = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            _ = try ModelContext(container).fetch(FetchDescriptor<Expense>())
        }
    }

    @Test func unreadablePathThrows() throws {
        // A folder where the store file should be cannot be opened as a database.
        let url = TestStore.temporaryURL()
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            Issue.record("opening a folder as a store succeeded")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains(url.path))
        }
    }

    @Test func foreignSQLiteDatabaseIsRefused() throws {
        let url = TestStore.temporaryURL()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let connection = try SQLiteConnection(path: url.path, readOnly: false, create: true)
            try connection.execute("CREATE TABLE EXPENSE (no INTEGER PRIMARY KEY NOT NULL, amount DOUBLE); INSERT INTO EXPENSE VALUES (1, 400)")
        }
        let before = try contents(url)
        do {
            _ = try ModelContainer(for: Expense.self, configurations: ModelConfiguration(url: url))
            Issue.record("opening a foreign database succeeded")
        } catch let error as SwiftDataError {
            #expect(error == .loadIssueModelContainer)
            #expect(error.message.contains("not an OpenSwiftData store"))
        }
        // Not a byte written, and still in its own journal mode (not switched to WAL).
        #expect(try contents(url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let connection = try SQLiteConnection(path: url.path, readOnly: true, create: false)
        let mode = try connection.prepare("PRAGMA journal_mode")
        #expect(try mode.step())
        #expect(mode.value(at: 0) == .text("delete"))
        mode.reset()
    }

    @Test func readOnlyStoreInAFolderNobodyCanWriteOpens() throws {
        // The store's folder is made read-only, and the store is read by an unprivileged process
        // (root could write there anyway): SQLite cannot create its -wal and -shm files beside it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-tests/readonly-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            try? FileManager.default.removeItem(at: folder)
        }
        let url = folder.appendingPathComponent("ticks.store")
        do {
            let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for sequence in 0..<3 { context.insert(Tick(writer: 0, sequence: sequence)) }
            try context.save()
        }  // closing the last connection removes the -wal and -shm files
        #expect(!FileManager.default.fileExists(atPath: url.path + "-shm"))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        let before = try contents(url)
        let result = try HelperProcess.run(["read-unprivileged", url.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3")
        #expect(try contents(url) == before)
    }

    @Test func storeWrittenWithAnotherModelThrowsSchemaMismatch() throws {
        let store = try writeSampleStore()
        let url = try #require(store.url)
        do {
            _ = try ModelContainer(for: Classroom.self, configurations: ModelConfiguration(url: url))
            Issue.record("opening with another model succeeded")
        } catch let error as SwiftDataError {
            #expect(error == .schemaMismatch)
            #expect(error.message.contains("Expense"))
            #expect(error.message.contains("Classroom"))
        }
        // The data is still there for the right model.
        let again = try store.reopen([Expense.self])
        #expect(try ModelContext(again).fetchCount(FetchDescriptor<Expense>()) == 1)
    }

    @Test func inMemoryStoresAreIndependent() throws {
        let a = try TestStore(.memory, [Expense.self])
        let b = try TestStore(.memory, [Expense.self])
        let context = a.context()
        context.insert(Expense(amount: 1))
        try context.save()
        #expect(try a.context().fetchCount(FetchDescriptor<Expense>()) == 1)
        #expect(try b.context().fetchCount(FetchDescriptor<Expense>()) == 0)
    }

    @Test func defaultLocationFollowsXDGDataHome() {
        let directory = ModelConfiguration.defaultDirectory
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).lastPathComponent
        #expect(directory.lastPathComponent == executable)
        if let xdg = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], !xdg.isEmpty {
            #expect(directory.deletingLastPathComponent().path == URL(fileURLWithPath: xdg).path)
        } else {
            #expect(directory.path.hasSuffix(".local/share/\(executable)"))
        }
        #expect(ModelConfiguration().url.lastPathComponent == "default.store")
        #expect(ModelConfiguration("Trips").url.lastPathComponent == "Trips.store")
    }

    @Test func unsupportedPropertyTypesAreReportedWhenTheContainerOpens() {
        #expect(throws: SwiftDataError.unsupportedType) {
            try ModelContainer(for: Unstorable.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }
}

/// A type that is neither a supported attribute nor Codable.
struct NotCodable: Equatable { var value = 0 }

@Model
final class Unstorable {
    var thing: NotCodable
    init(thing: NotCodable = NotCodable()) { self.thing = thing }
}
