// swift-tools-version:6.1
import PackageDescription

/// A Swift client of FlowServer's JSON API, generated at build time from FlowServer's `openapi.yaml` (`Sources/FlowWeb/Defaults/Public/`)
/// (linked into the target) by Apple's swift-openapi-generator — not part of FlowServer's build.
/// `flowserver-client-check <base URL>` drives a running demo through the API with it
/// (`make test`, `Tests/api/test_generated_swift_client.py`).
let package = Package(
    name: "FlowServerClient",
    platforms: [.macOS(.v15)],
    products: [.library(name: "FlowServerClient", targets: ["FlowServerClient"])],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // For the event stream: URLSession on Linux hands a body over only once it has ended.
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "FlowServerClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),
        .executableTarget(
            name: "flowserver-client-check",
            dependencies: [
                "FlowServerClient",
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ]),
    ]
)
