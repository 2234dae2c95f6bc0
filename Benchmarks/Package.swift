// swift-tools-version:6.1
import PackageDescription

/// FlowServer's benchmarks: built only by `make bench` (Benchmarks/run.sh), never by `make test`,
/// so benchmark-only dependencies never slow the main build.
let package = Package(
    name: "FlowServerBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FlowServer", path: ".."),
        // The benchmark peer only: never a dependency of the FlowServer package itself.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "MicroHTTPFixedPage",
            dependencies: [.product(name: "MicroHTTP", package: "FlowServer")]
        ),
        .executableTarget(
            name: "EngineBench",
            dependencies: [.product(name: "FlowCore", package: "FlowServer")]
        ),
        .executableTarget(
            name: "StoreBench",
            dependencies: [
                .product(name: "FlowCore", package: "FlowServer"),
                .product(name: "FlowStore", package: "FlowServer"),
                .product(name: "FlowStoreSQLite", package: "FlowServer"),
                .product(name: "FlowStorePostgres", package: "FlowServer"),
                .product(name: "FlowTesting", package: "FlowServer"),
                .product(name: "FlowWeb", package: "FlowServer"),
                .product(name: "MoviesDemo", package: "FlowServer"),
            ]
        ),
        .executableTarget(
            name: "MigrationBench",
            dependencies: [
                .product(name: "FlowCore", package: "FlowServer"),
                .product(name: "FlowStore", package: "FlowServer"),
                .product(name: "FlowStoreSQLite", package: "FlowServer"),
                .product(name: "FlowWeb", package: "FlowServer"),
                .product(name: "MoviesDemo", package: "FlowServer"),
            ]
        ),
        .executableTarget(
            name: "SessionMaker",
            dependencies: [.product(name: "FlowTesting", package: "FlowServer")]
        ),
        .executableTarget(
            name: "PageBench",
            dependencies: [
                .product(name: "FlowWeb", package: "FlowServer"),
                .product(name: "FlowStore", package: "FlowServer"),
                .product(name: "MoviesDemo", package: "FlowServer"),
            ]
        ),
        .executableTarget(
            name: "PeerData",
            dependencies: [.product(name: "MoviesDemo", package: "FlowServer")]
        ),
        .executableTarget(
            name: "TemplateBench",
            dependencies: [
                .product(name: "MustacheTemplates", package: "FlowServer"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
    ]
)
