// swift-tools-version:6.0
import PackageDescription

// No Swift package dependencies: only the toolchain plus system C libraries from apt
// (libcurl4-openssl-dev, zlib1g-dev, libssl-dev, libidn2-dev).
let package = Package(
    name: "ListServer",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "listserver", targets: ["ListServer"]),
        .library(name: "Converter", targets: ["Converter"]),
        .library(name: "ListSync", targets: ["ListSync"]),
    ],
    targets: [
        // Thin C wrappers for variadic and macro APIs Swift cannot call directly.
        .target(
            name: "CNIOShim",
            linkerSettings: [
                .linkedLibrary("curl"),
                .linkedLibrary("z"),
                .linkedLibrary("crypto"),
                .linkedLibrary("idn2"),
            ]
        ),
        // Pure conversion: ABP bytes in, WebKit rule lists and a report out. No sockets, no files.
        .target(name: "Converter", dependencies: ["CNIOShim"]),
        // WebKit's content-blocker decision over published lists, for `explain`. Pure, like Converter.
        .target(name: "ContentBlockerEngine"),
        // The device-side sync client: Foundation only, reusable by an app. SHA-256 comes from
        // CryptoKit on Apple platforms and from libcrypto (through the shim) on Linux only.
        .target(name: "ListSync", dependencies: [.target(name: "CNIOShim", condition: .when(platforms: [.linux]))]),
        // The server executable: fetch, publish, serve, and the command-line front end.
        .executableTarget(name: "ListServer", dependencies: ["Converter", "CNIOShim", "ListSync", "ContentBlockerEngine"]),
        .testTarget(name: "ConverterTests", dependencies: ["Converter"]),
        .testTarget(name: "ListServerTests", dependencies: ["ListServer", "Converter", "ListSync", "CNIOShim", "ContentBlockerEngine"]),
        .testTarget(name: "ContentBlockerEngineTests", dependencies: ["ContentBlockerEngine"]),
    ],
    swiftLanguageModes: [.v5]
)
