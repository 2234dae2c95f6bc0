// swift-tools-version:6.1
import PackageDescription

/// FlowServer's benchmarks: built only by `make bench` (Benchmarks/run.sh), never by `make test`,
/// so benchmark-only dependencies never slow the main build.
let package = Package(
    name: "FlowServerBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FlowServer", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "MicroHTTPFixedPage",
            dependencies: [.product(name: "MicroHTTP", package: "FlowServer")]
        ),
    ]
)
