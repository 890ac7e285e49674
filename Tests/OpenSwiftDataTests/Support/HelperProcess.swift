import Foundation
import Testing

/// The `openswiftdata-test-writer` executable, built beside the tests: a second process working on
/// a store file.
enum HelperProcess {
    static var url: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("openswiftdata-test-writer")
    }

    /// Starts the helper with `arguments` (and `environment` in place of this process's, if
    /// given); standard output and error go to the returned pipes.
    static func start(_ arguments: [String], environment: [String: String]? = nil) throws -> (process: Process, output: Pipe, errors: Pipe) {
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "the test writer was not built at \(url.path)")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Runs the helper to the end: its exit status, standard output and standard error.
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String, errors: String) {
        let (process, output, errors) = try start(arguments, environment: environment)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }
}
