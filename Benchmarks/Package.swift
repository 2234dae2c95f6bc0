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
            name: "TemplateBench",
            dependencies: [
                .product(name: "MustacheTemplates", package: "FlowServer"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
    ]
)
