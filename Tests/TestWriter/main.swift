import Foundation
import OpenSwiftData
import TestModels

// A second process for the tests: work on a store file from outside the test process.
//
//   ticks <path> <writer id> <count> <batch>   write ticks while the test process writes too
//   open <path>                                open (or create) a Tick store, insert one tick, print the store's identifier
//   read-unprivileged <path>                   drop root, open the store read-only and print how many ticks it has
//   crash-loop <path>                          save in a loop until killed, printing each save's intent and acknowledgement
//   migrate <path>                             open a ReadingsV1 store with ReadingsV2, printing each progress report
//   author <path> <author> <count>             insert <count> ticks in one save as <author>, print this process's identifier
//   own-signals <path>                         install its own SIGTERM handler, use the main context, print "ready", wait
//   exit-save <path>                           ask for the main context's save at exit, insert a tick on it, exit
//   default-store                              open a Tick store in the default place, print where
let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ message: String, status: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("openswiftdata-test-writer: \(message)\n".utf8))
    exit(status)
}

/// Writes a line to standard output at once (no buffering), so a parent that kills this process
/// has seen every line written before the kill.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

do {
    switch (arguments.first, arguments.count) {
    case ("ticks", 5):
        guard let writer = Int(arguments[2]), let count = Int(arguments[3]), let batch = Int(arguments[4]) else { fail("bad numbers", status: 2) }
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
        try writeTicks(to: container, writer: writer, count: count, batch: batch)
        say("wrote \(count)")
    case ("open", 2):
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
        let context = ModelContext(container)
        let tick = Tick(writer: Int(getpid()), sequence: 0)
        context.insert(tick)
        try context.save()
        say(tick.persistentModelID.storeIdentifier ?? "?")
    case ("read-unprivileged", 2):
        if getuid() == 0 {
            // "nobody": root could write to the read-only folder, which is what this checks.
            guard setgid(65534) == 0, setuid(65534) == 0 else { fail("cannot drop root privileges") }
        }
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1]), allowsSave: false))
        say("\(try ModelContext(container).fetchCount(FetchDescriptor<Tick>()))")
    case ("crash-loop", 2):
        try crashLoop(URL(fileURLWithPath: arguments[1]))
    case ("migrate", 2):
        let schema = Schema([ReadingsV2.Reading.self], version: ReadingsV2.version)
        let container = try MigrationProgress.observe({ progress in say("progress \(progress.completedRows)") }, during: {
            try ModelContainer(for: schema, configurations: [ModelConfiguration(url: URL(fileURLWithPath: arguments[1]))])
        })
        say("migrated \(try ModelContext(container).fetchCount(FetchDescriptor<ReadingsV2.Reading>()))")
    case ("author", 4):
        guard let count = Int(arguments[3]) else { fail("bad count", status: 2) }
        let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
        let context = ModelContext(container)
        context.author = arguments[2]
        for sequence in 0..<count { context.insert(Tick(writer: Int(getpid()), sequence: sequence)) }
        try context.save()
        say("\(getpid())")
    case ("own-signals", 2):
        // The application's handler, installed before the library is used: it must stay its own.
        signal(SIGTERM) { _ in
            let line = "own handler ran\n"
            _ = line.withCString { write(1, $0, strlen($0)) }
            _exit(0)
        }
        try MainActor.assumeIsolated {
            let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
            container.saveMainContextAtExit()
            container.mainContext.insert(Tick(writer: Int(getpid()), sequence: 0))
            try container.mainContext.save()
        }
        // A child inherits its parent's blocked signals (the test runner's threads block some).
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        say("ready")
        while true { pause() }
    case ("default-store", 1):
        let configuration = ModelConfiguration()
        _ = try ModelContainer(for: Tick.self, configurations: configuration)
        say(configuration.url.path)
    case ("exit-save", 2):
        try MainActor.assumeIsolated {
            let container = try ModelContainer(for: Tick.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
            container.saveMainContextAtExit()
            container.mainContext.insert(Tick(writer: Int(getpid()), sequence: 7))
        }
        say("exiting")
        exit(0)
    default:
        fail("usage: openswiftdata-test-writer ticks|open|read-unprivileged|crash-loop|migrate|author|own-signals|exit-save <path>|default-store [...]", status: 2)
    }
} catch {
    fail("\(error)")
}

/// Saves until killed: a folder with documents and labels, 1,000 rows at once, a cascading delete,
/// or a relabelling, chosen at random. Before each save it prints what it is about to do
/// ("intent …"), after it "ack …".
func crashLoop(_ url: URL) throws {
    let container = try ModelContainer(for: Schema(crashModels), configurations: [ModelConfiguration(url: url)])
    let context = ModelContext(container)
    var labels = try context.fetch(FetchDescriptor<CrashLabel>(sortBy: [SortDescriptor(\.name)]))
    if labels.isEmpty {
        labels = (0..<5).map { CrashLabel(name: "label \($0)") }
        labels.forEach { context.insert($0) }
        try context.save()
    }
    say("ready")
    var random = SystemRandomNumberGenerator()
    while true {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            let number = Int.random(in: 1...Int(Int32.max), using: &random)
            let folder = CrashFolder(number: number, documentCount: Int.random(in: 1...3, using: &random))
            context.insert(folder)
            for index in 0..<folder.documentCount {
                let chosen = labels.filter { _ in Bool.random(using: &random) }
                let document = CrashDocument(title: "\(number).\(index)", labelCount: chosen.count)
                document.folder = folder
                document.labels = chosen
            }
            say("intent folder \(number)")
            try context.save()
            say("ack folder \(number)")
        case 1:
            let batch = Int.random(in: 1...Int(Int32.max), using: &random)
            for position in 0..<1_000 { context.insert(CrashRow(batch: batch, position: position)) }
            say("intent batch \(batch)")
            try context.save()
            say("ack batch \(batch)")
        case 2:
            var descriptor = FetchDescriptor<CrashFolder>(sortBy: [SortDescriptor(\.number)])
            descriptor.fetchLimit = 1
            guard let folder = try context.fetch(descriptor).first else { continue }
            let number = folder.number
            context.delete(folder)
            say("intent delete \(number)")
            try context.save()
            say("ack delete \(number)")
        default:
            var descriptor = FetchDescriptor<CrashDocument>(sortBy: [SortDescriptor(\.title)])
            descriptor.fetchLimit = 1
            guard let document = try context.fetch(descriptor).first else { continue }
            let chosen = labels.filter { _ in Bool.random(using: &random) }
            document.labels = chosen
            document.labelCount = chosen.count
            say("intent relabel \(document.title)")
            try context.save()
            say("ack relabel \(document.title)")
        }
    }
}
