import Foundation
import TestModels
import JSONStore
import Logging
import OpenSwiftData

// openswiftdata-fuzz: opens mutated store files — OpenSwiftData's SQLite layout, the JSON example
// store, and (given one) a Core Data file — and fetches, sorts, reads, follows relationships,
// reads history and saves through them; sends a sync server mutated requests (of one dataset,
// and of users who share, answer offers and send large values), and syncs devices with a server
// whose sync bookkeeping was mutated; opens the Apple file with mutated and crafted model
// archives without its models, and asks the studio's reader for pages with anything a URL can
// hold. Every input must end in success or a thrown error: a
// crash or a hang is a failure (the process dies, or the watchdog stops it with status 3), and the
// input that caused it is in `<work>/current`, described in `<work>/current.txt`.
//
//   openswiftdata-fuzz [--seconds N] [--seed S] [--corpus DIR] [--core-data FILE] [--work DIR]
//   (OPENSWIFTDATA_FUZZ_VERBOSE=1 prints the error each refused input got)
//
// The mutations come from a seeded generator: `--seed S` repeats a run exactly. `--corpus DIR`
// replays the inputs that found bugs (`*.sql` recipes applied to a fresh store) before mutating.

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let seconds = option("--seconds").flatMap(Double.init) ?? 60
let seed = option("--seed").flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
let corpus = option("--corpus").map { URL(fileURLWithPath: $0) }
let coreDataSeed = option("--core-data").map { URL(fileURLWithPath: $0) }
let work = option("--work").map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("openswiftdata-fuzz-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
print("openswiftdata-fuzz: seed \(seed), \(Int(seconds)) s, work folder \(work.path)")

// The library logs every unreadable value it meets, which hostile inputs are full of: only
// critical messages are shown.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = .critical
    return handler
}
var generator = SplitMix64(state: seed)
let watchdog = Watchdog(limit: 30, record: work.appendingPathComponent("current.txt"))

// The stores every input starts from.
let baseStore = work.appendingPathComponent("base.store")
// The JSON example store names itself after its file, and its snapshots carry that name: every
// copy of it keeps the file name, in a folder of its own.
let baseJSON = work.appendingPathComponent("json-base/store.json")
let inputJSON = work.appendingPathComponent("json-input/store.json")
try FileManager.default.createDirectory(at: baseJSON.deletingLastPathComponent(), withIntermediateDirectories: true)
try FileManager.default.createDirectory(at: inputJSON.deletingLastPathComponent(), withIntermediateDirectories: true)
try FuzzModels.fill(try ModelContainer(for: Schema(FuzzModels.types), configurations: ModelConfiguration(url: baseStore)))
try FuzzModels.fill(try ModelContainer(for: Schema(FuzzModels.types), configurations: JSONStoreConfiguration(fileURL: baseJSON)))
try FuzzStoreFile.checkpoint(baseStore)
let syncBase = try await FuzzSync.prepare(in: work)
let usersBase = try await FuzzSync.prepareUsers(in: work)
// The Apple file's model archive, uncompressed, which model-archive inputs mutate.
let modelArchive = corpus.flatMap { try? Data(contentsOf: $0.appendingPathComponent("apple-model-archive.bplist")) }

var runs = 0
var refusals = 0

// The unmutated stores must open and work, or every mutated input would be refused for nothing.
var pristineInputs = [(FuzzStoreFile.Kind.sqlite, baseStore, work.appendingPathComponent("pristine.store")), (.json, baseJSON, inputJSON)]
if let coreDataSeed { pristineInputs.append((.coreData, coreDataSeed, work.appendingPathComponent("pristine-coredata.store"))) }
for (kind, base, pristine) in pristineInputs {
    FuzzStoreFile.copy(base, to: pristine)
    guard FuzzExercise.run(kind, pristine) else {
        FileHandle.standardError.write(Data("openswiftdata-fuzz: the unmutated \(base.lastPathComponent) is refused; nothing would be tested\n".utf8))
        exit(2)
    }
}

/// Runs one input: records what it is, keeps a copy as `current`, exercises it under the watchdog.
@MainActor func run(_ description: String, _ kind: FuzzStoreFile.Kind, _ url: URL) {
    runs += 1
    let current = work.appendingPathComponent("current")
    try? FileManager.default.removeItem(at: current)
    try? FileManager.default.copyItem(at: url, to: current)
    watchdog.start(description)
    if !FuzzExercise.run(kind, url) { refusals += 1 }
    watchdog.stop()
}

/// Runs one sync input under the watchdog, keeping the server's store as `current`.
@MainActor func runSync(_ description: String, server: URL, _ body: () async -> Bool) async {
    runs += 1
    let current = work.appendingPathComponent("current")
    try? FileManager.default.removeItem(at: current)
    try? FileManager.default.copyItem(at: server, to: current)
    watchdog.start(description)
    if !(await body()) { refusals += 1 }
    watchdog.stop()
}

/// Runs one model archive in a copy of the Apple file, opened without its models.
@MainActor func runArchive(_ description: String, _ archive: Data) {
    guard let coreDataSeed else { return }
    runs += 1
    let input = work.appendingPathComponent("archive-input.sqlite")
    FuzzStoreFile.copy(coreDataSeed, to: input)
    FuzzBrowse.setArchive(archive, in: input)
    let current = work.appendingPathComponent("current")
    try? FileManager.default.removeItem(at: current)
    try? FileManager.default.copyItem(at: input, to: current)
    watchdog.start(description)
    if !FuzzBrowse.open(coreData: input) { refusals += 1 }
    watchdog.stop()
}

// Inputs that found bugs first.
if let corpus, let recipes = try? FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil) {
    for recipe in recipes.filter({ $0.pathExtension == "sql" }).sorted(by: { $0.path < $1.path }) {
        let input = work.appendingPathComponent("recipe.store")
        FuzzStoreFile.copy(baseStore, to: input)
        FuzzStoreFile.apply(sql: (try? String(contentsOf: recipe, encoding: .utf8)) ?? "", to: input)
        run("corpus \(recipe.lastPathComponent)", .sqlite, input)
    }
    // Model archives (the Apple file's own, and crafted ones) in the Apple file.
    for archive in recipes.filter({ $0.pathExtension == "bplist" }).sorted(by: { $0.path < $1.path }) {
        runArchive("corpus \(archive.lastPathComponent) as the Apple file's model archive", (try? Data(contentsOf: archive)) ?? Data())
    }
}

let deadline = Date().addingTimeInterval(seconds)
while Date() < deadline {
    let input: URL
    let description: String
    let kind: FuzzStoreFile.Kind
    switch generator.below(16) {
    case 0..<4:
        kind = .sqlite
        input = work.appendingPathComponent("input.store")
        FuzzStoreFile.copy(baseStore, to: input)
        description = "sqlite cells: " + FuzzStoreFile.mutateCells(input, &generator)
    case 4..<6:
        kind = .sqlite
        input = work.appendingPathComponent("input.store")
        FuzzStoreFile.copy(baseStore, to: input)
        description = "sqlite bytes: " + FuzzStoreFile.mutateBytes(input, &generator)
    case 6..<8:
        kind = .json
        input = inputJSON
        FuzzStoreFile.copy(baseJSON, to: input)
        description = "json bytes: " + FuzzStoreFile.mutateBytes(input, &generator)
    case 10:
        // A device's request, mutated, to a server on a copy of the synced store.
        let server = work.appendingPathComponent("sync-input-server.store")
        FuzzStoreFile.copy(syncBase.server, to: server)
        let original = syncBase.requests[generator.below(syncBase.requests.count)]
        var body = original
        let mutation: String
        if generator.below(3) > 0, let (mutated, done) = FuzzSync.mutateJSON(original, &generator) {
            body = mutated
            mutation = "values: " + done
        } else {
            let file = work.appendingPathComponent("sync-request.json")
            try? original.write(to: file)
            mutation = "bytes: " + FuzzStoreFile.mutateBytes(file, &generator)
            body = (try? Data(contentsOf: file)) ?? Data()
        }
        try? body.write(to: work.appendingPathComponent("current-request.json"))
        await runSync("sync request \(mutation) (the body is current-request.json)", server: server) { FuzzSync.request(body, server: server) }
        continue
    case 11:
        // The server's bookkeeping (clocks, identities, its state), mutated; devices sync with it.
        let server = work.appendingPathComponent("sync-input-server.store")
        let device = work.appendingPathComponent("sync-input-device.store")
        let newDevice = work.appendingPathComponent("sync-input-new-device.store")
        FuzzStoreFile.copy(syncBase.server, to: server)
        FuzzStoreFile.copy(syncBase.device, to: device)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: newDevice.path + suffix) }
        let statements = FuzzStoreFile.mutateCells(server, &generator, tables: ["SYNCEDOBJECT", "SYNCREPLICASTATE", "Z_GLOBALID"])
        await runSync("sync bookkeeping: \(statements)", server: server) { await FuzzSync.sync(server: server, device: device, newDevice: newDevice) }
        continue
    case 12:
        // The Apple file's model archive, its bytes mutated.
        guard let modelArchive else { continue }
        let file = work.appendingPathComponent("archive.bplist")
        try? modelArchive.write(to: file)
        let mutation = FuzzStoreFile.mutateBytes(file, &generator)
        runArchive("model archive bytes: \(mutation)", (try? Data(contentsOf: file)) ?? Data())
        continue
    case 13:
        // Pages asked for with anything a URL holds, of our store or the Apple file.
        let coreData = coreDataSeed != nil && generator.below(2) == 0
        let input = work.appendingPathComponent(coreData ? "browse-input.sqlite" : "browse-input.store")
        FuzzStoreFile.copy(coreData ? (coreDataSeed ?? baseStore) : baseStore, to: input)
        runs += 1
        watchdog.start("browse queries (see current.txt's next line)")
        let (asked, answered) = FuzzBrowse.query(input, coreData: coreData, &generator)
        watchdog.stop()
        try? "browse queries: \(asked)\n".write(to: work.appendingPathComponent("current.txt"), atomically: true, encoding: .utf8)
        if !answered { refusals += 1 }
        continue
    case 14:
        // A user's request — a share, an answer to an offer, a large value's chunk — mutated,
        // sent as its user or as another.
        let server = work.appendingPathComponent("sync-users-input-server.store")
        FuzzStoreFile.copy(usersBase.server, to: server)
        try? FileManager.default.removeItem(at: server.deletingPathExtension().appendingPathExtension("values"))
        let original = usersBase.requests[generator.below(usersBase.requests.count)]
        let user = generator.below(4) == 0 ? ["alice", "bob", "mallory"][generator.below(3)] : original.user
        var body = original.body
        let mutation: String
        if generator.below(3) > 0, let (mutated, done) = FuzzSync.mutateJSON(original.body, &generator) {
            body = mutated
            mutation = "values: " + done
        } else {
            let file = work.appendingPathComponent("sync-request.json")
            try? original.body.write(to: file)
            mutation = "bytes: " + FuzzStoreFile.mutateBytes(file, &generator)
            body = (try? Data(contentsOf: file)) ?? Data()
        }
        try? body.write(to: work.appendingPathComponent("current-request.json"))
        await runSync("users' request as \(user) \(mutation) (the body is current-request.json)", server: server) { FuzzSync.request(body, as: user, server: server) }
        continue
    default:
        guard let coreDataSeed else { continue }
        kind = .coreData
        input = work.appendingPathComponent("input.sqlite")
        FuzzStoreFile.copy(coreDataSeed, to: input)
        description = generator.below(2) == 0
            ? "core data cells: " + FuzzStoreFile.mutateCells(input, &generator)
            : "core data bytes: " + FuzzStoreFile.mutateBytes(input, &generator)
    }
    run(description, kind, input)
}
try? FileManager.default.removeItem(at: work)
print("openswiftdata-fuzz: \(runs) inputs, \(refusals) refused with an error, no crash or hang (seed \(seed))")
