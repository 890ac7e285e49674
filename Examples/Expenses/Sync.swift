import ArgumentParser
import ExpensesCore
import Foundation
// Sync is OpenSwiftData's: off Apple platforms, where `SwiftData` is OpenSwiftData too.
#if !canImport(Darwin)
import OpenSwiftData
import OpenSwiftDataSync

extension ExpensesCommand {
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send this store's changes to a sync server and receive everyone else's.",
            discussion: "The server is an expenses-web instance (its /sync route). A new store pulls before it is seeded, so a second device gets the first one's data, not a second set of samples. Offline, the command fails and the store keeps working; the next sync sends everything since.")

        @OptionGroup var options: StoreOptions

        @OptionGroup var connection: SyncConnection

        @Option(help: "When this store must start again from a fresh copy of the server's (the server was restored from a backup, this app's schema changed, another user signed in): keep its unsynced changes and send them (keep), or drop them (discard).")
        var onReset: ResetChoice = .keep

        enum ResetChoice: String, ExpressibleByArgument {
            case keep, discard
        }

        @Option(help: "Keep only expenses from this day on (yyyy-MM-dd) on this device, from this sync on, until given again; `all` keeps every expense again. Older ones stay on the server and on other devices.")
        var since: String?

        @Option(help: "When the server now serves another user than the one this store synced as (another token): stop and send nothing (stop: sync as the first user again to send their unsynced changes), or drop the first user's data and unsynced changes here and sync as the new user (discard).")
        var onUserChange: UserChangeChoice = .stop

        enum UserChangeChoice: String, ExpressibleByArgument {
            case stop, discard
        }

        @Flag(help: "Then keep the store in sync until stopped (Ctrl-C, SIGINT or SIGTERM): what is saved here is sent as it is saved, and other devices' changes arrive as they are made, a line per exchange. What was saved last is sent before it exits.")
        var watch = false

        @MainActor
        func run() async throws {
            guard let base = try connection.base() else {
                throw ValidationError("Give the server with --server URL or EXPENSES_SERVER.")
            }
            let container = try options.openContainer()
            let client = try connection.client(base, container: container, resetMode: onReset == .keep ? .keepLocalChanges : .discardLocalChanges)
            if let since {
                if since == "all" {
                    try await client.unsubscribe(ExpenseSubscriptions.since.name)
                } else {
                    // The day's start where this device is, as a moment.
                    let day = try input { try ExpenseInput.day(since, field: "since") }
                    try await client.subscribe(ExpenseSubscriptions.since.name, ["from": day.formatted(.iso8601)])
                }
            }
            let bar = ProgressBar(title: "Syncing")
            let progress: @Sendable (SyncClient.Progress) -> Void = { step in bar.show(step.done, of: step.total) }
            let isNew = try await client.hasNeverSynced()
            do {
                var result: SyncClient.Result
                do {
                    result = try await client.sync(progress: progress)
                } catch SyncError.userChanged(let synced, let now) where onUserChange == .discard {
                    // The first user's data goes from this store, never to the new user.
                    try await client.discardUnsyncedChanges()
                    print("This store synced as \(synced); the server now serves \(now). Dropped \(synced)'s data and unsynced changes here (--on-user-change discard).")
                    result = try await client.sync(progress: progress)
                }
                // A new store seeds only if the server had nothing (a subset it keeps may just be
                // empty), then sends the samples.
                if isNew, try await client.subscriptions().isEmpty {
                    let viewModel = try options.open(container: container, seeding: false)
                    if try viewModel.expenses(limit: 1).isEmpty {
                        try input { try viewModel.seedIfEmpty() }
                        let seeded = try await client.sync(progress: progress)
                        result.sent += seeded.sent
                        result.received += seeded.received
                        result.refused += seeded.refused
                    }
                }
                bar.finish()
                if let reset = result.reset { print(Self.describe(reset)) }
                if let from = try await client.subscriptions()[ExpenseSubscriptions.since.name]?["from"] {
                    let day = (try? Date(from, strategy: .iso8601)).map { String(ExpenseRow.dateFormatter.string(from: $0).prefix(10)) } ?? from
                    print("This device keeps expenses from \(day) on (`--since all` keeps every one).")
                }
                print("Synced with \(HTTPSyncTransport(url: base).serverDescription): \(result.sent) sent, \(result.received) received.")
                let awaited = try await client.awaitedLargeValues().count
                if awaited > 0 { print("\(awaited) receipt(s) stay on the server until `expenses receipt` shows one.") }
                for refusal in result.refused {
                    FileHandle.standardError.write(Data("Set aside, not synced: \(refusal). It syncs again once it is edited.\n".utf8))
                }
            } catch SyncError.userChanged(let synced, let now) {
                bar.finish()
                throw SyncFailure(message: "This store synced as \(synced), and the server now serves \(now): nothing was sent, so none of \(synced)'s data or unsynced changes went to \(now). Sync with \(synced)'s token to send them, or run `expenses sync --on-user-change discard` to drop them here and sync as \(now).")
            } catch let error as SyncError {
                bar.finish()
                throw SyncFailure(message: "Could not sync with \(HTTPSyncTransport(url: base).serverDescription): \(error). This store is unchanged by the failed part and keeps working offline; the next sync goes on from there.")
            }
            let offers = try container.mainContext.shareOffers()
            if !offers.isEmpty {
                print("\(offers.count) ledger(s) offered to you: see `expenses ledgers`; answer with `expenses ledger accept NAME --from USER` (or decline).")
            }
            if watch { try await keepInSync(client, server: HTTPSyncTransport(url: base).serverDescription) }
        }

        /// Runs the client live until SIGINT or SIGTERM, printing each exchange and each offline
        /// spell; then sends what was saved last.
        private func keepInSync(_ client: SyncClient, server: String) async throws {
            fflush(nil)  // what `print` holds goes first
            Self.say("Keeping this store in sync with \(server); Ctrl-C stops.")
            let live = Task { try await client.run() }
            // The command's own handling of the two signals: the library installs none.
            let signals = DispatchQueue(label: "expenses.signals")
            let sources = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: signals)
                source.setEventHandler { live.cancel() }
                source.resume()
                return source
            }
            let reporter = Task { await Self.report(client.status, server: server) }
            defer {
                reporter.cancel()
                for source in sources { source.cancel() }
            }
            do {
                try await live.value
            } catch is CancellationError {}
            do {
                let last = try await client.sync()
                Self.say("Stopped. \(last.sent) last change(s) sent, \(last.received) received.")
            } catch {
                throw SyncFailure(message: "Stopped, but the last changes could not be sent (\(error)); the next sync sends them.")
            }
        }

        /// A line per exchange, and one when the server cannot be reached and when it can again.
        private static func report(_ status: SyncStatus, server: String) async {
            var offline = false
            var last: Date?
            for await snapshot in status.updates() {
                switch snapshot.state {
                case .offline(let error, let retryAt):
                    if !offline {
                        say("Offline: \(error). Trying again at \(time(retryAt)); what is saved meanwhile is sent then.")
                        offline = true
                    }
                default:
                    guard let exchange = snapshot.lastExchange, exchange != last else { continue }
                    last = exchange
                    let result = snapshot.lastResult.map { "\($0.sent) sent, \($0.received) received" } ?? "synced"
                    say(offline ? "Back online at \(time(exchange)): \(result)." : "\(time(exchange)): \(result).")
                    offline = false
                }
            }
        }

        /// A line at once, also into a file or a pipe (where `print` would hold it until exit).
        private static func say(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }

        private static func time(_ date: Date) -> String {
            date.formatted(.iso8601.time(includingFractionalSeconds: false))
        }
    }
}

extension ExpensesCommand.Sync {
    /// What a fresh start did, for people.
    static func describe(_ reset: SyncClient.Reset) -> String {
        var lines = ["Started again from a fresh copy of the server's data: \(reset.reason)."]
        if reset.kept > 0 { lines.append("Kept and sent \(reset.kept) unsynced change(s).") }
        if reset.discarded > 0 { lines.append("Discarded \(reset.discarded) unsynced change(s) (--on-reset discard).") }
        if reset.restored > 0 { lines.append("Sent back \(reset.restored) object(s) the server had lost.") }
        if reset.dropped > 0 { lines.append("Removed \(reset.dropped) object(s) this store's user may no longer read (nothing was deleted on the server).") }
        if !reset.finished { lines.append("Not finished: the next sync goes on with it.") }
        return lines.joined(separator: "\n")
    }
}

/// Where and as whom a store syncs: the options of `sync`, and of `receipt`, which fetches a
/// receipt this device has not received yet.
struct SyncConnection: ParsableArguments {
    @Option(help: "The server's URL, for example http://127.0.0.1:8080 (default: EXPENSES_SERVER).")
    var server: String?

    @Option(help: "The server's sync token, or in account mode your user's token (default: EXPENSES_SYNC_TOKEN). Other users of this machine can read a command line (ps); prefer the variable or --token-file.")
    var token: String?

    @Option(help: "A file holding the server's sync token (its first line).")
    var tokenFile: String?

    /// The server's URL as given, or `nil` where none is.
    func base() throws -> URL? {
        guard let address = server ?? ProcessInfo.processInfo.environment["EXPENSES_SERVER"] else { return nil }
        guard let base = URL(string: address), let scheme = base.scheme?.lowercased(), ["http", "https"].contains(scheme), base.host != nil else {
            throw ValidationError("'\(address)' is not an http:// or https:// URL.")
        }
        return base
    }

    /// A client of `container` syncing with the server at `base` (its /sync route). Receipts
    /// come on demand: `expenses receipt` fetches the one it shows.
    func client(_ base: URL, container: ModelContainer, resetMode: SyncClient.ResetMode = .keepLocalChanges) throws -> SyncClient {
        let url = base.path.isEmpty || base.path == "/" ? base.appendingPathComponent("sync") : base
        return try SyncClient(container: container, transport: HTTPSyncTransport(url: url, token: try readToken() ?? ProcessInfo.processInfo.environment["EXPENSES_SYNC_TOKEN"]),
                              resetMode: resetMode, subscriptions: ExpenseSubscriptions.all, largeValuesOnDemand: [Receipt.self])
    }

    /// The token from `--token`, or the first line of `--token-file`.
    func readToken() throws -> String? {
        if let token { return token }
        guard let tokenFile else { return nil }
        guard let text = try? String(contentsOfFile: tokenFile, encoding: .utf8) else {
            throw ValidationError("Could not read the token file '\(tokenFile)'.")
        }
        return text.split(whereSeparator: \.isNewline).first.map(String.init)
    }
}

/// A failed sync, printed as it is.
struct SyncFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
#endif
