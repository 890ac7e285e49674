// swift-tools-version:6.2
import PackageDescription

// The expense tracker as a web application. A package of its own, as Benchmarks is, so that
// users of OpenSwiftData never resolve or build Hummingbird.
// Run: swift run --package-path Examples/ExpensesWeb expenses-web
let package = Package(
    name: "ExpensesWeb",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "expenses-web", targets: ["expenses-web"]),
    ],
    dependencies: [
        .package(name: "OpenSwiftData", path: "../..", traits: ["PostgreSQL"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.19.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
    ],
    targets: [
        // The application: routes, validation, pages. A library, so the tests drive it in memory.
        .target(
            name: "ExpensesWebApp",
            dependencies: [
                .product(name: "ExpensesCore", package: "OpenSwiftData"),
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSync", package: "OpenSwiftData"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "OpenSwiftDataPostgres", package: "OpenSwiftData"),
            ],
            resources: [.copy("Resources")]
        ),
        .executableTarget(
            name: "expenses-web",
            dependencies: [
                "ExpensesWebApp",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .testTarget(
            name: "ExpensesWebTests",
            dependencies: [
                "ExpensesWebApp",
                .product(name: "ExpensesCore", package: "OpenSwiftData"),
                .product(name: "OpenSwiftData", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataSync", package: "OpenSwiftData"),
                .product(name: "OpenSwiftDataPostgres", package: "OpenSwiftData"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
    ]
)
