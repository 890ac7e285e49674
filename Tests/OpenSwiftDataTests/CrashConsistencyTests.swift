import Foundation
import Testing
import StoreTestSupport
import TestModels
@testable import OpenSwiftData

/// A child process saves in a loop — a folder with documents and labels, 1,000 rows at once, a
/// cascading delete, a many-to-many change — and is killed with SIGKILL at a random moment. After
/// each kill the file passes `integrity_check`, every save the child acknowledged is there, and no
/// save is half applied.
///
/// 30 kills by default (the CI size); `OPENSWIFTDATA_CRASH_KILLS=500 swift test --filter
/// CrashConsistencyTests` runs the long campaign.
@Suite struct CrashConsistencyTests {
    static let kills = ProcessInfo.processInfo.environment["OPENSWIFTDATA_CRASH_KILLS"].flatMap(Int.init) ?? 30

    /// What the killed children said they had saved, over all rounds.
    private struct Acknowledged {
        var folders = Set<Int>()
        var deletedFolders = Set<Int>()
        var batches = Set<Int>()
        /// The save under way when the child was killed: it may or may not have committed.
        var inFlight: String?
        /// Batches that were in flight at a kill: each is there whole or not at all.
        var uncertainBatches = 0
        /// Folders whose delete was in flight at a kill: each may be gone.
        var uncertainDeletes = Set<Int>()
        /// Batches acknowledged in the last round, counted row by row (the total is checked every round).
        var newBatches = Set<Int>()

        mutating func read(_ lines: [Substring]) {
            inFlight = nil
            newBatches = []
            for line in lines {
                let words = line.split(separator: " ")
                guard words.count == 3, let number = Int(words[2]) else { continue }
                switch (words[0], words[1]) {
                case ("intent", _): inFlight = String(line.dropFirst("intent ".count))
                case ("ack", "folder"): folders.insert(number); inFlight = nil
                case ("ack", "delete"): deletedFolders.insert(number); inFlight = nil
                case ("ack", "batch"): batches.insert(number); newBatches.insert(number); inFlight = nil
                default: inFlight = nil
                }
            }
            if inFlight?.hasPrefix("batch ") == true { uncertainBatches += 1 }
            if let inFlight, inFlight.hasPrefix("delete "), let number = Int(inFlight.dropFirst("delete ".count)) {
                uncertainDeletes.insert(number)
            }
        }
    }

    @Test func killedWritersLoseNoAcknowledgedSaveAndLeaveNoHalfSave() throws {
        let url = TestStore.temporaryURL()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { TestStore.removeFiles(at: url) }
        var acknowledged = Acknowledged()
        var totalAcks = 0
        var killedMidSave = 0
        for _ in 0..<Self.kills {
            let (process, output, _) = try HelperProcess.start(["crash-loop", url.path])
            // Let it acknowledge a few saves, then kill it at a random moment of the next ones.
            let wanted = Int.random(in: 1...6)
            var text = ""
            while text.components(separatedBy: "\nack ").count - 1 < wanted {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            usleep(UInt32.random(in: 0...4_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationReason == .uncaughtSignal, "the writer stopped on its own: \(text.suffix(300))")
            let lines = text.split(separator: "\n")
            totalAcks += lines.filter { $0.hasPrefix("ack ") }.count
            acknowledged.read(lines)
            if acknowledged.inFlight != nil { killedMidSave += 1 }
            try check(url, acknowledged)
        }
        #expect(totalAcks >= Self.kills)
        // The kills land while saves are under way, not only between them.
        #expect(killedMidSave > 0)
    }

    private func check(_ url: URL, _ acknowledged: Acknowledged) throws {
        do {
            let connection = try SQLiteConnection(path: url.path, readOnly: true, create: false)
            let integrity = try connection.prepare("PRAGMA integrity_check")
            defer { integrity.reset() }
            #expect(try integrity.step())
            #expect(integrity.value(at: 0) == .text("ok"))
        }
        let container = try ModelContainer(for: Schema(crashModels), configurations: [ModelConfiguration(url: url)])
        let context = ModelContext(container)
        // Whole saves only: every folder has the documents it was saved with, every document its
        // labels, and no document outlived its folder's cascade.
        for folder in try context.fetch(FetchDescriptor<CrashFolder>()) {
            #expect(folder.documents.count == folder.documentCount, "folder \(folder.number)")
            for document in folder.documents {
                #expect(document.labels.count == document.labelCount, "document \(document.title)")
            }
        }
        #expect(try context.fetchCount(FetchDescriptor<CrashDocument>(predicate: #Predicate { $0.folder == nil })) == 0)
        // Every acknowledged save is there.
        for number in acknowledged.folders.subtracting(acknowledged.deletedFolders) {
            let count = try context.fetchCount(FetchDescriptor<CrashFolder>(predicate: #Predicate { $0.number == number }))
            #expect(count == 1 || (acknowledged.uncertainDeletes.contains(number) && count == 0), "acknowledged folder \(number)")
        }
        for number in acknowledged.deletedFolders {
            #expect(try context.fetchCount(FetchDescriptor<CrashFolder>(predicate: #Predicate { $0.number == number })) == 0)
        }
        for batch in acknowledged.newBatches {
            #expect(try context.fetchCount(FetchDescriptor<CrashRow>(predicate: #Predicate { $0.batch == batch })) == 1_000, "batch \(batch)")
        }
        let rows = try context.fetchCount(FetchDescriptor<CrashRow>())
        #expect(rows % 1_000 == 0, "\(rows) rows: a batch was half saved")
        #expect((acknowledged.batches.count...acknowledged.batches.count + acknowledged.uncertainBatches).contains(rows / 1_000))
    }
}
