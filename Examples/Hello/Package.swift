// swift-tools-version:6.1
import PackageDescription

/// The app of FlowServer's "Getting started" article: one flow, two pages, a three-line main.
let package = Package(
    name: "Hello",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "FlowServer", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "Hello",
            dependencies: [
                .product(name: "FlowServerRuntime", package: "FlowServer"),
                .product(name: "FlowCore", package: "FlowServer"),
                .product(name: "FlowWeb", package: "FlowServer"),
            ])
    ]
)
