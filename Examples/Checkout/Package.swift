// swift-tools-version:6.1
import PackageDescription

/// A checkout wizard built on FlowServer's public API: a copy of this folder, with the path below
/// pointed at FlowServer (or its Git URL), is a new app.
let package = Package(
    name: "Checkout",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "checkout", targets: ["checkout"])],
    dependencies: [
        .package(name: "FlowServer", path: "../.."),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The app: steps, flows, pages, services. No server code.
        .target(
            name: "Checkout",
            dependencies: [
                .product(name: "FlowServer", package: "FlowServer"),
                // The payment webhook's signatures.
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The executable: the app handed to FlowServer's runtime, which gives it the whole command line.
        .executableTarget(
            name: "checkout",
            dependencies: [
                "Checkout",
                .product(name: "FlowServer", package: "FlowServer"),
                // The app's own flag beside FlowServer's.
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "CheckoutTests",
            dependencies: [
                "Checkout",
                .product(name: "FlowServer", package: "FlowServer"),
                .product(name: "FlowTesting", package: "FlowServer"),
            ]),
    ]
)
