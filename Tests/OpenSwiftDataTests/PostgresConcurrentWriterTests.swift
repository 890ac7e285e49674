#if PostgreSQL
import Foundation
import JSONStore
import Logging
import Testing
import StoreTestSupport
@testable import OpenSwiftData
@testable import OpenSwiftDataPostgres
import PostgresNIO

/// Several servers writing one PostgreSQL database at once: no save waits for another server's
/// transaction (keys come from blocks reserved outside the save's transaction, history numbers
/// from the server's transaction ids), and a history token never skips a save that commits after
/// a later-numbered one.
@Suite(.enabled(if: PostgresServer.url != nil, PostgresServer.skipReason))
struct PostgresConcurrentWriterTests {
    /// A fresh namespace, dropped when the test ends.
    private final class Namespace {
        let name = PostgresServer.newNamespace()
        func configuration(schema: Schema? = nil) throws -> PostgresConfiguration {
            PostgresConfiguration("shop", url: try #require(PostgresServer.url), schema: schema, postgresSchema: name)
        }
        deinit { PostgresServer.drop(name) }
    }

    /// Holds a save of the logging store's in its `save` log line (written after the wrapped
    /// store saved and before the container commits its other stores) until released.
    private final class SaveGate: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)

        var logger: Logger {
            var logger = Logger(label: "gate") { _ in GateHandler(gate: self) }
            logger.logLevel = .info
            return logger
        }

        struct GateHandler: LogHandler {
            let gate: SaveGate
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .info
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                guard "\(event.message)".hasPrefix("save ") else { return }
                gate.entered.signal()
                gate.released.wait()
            }
        }
    }

    /// The notes of the expenses each history transaction inserted, in order, read in a context of
    /// `container` after `token`.
    private func insertedNotes(_ container: ModelContainer, after token: DefaultHistoryToken?) throws -> (notes: [String], last: DefaultHistoryToken?) {
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let token { descriptor.predicate = #Predicate { $0.token > token } }
        let context = ModelContext(container)
        let transactions = try context.fetchHistory(descriptor)
        var notes: [String] = []
        for transaction in transactions {
            for change in transaction.changes {
                if case .insert(let insert) = change, let expense = context.model(for: insert.changedPersistentIdentifier) as? Expense {
                    notes.append(expense.note ?? "")
                }
            }
        }
        return (notes, transactions.last?.token ?? token)
    }

    @Test func aSaveStillOpenWhenALaterOneCommitsIsNeitherWaitedForNorSkipped() throws {
        let namespace = Namespace()
        let gate = SaveGate()
        let trips = TestStore.temporaryURL().deletingPathExtension().appendingPathExtension("json")
        defer { try? FileManager.default.removeItem(at: trips) }
        // Server A keeps expenses in PostgreSQL and trips in a JSON file whose saves wait at the
        // gate: a save of both holds A's PostgreSQL transaction open, written and uncommitted.
        let serverA = try ModelContainer(
            for: Schema([Expense.self, Category.self, Trip.self]),
            configurations: try namespace.configuration(schema: Schema([Expense.self, Category.self])),
            LoggingStoreConfiguration(wrapping: JSONStoreConfiguration(schema: Schema([Trip.self]), fileURL: trips), logger: gate.logger))
        let serverB = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let first = ModelContext(serverB)
        first.insert(Expense(amount: 1, note: "first"))
        try first.save()
        let (seen, token) = try insertedNotes(serverB, after: nil)
        #expect(seen == ["first"])

        let earlierSaved = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let context = ModelContext(serverA)
            context.insert(Expense(amount: 2, note: "earlier"))
            context.insert(Trip(name: "Autumn", destination: "Hue"))
            do { try context.save() } catch { Issue.record("the earlier save failed: \(error)") }
            earlierSaved.signal()
        }
        try #require(gate.entered.wait(timeout: .now() + 30) == .success, "the earlier save never reached its second store")

        // While A's transaction is open, B saves: it does not wait for A.
        let laterSaved = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let context = ModelContext(serverB)
            context.insert(Expense(amount: 3, note: "later"))
            do { try context.save() } catch { Issue.record("the later save failed: \(error)") }
            laterSaved.signal()
        }
        let laterFinished = laterSaved.wait(timeout: .now() + 20) == .success
        #expect(laterFinished, "a save waited for another server's open transaction")

        // A reader asking now waits for the save that began before it (A's, numbered lower than
        // B's), so its token cannot pass over A's.
        let readerDone = DispatchSemaphore(value: 0)
        let read = Locked<(notes: [String], last: DefaultHistoryToken?)?>(nil)
        Thread.detachNewThread {
            let result = try? insertedNotes(serverB, after: token)
            read.withLock { $0 = result }
            readerDone.signal()
        }
        #expect(readerDone.wait(timeout: .now() + 0.5) == .timedOut, "history was read past a transaction still open")
        gate.released.signal()
        #expect(earlierSaved.wait(timeout: .now() + 30) == .success)
        if !laterFinished { _ = laterSaved.wait(timeout: .now() + 30) }
        #expect(readerDone.wait(timeout: .now() + 30) == .success)
        let notes = read.withLock { $0?.notes } ?? []
        #expect(notes == ["earlier", "later"])
        // And nothing is left behind the token it ends with.
        #expect(try insertedNotes(serverB, after: read.withLock { $0?.last }).notes == [])
    }

    @Test func historyNumbersKeepGrowingPastNumbersAnEarlierServerGave() throws {
        let namespace = Namespace()
        let server = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let context = ModelContext(server)
        context.insert(Expense(amount: 1, note: "before"))
        try context.save()
        // Numbers far above this server's transaction ids, as a database restored from a busier
        // server holds.
        let address = try PostgresURL(try #require(PostgresServer.url))
        let admin = try PostgresConnectionPool(url: address, maximum: 1, connectTimeout: .seconds(5))
        defer { admin.shutDown() }
        try admin.withConnection { connection in
            try admin.run(PostgresQuery(unsafeSQL: "UPDATE \"\(namespace.name)\".\"Z_HISTORYTRANSACTION\" SET \"Z_PK\" = \"Z_PK\" + 1000000000000"), on: connection)
            try admin.run(PostgresQuery(unsafeSQL: "UPDATE \"\(namespace.name)\".\"Z_HISTORYCHANGE\" SET \"Z_TRANSACTION\" = \"Z_TRANSACTION\" + 1000000000000"), on: connection)
        }

        // A server opening the store moves its numbering above them: they are read, and a token of
        // the old numbers finds what follows.
        let restarted = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let (moved, movedToken) = try insertedNotes(restarted, after: nil)
        #expect(moved == ["before"])
        let after = ModelContext(restarted)
        after.insert(Expense(amount: 2, note: "after"))
        try after.save()
        let (notes, last) = try insertedNotes(restarted, after: movedToken)
        #expect(notes == ["after"])
        #expect(try #require(last?.tokenValue?.values.first) > 1_000_000_000_000)
        // The server that was running sees them too: the offset is read by every save and read.
        #expect(try insertedNotes(server, after: movedToken).notes == ["after"])
    }

    /// A store holding one expense ("before"), whose later expense inserts first run `body`
    /// (PL/pgSQL, with a sequence `attempts` whose numbers survive rollbacks), as a trigger.
    private func store(whoseInsertsRun body: String, in namespace: Namespace) throws -> ModelContainer {
        let container = try ModelContainer(for: Expense.self, Category.self, configurations: try namespace.configuration())
        let first = ModelContext(container)
        first.insert(Expense(amount: 1, note: "before"))
        try first.save()
        try PostgresServer.execute([
            "CREATE SEQUENCE \"attempts\"",
            "CREATE FUNCTION \"before_insert\"() RETURNS trigger AS $$ BEGIN \(body) RETURN NEW; END $$ LANGUAGE plpgsql",
            "CREATE TRIGGER \"before_insert\" BEFORE INSERT ON \"Expense\" FOR EACH ROW EXECUTE FUNCTION \"before_insert\"()",
        ], in: namespace.name)
        return container
    }

    /// The notes of the expenses a fresh context reads, by amount.
    private func notes(_ container: ModelContainer) throws -> [String?] {
        try ModelContext(container).fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.amount)])).map(\.note)
    }

    /// A save whose transaction PostgreSQL rolled back for a deadlock (40P01) or a serialization
    /// failure (40001) with another writer runs again, and is kept; one that meets them every
    /// time throws `SwiftDataError.busy`, saying it can run again, and writes nothing. The
    /// failures come from a trigger that raises them as the server does for the transaction it
    /// chooses to roll back (a real deadlock's victim is not the test's to choose).
    @Test(arguments: ["40P01", "40001"])
    func aSaveRolledBackForAnotherWriterRunsAgain(state: String) throws {
        let namespace = Namespace()
        // The next two inserts fail, the third goes in.
        let container = try store(whoseInsertsRun: "IF nextval('attempts') <= 2 THEN RAISE EXCEPTION 'rolled back for the test' USING ERRCODE = '\(state)'; END IF;", in: namespace)
        let context = ModelContext(container)
        context.insert(Expense(amount: 2, note: "retried"))
        try context.save()
        #expect(try notes(container) == ["before", "retried"])

        // Failing every time: the save throws, and nothing of it is written.
        try PostgresServer.execute(["ALTER SEQUENCE \"attempts\" MINVALUE -1000000 RESTART WITH -1000000"], in: namespace.name)
        let failing = ModelContext(container)
        failing.insert(Expense(amount: 3, note: "never"))
        #expect {
            try failing.save()
        } throws: { error in
            guard let error = error as? SwiftDataError, error == .busy else { return false }
            return error.message.contains(state) && error.message.contains("can be run again")
        }
        #expect(try notes(container) == ["before", "retried"])
    }

    /// A save whose connection ends before its commit was sent — its server discarded the
    /// transaction, so nothing of it was written — runs once more on another connection and is
    /// kept. The session ends from inside the save's first insert (a trigger terminating its own
    /// backend), as a pooler or a server restart would end it.
    @Test func aSaveWhoseConnectionEndedBeforeItsCommitRunsAgain() throws {
        let namespace = Namespace()
        let container = try store(whoseInsertsRun: "IF nextval('attempts') = 1 THEN PERFORM pg_terminate_backend(pg_backend_pid()); END IF;", in: namespace)
        let context = ModelContext(container)
        context.insert(Expense(amount: 2, note: "after the session ended"))
        try context.save()
        #expect(try notes(container) == ["before", "after the session ended"])
    }
}
#endif
