// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

/// Dependencies only the `PostgreSQL` trait brings in.
let postgreSQL: TargetDependencyCondition? = .when(traits: ["PostgreSQL"])

/// Dependencies only the `Studio` trait brings in (the studio, and the web app example).
let studio: TargetDependencyCondition? = .when(traits: ["Studio"])

/// Where Apple's SwiftData does not exist, so the `SwiftData` compatibility module may stand in.
let nonApplePlatforms: [Platform] = [.linux, .windows, .android, .openbsd, .wasi]

/// `OPENSWIFTDATA_SANITIZE=thread` (CI's ThreadSanitizer stage): this package's own Swift
/// targets are built with the sanitizer, its dependencies as they are (the end of this file) —
/// so the stage builds in the main build's folder and reuses every dependency it built, instead
/// of building them all again with `--sanitize`. Unset (always, for an app depending on the
/// package), nothing changes.
let sanitizer = Context.environment["OPENSWIFTDATA_SANITIZE"].flatMap { $0.isEmpty ? nil : $0 }

let package = Package(
    name: "OpenSwiftData",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "OpenSwiftData", targets: ["OpenSwiftData"]),
        // `import SwiftData` off Apple platforms: a module of that name re-exporting OpenSwiftData.
        // Depend on it with a platform condition (README), never on Apple platforms.
        .library(name: "SwiftData", targets: ["SwiftData"]),
        // The PostgreSQL store, a product of its own; empty unless the `PostgreSQL` trait is on.
        .library(name: "OpenSwiftDataPostgres", targets: ["OpenSwiftDataPostgres"]),
        // Offline-first sync between stores and a server the app runs (the Sync article).
        .library(name: "OpenSwiftDataSync", targets: ["OpenSwiftDataSync"]),
        // Migration fixtures replayed in an app's tests (the Shipping migrations safely article).
        .library(name: "OpenSwiftDataTesting", targets: ["OpenSwiftDataTesting"]),
        // The expense tracker's models and view model, shared by `expenses` and the web app
        // (`expenses-web`). An example, not part of the library.
        .library(name: "ExpensesCore", targets: ["ExpensesCore"]),
        .executable(name: "expenses", targets: ["expenses"]),
        .executable(name: "school", targets: ["school"]),
        .executable(name: "sampletrips", targets: ["sampletrips"]),
        .executable(name: "jsonstore", targets: ["jsonstore"]),
        .executable(name: "inspect-store", targets: ["inspect-store"]),
        // The data studio: a store looked at in the browser (`swift run --traits Studio studio PATH`).
        .executable(name: "studio", targets: ["studio"]),
        // The expense tracker as a web app (`swift run --traits Studio expenses-web`), on the same
        // Hummingbird as the studio: one build of SwiftNIO and Hummingbird serves both.
        .executable(name: "expenses-web", targets: ["expenses-web"]),
    ],
    traits: [
        // Off by default, so an app on SQLite (and `swift run expenses`) never resolves or builds
        // SwiftNIO, BoringSSL or postgres-nio. This repository's tests and CI turn it on (through
        // `Studio`: `swift test --traits Studio`); an app enables it where it depends on the package.
        .trait(name: "PostgreSQL", description: "The PostgreSQL store (the OpenSwiftDataPostgres product) and the examples' PostgreSQL support"),
        // Off by default for the same reason: only the studio and the web app example need
        // Hummingbird (and zlib, through compress-nio; the web app's templates, metrics and
        // tokens). They serve PostgreSQL too, so it brings the PostgreSQL trait.
        .trait(name: "Studio", description: "The browser tools: the data studio (the studio executable) and the expense tracker's web app (expenses-web)", enabledTraits: ["PostgreSQL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"700.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        // `swift package generate-documentation` (CI builds the DocC catalogues with it).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.4.0"),
        // Used by the examples only; the library product does not depend on it.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // The studio only (the `Studio` trait): its web server, and raw inflate for the model a
        // Core Data file keeps compressed.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.19.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // The web app example only (the `Studio` trait): its page templates, Prometheus metrics
        // and account tokens.
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .macro(
            name: "OpenSwiftDataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "OpenSwiftData",
            dependencies: [
                "CSQLite",
                "OpenSwiftDataMacros",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // Notes for contributors on the rooms and the store seam, not a resource.
            exclude: ["ARCHITECTURE.md"]
        ),
        .target(name: "SwiftData", dependencies: ["OpenSwiftData"]),
        .target(name: "OpenSwiftDataSync", dependencies: ["OpenSwiftData", .product(name: "Logging", package: "swift-log")]),
        .target(name: "OpenSwiftDataTesting", dependencies: ["OpenSwiftData"]),
        .target(
            name: "OpenSwiftDataPostgres",
            dependencies: [
                "OpenSwiftData",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgreSQL),
                .product(name: "NIOCore", package: "swift-nio", condition: postgreSQL),
                .product(name: "NIOPosix", package: "swift-nio", condition: postgreSQL),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: postgreSQL),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: postgreSQL),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "ExpensesCore",
            dependencies: ["OpenSwiftData", "OpenSwiftDataSync", .target(name: "OpenSwiftDataPostgres", condition: postgreSQL)],
            path: "Examples/ExpensesCore"
        ),
        .executableTarget(
            name: "expenses",
            dependencies: [
                "ExpensesCore",
                "OpenSwiftData",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/Expenses",
            // A store per release of the example (ExpensesTests replays them; CI opens release 1's).
            exclude: ["Fixtures"]
        ),
        .executableTarget(
            name: "school",
            dependencies: ["OpenSwiftData"],
            path: "Examples/School"
        ),
        .executableTarget(
            name: "sampletrips",
            dependencies: ["OpenSwiftData"],
            path: "Examples/SampleTrips"
        ),
        // A custom DataStore and a store decorator, written against the public API only.
        .target(
            name: "JSONStore",
            dependencies: ["OpenSwiftData", .product(name: "Logging", package: "swift-log")],
            path: "Examples/JSONStore/Library"
        ),
        .executableTarget(
            name: "jsonstore",
            dependencies: [
                "JSONStore",
                "OpenSwiftData",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/JSONStore/App"
        ),
        // Reads any SwiftData / Core Data store file without its app's models.
        .executableTarget(
            name: "inspect-store",
            dependencies: ["OpenSwiftData", "OpenSwiftDataTesting", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/InspectStore"
        ),
        // The data studio: pages, the schema picture, live changes and edits over a StoreBrowser.
        // A library, so the tests drive it in memory; empty without the `Studio` trait.
        .target(
            name: "StudioApp",
            dependencies: [
                "OpenSwiftData", "OpenSwiftDataSync",
                .target(name: "OpenSwiftDataPostgres", condition: studio),
                .product(name: "Hummingbird", package: "hummingbird", condition: studio),
                .product(name: "CompressNIO", package: "compress-nio", condition: studio),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: studio),
                .product(name: "NIOCore", package: "swift-nio", condition: studio),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/Studio/StudioApp"
        ),
        .executableTarget(
            name: "studio",
            dependencies: [
                "StudioApp",
                "OpenSwiftData",
                .target(name: "OpenSwiftDataPostgres", condition: studio),
                .product(name: "Hummingbird", package: "hummingbird", condition: studio),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Tools/Studio/studio"
        ),
        // The expense tracker as a web app: routes, validation, pages. A library, so the tests
        // drive it in memory; empty without the `Studio` trait.
        .target(
            name: "ExpensesWebApp",
            dependencies: [
                "ExpensesCore",
                "OpenSwiftData",
                "OpenSwiftDataSync",
                .target(name: "OpenSwiftDataPostgres", condition: studio),
                .product(name: "Hummingbird", package: "hummingbird", condition: studio),
                .product(name: "HummingbirdCore", package: "hummingbird", condition: studio),
                .product(name: "Mustache", package: "swift-mustache", condition: studio),
                .product(name: "NIOCore", package: "swift-nio", condition: studio),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: studio),
                .product(name: "Prometheus", package: "swift-prometheus", condition: studio),
                .product(name: "JWTKit", package: "jwt-kit", condition: studio),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Examples/ExpensesWeb/Sources/ExpensesWebApp",
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "expenses-web",
            dependencies: [
                "ExpensesWebApp",
                "ExpensesCore",
                "OpenSwiftData",
                "OpenSwiftDataSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird", condition: studio),
                .product(name: "Prometheus", package: "swift-prometheus", condition: studio),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Examples/ExpensesWeb/Sources/expenses-web"
        ),
        // Test support: a model shared with a second process, and that process.
        .target(
            name: "TestModels",
            dependencies: ["OpenSwiftData", .product(name: "CoreMetrics", package: "swift-metrics")],
            path: "Tests/TestModels"
        ),
        .executableTarget(
            name: "openswiftdata-test-writer",
            dependencies: ["OpenSwiftData", "TestModels"],
            path: "Tests/TestWriter"
        ),
        // Storage code generic over a protocol, in a module of its own; the tests' models conform.
        .target(
            name: "DocumentCollections",
            dependencies: ["OpenSwiftData"],
            path: "Tests/DocumentCollections"
        ),
        // The fuzzer: mutated store files opened and used; a crash or a hang fails (`.ci/run`).
        .executableTarget(
            name: "openswiftdata-fuzz",
            dependencies: ["OpenSwiftData", "OpenSwiftDataSync", "JSONStore", "CSQLite", "TestModels", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Fuzz"
        ),
        // The stores every shared behaviour suite runs against (`StoreKind`, `TestStore`) and the
        // PostgreSQL test server, for the library's tests and sync's.
        .target(
            name: "StoreTestSupport",
            dependencies: [
                "OpenSwiftData", "JSONStore", .target(name: "OpenSwiftDataPostgres", condition: postgreSQL),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgreSQL),
            ],
            path: "Tests/StoreTestSupport"
        ),
        .testTarget(
            name: "OpenSwiftDataTests",
            dependencies: [
                "OpenSwiftData", .target(name: "OpenSwiftDataPostgres", condition: postgreSQL), "TestModels", "openswiftdata-test-writer", "JSONStore", "DocumentCollections",
                "OpenSwiftDataTesting", "StoreTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: postgreSQL),
                .product(name: "NIOCore", package: "swift-nio", condition: postgreSQL),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        // Sync: clients, servers, sharing, subscriptions and large values, over every store kind.
        .testTarget(
            name: "OpenSwiftDataSyncTests",
            dependencies: [
                "OpenSwiftData", "OpenSwiftDataSync", "StoreTestSupport",
                .target(name: "OpenSwiftDataPostgres", condition: postgreSQL),
            ]
        ),
        // The expense tracker's released stores, each replayed through its migration plan.
        .testTarget(
            name: "ExpensesTests",
            dependencies: ["ExpensesCore", "OpenSwiftDataTesting", "OpenSwiftData"]
        ),
        // The studio's pages, driven in memory against a file, the Apple fixture and PostgreSQL.
        .testTarget(
            name: "StudioTests",
            dependencies: [
                "StudioApp", "OpenSwiftData", "OpenSwiftDataSync", "TestModels",
                .target(name: "OpenSwiftDataPostgres", condition: studio),
                .product(name: "Hummingbird", package: "hummingbird", condition: studio),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: studio),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: studio),
            ]
        ),
        .testTarget(
            name: "ExpensesWebTests",
            dependencies: [
                "ExpensesWebApp", "ExpensesCore", "OpenSwiftData", "OpenSwiftDataSync", "TestModels",
                .target(name: "OpenSwiftDataPostgres", condition: studio),
                .product(name: "Hummingbird", package: "hummingbird", condition: studio),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: studio),
                .product(name: "Prometheus", package: "swift-prometheus", condition: studio),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Examples/ExpensesWeb/Tests/ExpensesWebTests"
        ),
        // SwiftData code, unchanged but for where it runs: `import SwiftData`, Swift 6 mode.
        .testTarget(
            name: "SwiftDataCompatibilityTests",
            dependencies: [.target(name: "SwiftData", condition: .when(platforms: nonApplePlatforms))]
        ),
        .testTarget(
            name: "OpenSwiftDataMacrosTests",
            dependencies: [
                "OpenSwiftDataMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ]
        ),
    ]
)

if let sanitizer {
    for target in package.targets where target.type != .macro && target.type != .system {
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
        target.linkerSettings = (target.linkerSettings ?? []) + [.unsafeFlags(["-sanitize=\(sanitizer)"])]
    }
}
