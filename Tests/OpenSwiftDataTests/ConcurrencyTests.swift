import Foundation
import Testing
import StoreTestSupport
import JSONStore
import TestModels
@testable import OpenSwiftData

/// Many contexts writing and reading one store at once: model actors, readers during writes,
/// and a second process on the same file. CI also runs this suite under ThreadSanitizer.
@Suite struct ConcurrencyTests {
    @ModelActor
    actor TickWriter {
        func write(writer: Int, count: Int, saveEvery: Int) throws {
            for sequence in 0..<count {
                modelContext.insert(Tick(writer: writer, sequence: sequence))
                if (sequence + 1) % saveEvery == 0 { try modelContext.save() }
            }
            try modelContext.save()
        }

        func writeBatches(_ batches: Int, of size: Int) throws {
            for batch in 0..<batches {
                for item in 0..<size { modelContext.insert(Tick(writer: 0, sequence: batch * size + item)) }
                try modelContext.save()
            }
        }

        func rename(_ id: PersistentIdentifier, to payload: String) throws -> Bool {
            guard let tick = self[id, as: Tick.self] else { return false }
            tick.payload = payload
            try modelContext.save()
            return true
        }
    }

    @ModelActor
    actor TickReader {
        func count() throws -> Int {
            try modelContext.fetchCount(FetchDescriptor<Tick>())
        }
    }

    private func fileContainer() throws -> (ModelContainer, URL) {
        let url = TestStore.temporaryURL()
        return (try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url)), url)
    }

    private func remove(_ url: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// Checks every (writer, sequence) pair is stored exactly once.
    private func expectComplete(_ container: ModelContainer, writers: Int, each count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ticks = try ModelContext(container).fetch(FetchDescriptor<Tick>())
        #expect(ticks.count == writers * count, sourceLocation: sourceLocation)
        var seen = Set<[Int]>()
        for tick in ticks { seen.insert([tick.writer, tick.sequence]) }
        #expect(seen.count == writers * count, sourceLocation: sourceLocation)
        #expect(Set(ticks.map(\.persistentModelID)).count == ticks.count, sourceLocation: sourceLocation)
    }

    @Test func eightModelActorsInsertTwoThousandRows() async throws {
        let (container, url) = try fileContainer()
        defer { remove(url) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    try await TickWriter(modelContainer: container).write(writer: writer, count: 250, saveEvery: 25)
                }
            }
            try await group.waitForAll()
        }
        try expectComplete(container, writers: 8, each: 250)
    }

    @Test func modelActorsShareACustomStore() async throws {
        let url = TestStore.temporaryURL().deletingPathExtension().appendingPathExtension("json")
        defer { try? FileManager.default.removeItem(at: url) }
        let container = try ModelContainer(for: Tick.self, configurations: JSONStoreConfiguration(fileURL: url))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    try await TickWriter(modelContainer: container).write(writer: writer, count: 40, saveEvery: 10)
                }
            }
            try await group.waitForAll()
        }
        try expectComplete(container, writers: 4, each: 40)
        // A custom store's identifier crosses actors like any other.
        let first = try #require(try ModelContext(container).fetch(FetchDescriptor<Tick>(sortBy: [SortDescriptor(\.sequence)])).first)
        #expect(try await TickWriter(modelContainer: container).rename(first.persistentModelID, to: "renamed"))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Tick>()).filter { $0.payload == "renamed" }.count == 1)
    }

    @Test func readersSeeWholeSavesDuringWrites() async throws {
        let (container, url) = try fileContainer()
        defer { remove(url) }
        let batch = 40
        let writer = TickWriter(modelContainer: container)
        let readers = (0..<3).map { _ in TickReader(modelContainer: container) }
        let writing = Task { try await writer.writeBatches(25, of: batch) }
        let observations = try await withThrowingTaskGroup(of: [Int].self) { group in
            for reader in readers {
                group.addTask {
                    var counts: [Int] = []
                    // Read until the writer is done, then once more.
                    repeat {
                        counts.append(try await reader.count())
                        await Task.yield()
                    } while counts.last ?? 0 < 25 * batch && counts.count < 100_000
                    return counts
                }
            }
            var all: [[Int]] = []
            for try await counts in group { all.append(counts) }
            return all
        }
        try await writing.value
        for counts in observations {
            #expect(counts.allSatisfy { $0 % batch == 0 }, "a reader saw part of a save: \(counts.filter { $0 % batch != 0 })")
            #expect(counts == counts.sorted(), "a reader's counts went backwards")
            #expect(counts.last == 25 * batch)
        }
    }

    @Test func identifiersCrossActorsAndSavesBecomeVisible() async throws {
        let (container, url) = try fileContainer()
        defer { remove(url) }
        let context = ModelContext(container)
        let tick = Tick(writer: 1, sequence: 1, payload: "old")
        let other = Tick(writer: 1, sequence: 2, payload: "mine")
        context.insert(tick)
        context.insert(other)
        try context.save()
        other.payload = "edited here"   // an unsaved local edit

        let actor = TickWriter(modelContainer: container)
        #expect(try await actor.rename(tick.persistentModelID, to: "new"))
        #expect(try await actor.rename(other.persistentModelID, to: "there"))
        let missing = PersistentIdentifier(entityName: "Tick", storeIdentifier: container.stores[0].identifier, key: .permanent(999))
        #expect(try await actor.rename(missing, to: "none") == false)

        // The next fetch refreshes unchanged properties and keeps local edits.
        let fetched = try context.fetch(FetchDescriptor<Tick>(sortBy: [SortDescriptor(\.sequence)]))
        #expect(fetched[0] === tick)
        #expect(tick.payload == "new")
        #expect(other.payload == "edited here")
    }

    @Test func aSecondProcessWritingTheSameFileLosesNothing() async throws {
        let (container, url) = try fileContainer()
        defer { remove(url) }
        let (process, _, errors) = try HelperProcess.start(["ticks", url.path, "1", "600", "7"])
        // Write from this process at the same time.
        try await TickWriter(modelContainer: container).write(writer: 0, count: 600, saveEvery: 7)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
        try expectComplete(container, writers: 2, each: 600)
        // And a container opened afresh agrees.
        let reopened = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
        try expectComplete(reopened, writers: 2, each: 600)
    }

    @Test func aWriterHeldPastTheWaitBoundIsAnErrorNotAHang() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false, create: true)
        let writer = ExclusiveConnection(connection, name: "the store 'Held'", timeout: 0.2)
        _ = try writer.take()   // this thread holds it, as a long save would
        let outcome = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do {
                _ = try writer.take()
                writer.giveBack()
                outcome.withLock { $0 = "taken" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
            done.signal()
        }
        done.wait()
        writer.giveBack()
        let message = try #require(outcome.withLock { $0 })
        #expect(message.contains("storeIO") && message.contains("the store 'Held'") && message.contains("200 ms"), "\(message)")
        // Given back, it can be taken again.
        _ = try writer.take()
        writer.giveBack()
    }
}
