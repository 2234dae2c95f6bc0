// swift-tools-version:6.1
import PackageDescription

/// The benchmark peer (scenario 4 of `make bench`): Hummingbird 2 and swift-mustache rendering the
/// demo's movie page with the same templates and data as FlowServer. Built only by `make bench`.
let package = Package(
    name: "FlowServerPeers",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "HummingbirdPeer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
    ]
)
