import Foundation
import OpenSwiftData
import TestModels

// A second process for the concurrency tests: writes ticks into a store file while the test
// process writes into the same file.
// Usage: openswiftdata-test-writer <store path> <writer id> <count> <batch>
let arguments = CommandLine.arguments
guard arguments.count == 5, let writer = Int(arguments[2]), let count = Int(arguments[3]), let batch = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: openswiftdata-test-writer <store path> <writer id> <count> <batch>\n".utf8))
    exit(2)
}
do {
    let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
    try writeTicks(to: container, writer: writer, count: count, batch: batch)
    print("wrote \(count)")
} catch {
    FileHandle.standardError.write(Data("openswiftdata-test-writer: \(error)\n".utf8))
    exit(1)
}
