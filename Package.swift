// swift-tools-version:6.1
import PackageDescription

/// FlowServer: the iOS Coordinator pattern (RxFlow, XCoordinator) for server-rendered web pages.
/// The layers and what each may import are drawn in shared/DESIGN.md and in README.md.
let package = Package(
    name: "FlowServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "flowserver", targets: ["flowserver"]),
        .library(name: "MicroHTTP", targets: ["MicroHTTP"]),
        .library(name: "FlowCore", targets: ["FlowCore"]),
        .library(name: "FlowWeb", targets: ["FlowWeb"]),
        .library(name: "MustacheTemplates", targets: ["MustacheTemplates"]),
        .library(name: "FlowStore", targets: ["FlowStore"]),
        .library(name: "FlowStoreSQLite", targets: ["FlowStoreSQLite"]),
        .library(name: "FlowStorePostgres", targets: ["FlowStorePostgres"]),
        .library(name: "MoviesDemo", targets: ["MoviesDemo"]),
        .library(name: "FlowTesting", targets: ["FlowTesting"]),
        .library(name: "FlowExplorer", targets: ["FlowExplorer"]),
        .library(name: "FlowServerRuntime", targets: ["FlowServerRuntime"]),
        .library(name: "FlowServerPostgres", targets: ["FlowServerPostgres"]),
        // The one product an app depends on (everything but PostgreSQL, which is FlowServerPostgres).
        .library(name: "FlowServer", targets: ["FlowServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // `make docs` (swift package generate-documentation); a command plugin, nothing is linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .target(
            name: "MicroHTTP",
            dependencies: [
                "CMicroHTTPD",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(name: "FlowCore"),
        .target(
            name: "FlowStore", dependencies: [.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        // The one thread-local device (ThreadSlot) of the modules that reuse memory per thread.
        .target(name: "ThreadLocal"),
        .target(name: "MustacheTemplates", dependencies: ["ThreadLocal"]),
        .target(
            name: "FlowWeb",
            dependencies: [
                "FlowCore", "FlowStore", "MustacheTemplates", "MicroHTTP", "ThreadLocal",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // What every app gets unless its own Templates/ and Public/ replace it (FlowWebDefaults).
            resources: [
                .embedInCode("Defaults/Templates/layout.mustache"), .embedInCode("Defaults/Templates/error.mustache"),
                .embedInCode("Defaults/Templates/inspector_page.mustache"),
                .embedInCode("Defaults/Templates/inspector_entry.mustache"),
                .embedInCode("Defaults/Templates/inspector_graph.mustache"),
                .embedInCode("Defaults/Templates/inspector_tree.mustache"),
                .embedInCode("Defaults/Templates/inspector_history.mustache"),
                .embedInCode("Defaults/Public/site.css"), .embedInCode("Defaults/Public/site.js"),
                .embedInCode("Defaults/Public/openapi.yaml"), .embedInCode("Defaults/Public/favicon.svg"),
            ]),
        .target(name: "MoviesDemo", dependencies: ["FlowCore", "FlowWeb", "MustacheTemplates"]),
        .target(
            name: "FlowStoreSQLite",
            dependencies: [
                "FlowStore", "ThreadLocal", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .target(
            name: "FlowStorePostgres",
            dependencies: [
                "FlowStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Explores every state an app's pages reach, in process: checks and the navigation graph.
        .target(
            name: "FlowExplorer",
            dependencies: [
                "FlowCore", "FlowWeb", "FlowStore", "MicroHTTP", "MustacheTemplates",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .target(
            name: "FlowTesting",
            dependencies: [
                "FlowCore", "FlowWeb", "FlowStore", "MicroHTTP", "MustacheTemplates", "FlowExplorer",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // Test helpers that start processes: a throwaway PostgreSQL cluster, a flowserver.
        .target(name: "ProcessTestSupport", dependencies: ["FlowTesting"], path: "Tests/ProcessTestSupport"),
        // Runs any WebApp as a server process with the whole command line (the executable's wiring).
        .target(
            name: "FlowServerRuntime",
            dependencies: [
                "MicroHTTP", "FlowCore", "FlowWeb", "MustacheTemplates", "FlowStore", "FlowStoreSQLite", "FlowExplorer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        // PostgreSQL for an app's command line (`stores: [.postgres]`), apart so others do not link it.
        .target(
            name: "FlowServerPostgres",
            dependencies: ["FlowServerRuntime", "FlowStorePostgres"]),
        .target(
            name: "FlowServer",
            dependencies: [
                "FlowCore", "FlowServerRuntime", "FlowStore", "FlowWeb", "MicroHTTP", "MustacheTemplates",
            ]),
        .executableTarget(name: "flowserver", dependencies: ["FlowServerRuntime", "FlowServerPostgres", "MoviesDemo"]),
        .testTarget(name: "MicroHTTPTests", dependencies: ["MicroHTTP", "FlowTesting"]),
        .testTarget(
            name: "FlowWebTests",
            dependencies: [
                "FlowWeb", "FlowCore", "FlowStore", "FlowTesting", "MicroHTTP", "MustacheTemplates",
                "FlowStorePostgres", "FlowStoreSQLite", "ProcessTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
        .testTarget(
            name: "FlowServerExecutableTests",
            dependencies: [
                "flowserver", "FlowServerRuntime", "ProcessTestSupport", "FlowTesting", "FlowStore", "FlowStoreSQLite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(name: "MustacheTemplatesTests", dependencies: ["MustacheTemplates"]),
        .testTarget(
            name: "FlowStoreSQLiteTests",
            dependencies: [
                "FlowStoreSQLite", "FlowStore", "FlowTesting", .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "FlowStorePostgresTests",
            dependencies: [
                "FlowStorePostgres", "FlowStore", "FlowTesting", "ProcessTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]),
        .testTarget(
            name: "MoviesDemoTests",
            dependencies: ["MoviesDemo", "FlowCore", "FlowWeb", "FlowTesting", "MustacheTemplates"]),
        .testTarget(
            name: "FlowCoreTests",
            dependencies: [
                "FlowCore", "FlowTesting",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
    ]
)

// Fuzzing harnesses (Fuzz/, libFuzzer): a target only when FLOWSERVER_FUZZ is set, which
// scripts/fuzz.sh does to build it with -sanitize=fuzzer,address in .build-fuzz; the normal
// build and the test suites never compile it.
if Context.environment["FLOWSERVER_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "flowfuzz", dependencies: ["MicroHTTP", "FlowCore", "FlowWeb", "MoviesDemo", "MustacheTemplates"],
            path: "Fuzz/Sources/flowfuzz"))
}
