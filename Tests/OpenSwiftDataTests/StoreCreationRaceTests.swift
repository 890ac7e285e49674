import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// Several processes and threads creating the same new store file at once: every one opens it,
/// and the file ends up with one schema.
@Suite struct StoreCreationRaceTests {
    private static let openers = 4

    private func newURL() throws -> URL {
        let url = TestStore.temporaryURL()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        return url
    }

    private func remove(_ url: URL) {
        TestStore.removeFiles(at: url)
    }

    @Test func processesCreatingOneNewFileAllSucceed() throws {
        let url = try newURL()
        defer { remove(url) }
        let started = try (0..<Self.openers).map { _ in try HelperProcess.start(["open", url.path]) }
        var identifiers = Set<String>()
        for (process, output, errors) in started {
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(message)")
            identifiers.insert(printed.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // One schema: every process wrote into the store with the same identifier.
        #expect(identifiers.count == 1)
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tick>()) == Self.openers)
        #expect(identifiers == [container.stores[0].identifier])
    }

    @Test func threadsCreatingOneNewFileAllSucceed() throws {
        let url = try newURL()
        defer { remove(url) }
        let results = Locked<[Result<String, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: Self.openers) { _ in
            let result = Result { () throws -> String in
                let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
                let context = ModelContext(container)
                context.insert(Tick(writer: 1, sequence: 0))
                try context.save()
                return container.stores[0].identifier
            }
            results.withLock { $0.append(result) }
        }
        let identifiers = try results.withLock { $0 }.map { try $0.get() }
        #expect(identifiers.count == Self.openers)
        #expect(Set(identifiers).count == 1)
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tick>()) == Self.openers)
    }
}
