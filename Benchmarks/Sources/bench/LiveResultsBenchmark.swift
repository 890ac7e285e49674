import Foundation
import Observation
import OpenSwiftData

// swift run -c release --package-path Benchmarks bench --live-results [--observers N] [--saves N] [--runs N]
//
// What live results cost saves they do not concern: N observers of one entity (BenchWatched)
// on a container while saves of another entity (BenchNoise) happen one by one, against the same
// saves with no observer, in one run; and what watching a file for other processes' saves costs
// while nothing happens. Writes Results/live-results.md.

@Model final class BenchWatched {
    var label: String
    init(label: String) { self.label = label }
}

@Model final class BenchNoise {
    var value: Int
    init(value: Int) { self.value = value }
}

/// CPU time (user + system) of the whole process so far, in seconds: the saving thread's and the
/// change feed's thread's work both count.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Signals once when Observation reports a change (on whatever thread reports it).
private final class Changed: @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    func fire() { semaphore.signal() }
}

func runLiveResultsBenchmark() throws {
    let observerCount = option("--observers").flatMap(Int.init) ?? 100
    let saves = option("--saves").flatMap(Int.init) ?? 1_000
    let runs = option("--runs").flatMap(Int.init) ?? 5

    /// Wall and CPU seconds for `saves` one-row saves of BenchNoise, with `observers` observers of
    /// BenchWatched; the CPU time includes the feed reading every save's history (it ends when a
    /// last save, of BenchWatched, has reached an observer: the feed reads in order).
    func measure(observers: Int) throws -> (wall: Double, cpu: Double) {
        let path = freshPath("live-results")
        defer { removeDatabase(path) }
        let container = try ModelContainer(for: BenchWatched.self, BenchNoise.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let watchers = try (0..<observers).map { _ in try ResultsObserver<BenchWatched, Never>(modelContainer: container, isolation: nil) }
        let context = ModelContext(container)
        let cpuStart = processCPUSeconds()
        let start = DispatchTime.now().uptimeNanoseconds
        for value in 0..<saves {
            context.insert(BenchNoise(value: value))
            try context.save()
        }
        if !watchers.isEmpty {
            context.insert(BenchWatched(label: "last"))
            try context.save()
            // Until every observer holds the watched model. A change is announced before the new
            // results are set, and each observer is set in turn, so each is waited for: read
            // inside the tracking, so a change after the read wakes the wait.
            for watcher in watchers {
                while true {
                    let changed = Changed()
                    let count = withObservationTracking { watcher.results.count } onChange: { changed.fire() }
                    if count == 1 { break }
                    changed.semaphore.wait()
                }
            }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let cpu = processCPUSeconds() - cpuStart
        return (wall, cpu)
    }

    /// CPU seconds the process spends over `seconds` of idleness with one observer on a file
    /// store (the poll of `PRAGMA data_version`), or with none.
    func idle(observed: Bool, seconds: Double) throws -> Double {
        let path = freshPath("live-results-idle")
        defer { removeDatabase(path) }
        let container = try ModelContainer(for: BenchWatched.self, BenchNoise.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let observer = observed ? try ResultsObserver<BenchWatched, Never>(modelContainer: container, isolation: nil) : nil
        let start = processCPUSeconds()
        Thread.sleep(forTimeInterval: seconds)
        _ = observer?.results.count
        return processCPUSeconds() - start
    }

    func medians(_ observers: Int) throws -> (wall: Double, cpu: Double) {
        var walls: [Double] = [], cpus: [Double] = []
        for _ in 0..<runs {
            let sample = try measure(observers: observers)
            walls.append(sample.wall)
            cpus.append(sample.cpu)
        }
        return (walls.sorted()[runs / 2], cpus.sorted()[runs / 2])
    }

    FileHandle.standardError.write(Data("\(saves) unrelated saves, \(runs) runs without and with \(observerCount) observers…\n".utf8))
    let without = try medians(0)
    let with = try medians(observerCount)
    let idleSeconds = 5.0
    let idleWithout = try idle(observed: false, seconds: idleSeconds)
    let idleWith = try idle(observed: true, seconds: idleSeconds)

    func f(_ value: Double) -> String { String(format: "%.3f", value) }
    let lines = [
        "# Live results: what observers cost saves they do not concern",
        "",
        "Produced by `swift run -c release --package-path Benchmarks bench --live-results` on \(machineDescription()).",
        "\(saves.formatted()) saves of one `BenchNoise` model each, one by one, on a SQLite file; then one save of a `BenchWatched` that every observer must see (the change feed reads history in order, so when it arrives every earlier save has been read). \(observerCount) `ResultsObserver<BenchWatched, Never>`s watch the container in the second column; none in the first. Medians of \(runs) runs, measured in the same process; CPU time is the whole process's (the saving thread and the feed's thread).",
        "",
        "| | No observer | \(observerCount) observers | Ratio |",
        "| --- | ---: | ---: | ---: |",
        "| Wall time (s) | \(f(without.wall)) | \(f(with.wall)) | \(String(format: "%.2f", with.wall / without.wall))× |",
        "| CPU time (s) | \(f(without.cpu)) | \(f(with.cpu)) | \(String(format: "%.2f", with.cpu / without.cpu))× |",
        "| Per save, wall (ms) | \(f(without.wall / Double(saves) * 1000)) | \(f(with.wall / Double(saves) * 1000)) | |",
        "",
        "None of the unrelated saves makes an observer fetch: each costs one read of its history transaction on the feed's thread and a set intersection per observer.",
        "",
        "## Idle",
        "",
        "CPU time over \(Int(idleSeconds)) s with nothing happening, on a SQLite file: \(f(idleWithout)) s with no observer, \(f(idleWith)) s with one (its `PRAGMA data_version` poll every 100 ms on a connection of its own).",
        "",
    ]
    let report = lines.joined(separator: "\n")
    FileHandle.standardError.write(Data(report.utf8))
    let folder = option("--output") ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Results").path
    try report.write(toFile: folder + "/live-results.md", atomically: true, encoding: .utf8)
}
