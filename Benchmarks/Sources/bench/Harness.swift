import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One measured workload: its name and, per library, the median seconds.
struct WorkloadResult: Codable {
    var workload: String
    var size: Int
    var seconds: [String: Double]
    var peakMegabytes: [String: Double]?
}

/// Times `body` `runs` times (each after `prepare`, untimed) and returns the median in seconds.
func median(runs: Int, prepare: () async throws -> Void = {}, _ body: () async throws -> Void) async throws -> Double {
    var samples: [Double] = []
    for _ in 0..<runs {
        try await prepare()
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// The largest resident set this process has had, in megabytes. On Linux this is `VmHWM` from
/// /proc (`getrusage` would include the parent's pages from before `fork`).
func peakResidentMegabytes() -> Double {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
       let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
       let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") {
        return kilobytes / 1024
    }
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
    #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1024 / 1024
    #endif
}

/// A fresh database file path in a temporary folder.
func freshPath(_ label: String) -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openswiftdata-bench", isDirectory: true)
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent("\(label)-\(UUID().uuidString).sqlite").path
    return path
}

func removeDatabase(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// Renders results as one Markdown table per workload.
func markdown(_ results: [WorkloadResult], libraries: [String], floor: String, machine: String, command: String, setting: String = "", runs: Int) -> String {
    var lines = ["# OpenSwiftData benchmarks", "", "Produced by `\(command)`\(setting) on \(machine).", "",
                 "Each time is the median of \(runs) runs\(results.contains { $0.peakMegabytes != nil } ? " (the import: one run)" : ""); the ratio is to \(floor) measured in the same run (lower is better).", ""]
    for result in results {
        lines.append("## \(result.workload) (N = \(result.size.formatted()))")
        lines.append("")
        if let memory = result.peakMegabytes {
            lines.append("| Library | Seconds | × \(floor) | Peak memory (MB) |")
            lines.append("| --- | ---: | ---: | ---: |")
            for library in libraries {
                guard let seconds = result.seconds[library] else { continue }
                let ratio = result.seconds[floor].map { seconds / $0 } ?? .nan
                lines.append("| \(library) | \(String(format: "%.3f", seconds)) | \(String(format: "%.2f", ratio)) | \(memory[library].map { String(format: "%.0f", $0) } ?? "—") |")
            }
        } else {
            lines.append("| Library | Seconds | × \(floor) |")
            lines.append("| --- | ---: | ---: |")
            for library in libraries {
                guard let seconds = result.seconds[library] else { continue }
                let ratio = result.seconds[floor].map { seconds / $0 } ?? .nan
                lines.append("| \(library) | \(String(format: "%.4f", seconds)) | \(String(format: "%.2f", ratio)) |")
            }
        }
        lines.append("")
    }
    return lines.joined(separator: "\n")
}

/// A description of this machine for the results.
func machineDescription() -> String {
    var cpu = "unknown CPU"
    if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
       let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
       let name = line.split(separator: ":", maxSplits: 1).last {
        cpu = name.trimmingCharacters(in: .whitespaces)
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
    return "\(cpu), \(cores) cores, \(String(format: "%.0f", memory)) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)"
}
