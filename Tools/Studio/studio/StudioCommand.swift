import ArgumentParser
import Foundation
import OpenSwiftData
#if Studio
import Hummingbird
import OpenSwiftDataPostgres
import StudioApp
#endif

/// `studio PATH_OR_POSTGRES_URL`: a store looked at in the browser — an OpenSwiftData file, a
/// file SwiftData or Core Data wrote, or a PostgreSQL namespace — without the app's models. Its
/// first line is the URL to open, with the access token in it.
@main
struct StudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Look inside a SwiftData store in the browser: schema, rows, history, statistics, live.",
        discussion: "Serves on 127.0.0.1 and prints the URL to open (with its access token) as its first line. Read-only unless --allow-edits.")

    @Argument(help: "A store file (default.store), or a PostgreSQL URL (postgres://user:password@host:port/database).")
    var store: String

    @Option(name: .long, help: "The port to serve on (0: any free port).")
    var port = 4040

    @Option(name: .long, help: "The address to serve on. Keep the default (loopback) unless you know who else can reach it.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "For a PostgreSQL URL: the namespace the store's tables are in.")
    var schema = "public"

    @Flag(name: .long, help: "Allow changing values and deleting rows (each a save with history author \"studio\").")
    var allowEdits = false

    func run() async throws {
        #if Studio
        let browser: StoreBrowser
        do {
            browser = try open()
        } catch let error as SwiftDataError {
            throw ValidationError(error.description)
        }
        let studio = StudioStore(browser)
        defer { browser.close() }
        let token = AccessToken.random()
        let app = Studio.application(store: studio, token: token, host: host, port: port, onServerRunning: { port in
            // The first line: the URL to open. Everything else goes to the log.
            let shownHost = host.contains(":") ? "[\(host)]" : host
            // Written straight to the descriptor: a pipe reading it sees the line at once.
            FileHandle.standardOutput.write(Data("http://\(shownHost):\(port)/?token=\(token.value)\n".utf8))
        })
        try await app.runService()
        #else
        throw ValidationError("this build has no studio: run it with the Studio trait, swift run --traits Studio studio \(store)")
        #endif
    }

    #if Studio
    private func open() throws -> StoreBrowser {
        let lowered = store.lowercased()
        if lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://") {
            let configuration = try PostgresConfiguration("studio", connectionString: store, postgresSchema: schema, allowsSave: allowEdits)
            return try configuration.browser(allowsEdits: allowEdits)
        }
        return try StoreBrowser.open(file: URL(fileURLWithPath: store), allowsEdits: allowEdits, inflate: RawInflate.inflate)
    }
    #endif
}
