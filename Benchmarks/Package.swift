// swift-tools-version:6.1
import PackageDescription

// Benchmarks live in their own package so users of OpenSwiftData never build GRDB or Fluent.
// Run: swift run -c release --package-path Benchmarks bench
let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "OpenSwiftData", path: "..", traits: ["PostgreSQL"]),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.0.0"),
        .package(url: "https://github.com/vapor/fluent-kit.git", from: "1.50.0"),
        .package(url: "https://github.com/vapor/fluent-sqlite-driver.git", from: "4.8.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", from: "2.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
    ],
    targets: [
        .systemLibrary(name: "BenchCSQLite", path: "Sources/BenchCSQLite"),
        .executableTarget(
            name: "bench",
            dependencies: [
                "BenchCSQLite",
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentSQLiteDriver", package: "fluent-sqlite-driver"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "OpenSwiftDataPostgres", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSync", package: "OpenSwiftData"),
            ],
            path: "Sources/bench",
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
    ]
)
