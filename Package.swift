// swift-tools-version:6.0
import PackageDescription

// No Swift package dependencies: only the toolchain plus system C libraries from apt
// (libcurl4-openssl-dev, zlib1g-dev, libssl-dev, libidn2-dev, libzstd-dev).
// What the origin's test targets may use: the stage modules, the libraries under them and the shared support.
let originTestDependencies: [Target.Dependency] = [
    "ListOrigin", "OriginConfig", "OriginStore", "OriginRefresh", "OriginServe", "Converter", "ListFormat", "ListSync",
    "CNIOShim", "CCurlShim", "CZlibShim", "HTTPServerCore", "ContentBlockerEngine", "PublicSuffix", "TestSupport", "OriginTestSupport",
    "DictionaryPatch", "DictionaryPatchOrigin", "ManifestSigning", "JSONBytes", "WebKitCompiler", "ProcessRunner",
]

let package = Package(
    name: "ListServer",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "listserver", targets: ["ListServer"]),
        .library(name: "Converter", targets: ["Converter"]),
        .library(name: "ListFormat", targets: ["ListFormat"]),
        .library(name: "ListSync", targets: ["ListSync"]),
        .library(name: "DictionaryPatch", targets: ["DictionaryPatch"]),
        .executable(name: "dcz", targets: ["DCZTool"]),
    ],
    targets: [
        // Thin C wrappers for variadic and macro APIs Swift cannot call directly, one target per C
        // library under Sources/CNIOShim, so each Swift target links only the libraries it calls.
        // The server's system calls (sockets, epoll, signals, memfd, malloc): libc only.
        .target(name: "CNIOShim", path: "Sources/CNIOShim/System"),
        // libcurl: the typed setopt/getinfo calls under CappedHTTPClient.
        .target(name: "CCurlShim", path: "Sources/CNIOShim/Curl", linkerSettings: [.linkedLibrary("curl")]),
        // zlib: deterministic gzip and bounded gunzip.
        .target(name: "CZlibShim", path: "Sources/CNIOShim/Zlib", linkerSettings: [.linkedLibrary("z")]),
        // libcrypto: SHA-256, constant-time comparison, Ed25519.
        .target(name: "CCryptoShim", path: "Sources/CNIOShim/Crypto", linkerSettings: [.linkedLibrary("crypto")]),
        // libidn2: domains to ASCII.
        .target(name: "CIDNShim", path: "Sources/CNIOShim/IDN", linkerSettings: [.linkedLibrary("idn2")]),
        // libzstd: dcz encode/decode.
        .target(name: "CZstdShim", path: "Sources/CNIOShim/Zstd", linkerSettings: [.linkedLibrary("zstd")]),
        // WebKitGTK 4.1's content-filter compiler, loaded at run time with dlopen: no WebKit at build
        // time, and a server without WebKitGTK installed still runs.
        .target(name: "CWebKitShim", path: "Sources/CNIOShim/WebKit", linkerSettings: [.linkedLibrary("dl")]),
        // The one child-process runner (posix_spawn, own waitpid), for production and the tests.
        .target(name: "ProcessRunner"),
        // Compiles lists in real WebKit in long-lived helper processes of our own binary; the
        // publish gate and `listserver verify` use it.
        .target(name: "WebKitCompiler", dependencies: ["CWebKitShim", "ProcessRunner"]),
        // JSON over bytes: the one hand-written writer and its one string escaping (the converter's rules,
        // the manifest, `explain`'s answers), and the one streaming reader with its UTF-8 check (the
        // converter's validator, the decision engine's list loader). No dependencies.
        .target(name: "JSONBytes"),
        // Pure conversion: ABP bytes in, WebKit rule lists and a report out. No sockets, no files.
        .target(name: "Converter", dependencies: ["CIDNShim", "URLFilterGrammar", "JSONBytes", "PublicSuffix"]),
        // The Public Suffix List: registrable domains for party tests (the converter's frame
        // conditions, the decision engine's `load-type`), and the loader of Debian's copy.
        .target(name: "PublicSuffix", dependencies: ["CIDNShim"]),
        // WebKit's url-filter grammar (the byte classes, escapes, quantifiers, WebKit's refusal
        // reasons and the one parser), shared by the converter's validator and regex rewriter and
        // the decision engine.
        .target(name: "URLFilterGrammar"),
        // WebKit's content-blocker decision over published lists, for `explain`. Pure, like Converter,
        // and downstream of it: its answers carry the converter's `SourceLine`s.
        .target(name: "ContentBlockerEngine", dependencies: ["URLFilterGrammar", "Converter", "JSONBytes", "PublicSuffix"]),
        // The published format both sides build on: the manifest, minisign keys and signatures, the
        // trusted comment, file names, SHA-256 and hex. Foundation only; SHA-256 and Ed25519 come from
        // CryptoKit on Apple platforms and from libcrypto (through the shim) on Linux only.
        .target(name: "ListFormat", dependencies: ["JSONBytes", .target(name: "CCryptoShim", condition: .when(platforms: [.linux]))]),
        // One capped libcurl GET with one redirect policy: the origin's upstream fetcher and, on Linux,
        // ListSync's capped reads. Links libcurl only.
        .target(name: "CappedHTTPClient", dependencies: ["CCurlShim"]),
        // The one durable file write (temp, fsync, rename or link, fsync the directory; one temp-name
        // format): the origin's published files and state, the signing key, the device's store.
        // Foundation and libc only, so the device library can use it.
        .target(name: "DurableFile"),
        // The device-side sync client: Foundation only, reusable by an app.
        .target(name: "ListSync", dependencies: ["DurableFile", "ListFormat", "DictionaryPatch", .target(name: "CappedHTTPClient", condition: .when(platforms: [.linux]))]),
        // The HTTP/1.1 server: event loops, parsing, static resources, a responder protocol. Knows nothing of lists.
        .target(name: "HTTPServerCore", dependencies: ["CNIOShim"]),
        // The HTTP fuzz entry point, a library so the tests build it and libFuzzer links it.
        .target(name: "HTTPFuzz", dependencies: ["HTTPServerCore"]),
        // The origin in stages (docs/architecture.md); each module may import only those below it.
        // What the origin is told: config.json, strictly read, its paths resolved, and the version.
        .target(name: "OriginConfig", dependencies: ["ListFormat", "Converter", "HTTPServerCore"]),
        // Layout and publish: sets on disk (hashed files, gzip, patches, signed manifest), the state
        // and history kept between runs, durable writes, and the status board both sides share. No HTTP.
        .target(name: "OriginStore", dependencies: ["OriginConfig", "Converter", "CNIOShim", "CZlibShim", "DurableFile", "ListFormat", "ManifestSigning", "DictionaryPatch", "DictionaryPatchOrigin"]),
        // Fetch, convert, gate and publish on a schedule, or follow a primary: produces sets.
        .target(name: "OriginRefresh", dependencies: ["PublicSuffix", "OriginStore", "OriginConfig", "Converter", "CappedHTTPClient", "ListFormat", "ListSync", "DictionaryPatch", "HTTPServerCore", "WebKitCompiler"]),
        // Serve: routes, the status page and JSON, metrics, explain, over the published set it is given.
        .target(name: "OriginServe", dependencies: ["PublicSuffix", "OriginStore", "OriginConfig", "Converter", "CCryptoShim", "CIDNShim", "ContentBlockerEngine", "DictionaryPatch", "DictionaryPatchOrigin", "HTTPServerCore", "JSONBytes", "ListFormat"]),
        // The command line and the composition root: wires a set source to the server.
        .target(name: "ListOrigin", dependencies: ["PublicSuffix", "OriginConfig", "DurableFile", "OriginStore", "OriginRefresh", "OriginServe", "Converter", "CNIOShim", "ContentBlockerEngine", "HTTPServerCore", "ListFormat", "ListSync", "ManifestSigning", "WebKitCompiler"]),
        // `listserver`: the process entry point; it hands the command line to ListOrigin, or runs
        // the WebKit compile helper when started as one.
        .executableTarget(name: "ListServer", dependencies: ["ListOrigin", "OriginStore", "WebKitCompiler"]),
        // The server's Ed25519 key (PKCS#8 PEM through libcrypto) and minisign signer, over ListFormat's
        // minisign types.
        .target(name: "ManifestSigning", dependencies: ["CCryptoShim", "ListFormat", "DurableFile"]),
        // Prints the cost of signing a manifest (scripts/bench/sign.sh).
        .executableTarget(name: "SigningBench", dependencies: ["ManifestSigning", "ListFormat", "CCryptoShim"]),
        // The converter's fuzz entry point: converts any bytes and traps unless every emitted list is
        // valid. Built and run over a seed corpus by the tests; scripts/fuzz/run-converter-fuzz.sh
        // compiles the same sources for libFuzzer.
        .target(name: "ConverterFuzz", dependencies: ["Converter"]),
        // Release timing of conversion alone (`swift run -c release ConvertTiming [lists...]`); not a product.
        .executableTarget(name: "ConvertTiming", dependencies: ["Converter"]),
        // Helpers both test targets share: seeded randomness, child processes, loopback sockets, bounded waits.
        .target(name: "TestSupport", dependencies: ["ProcessRunner"], path: "Tests/Support"),
        .testTarget(name: "ConverterTests", dependencies: ["Converter", "ConverterFuzz", "TestSupport", "CZlibShim", "URLFilterGrammar", "ContentBlockerEngine", "JSONBytes", "PublicSuffix"]),
        .testTarget(name: "JSONBytesTests", dependencies: ["JSONBytes"]),
        // Fixtures and harnesses the origin's test targets share: the in-process server, scripted origins,
        // a Varnish edge, WebKit runs, followers, the upstream lists the tests convert.
        .target(name: "OriginTestSupport", dependencies: ["ListOrigin", "OriginConfig", "OriginStore", "OriginRefresh", "OriginServe", "Converter", "ListFormat", "ListSync", "CNIOShim", "CCurlShim", "CZlibShim", "HTTPServerCore", "ContentBlockerEngine", "TestSupport", "DictionaryPatch", "DictionaryPatchOrigin", "ManifestSigning", "JSONBytes", "WebKitCompiler", "ProcessRunner", "PublicSuffix"], path: "Tests/OriginSupport"),
        // The origin's tests, one target per stage module, fast tier: in-process code and loopback sockets.
        .testTarget(name: "OriginConfigTests", dependencies: originTestDependencies),
        .testTarget(name: "OriginStoreTests", dependencies: originTestDependencies),
        .testTarget(name: "OriginRefreshTests", dependencies: originTestDependencies),
        .testTarget(name: "OriginServeTests", dependencies: originTestDependencies),
        .testTarget(name: "ListOriginTests", dependencies: originTestDependencies),
        // The end-to-end tier: real WebKit, Varnish, GNOME Web, Chromium, `listserver` processes, kill -9,
        // systemd and network namespaces. `scripts/test.sh --fast` skips it.
        .testTarget(name: "OriginEndToEndTests", dependencies: originTestDependencies),
        .testTarget(name: "DurableFileTests", dependencies: ["DurableFile", "TestSupport"]),
        .testTarget(name: "ListSyncTests", dependencies: ["ListSync", "TestSupport"]),
        .testTarget(name: "ListFormatTests", dependencies: ["ListFormat"]),
        .testTarget(name: "CappedHTTPClientTests", dependencies: ["CappedHTTPClient", "TestSupport"]),
        .testTarget(name: "URLFilterGrammarTests", dependencies: ["URLFilterGrammar"]),
        .testTarget(name: "HTTPServerCoreTests", dependencies: ["HTTPServerCore", "HTTPFuzz", "TestSupport"]),
        .testTarget(name: "SigningTests", dependencies: ["ManifestSigning", "ListFormat", "ListSync", "ListOrigin", "OriginStore", "TestSupport"]),
        // The device side: the dcz format, bounded decoding through a decoder protocol (libzstd through
        // the shim on Linux; an app supplies its own zstd on Apple platforms). Foundation only.
        .target(name: "DictionaryPatch", dependencies: ["ListFormat", .target(name: "CZstdShim", condition: .when(platforms: [.linux]))]),
        // The origin side: the deterministic encoder, the size rule, patch file names, RFC 9842 header values.
        .target(name: "DictionaryPatchOrigin", dependencies: ["DictionaryPatch", "ListFormat", "CZstdShim"]),
        // `dcz encode|decode|measure`: a child process for the tests and the figures in docs/patches.md.
        .executableTarget(name: "DCZTool", dependencies: ["DictionaryPatch", "DictionaryPatchOrigin", "ListFormat"]),
        .testTarget(name: "DictionaryPatchTests",
                    dependencies: ["DictionaryPatch", "DictionaryPatchOrigin", "ListFormat", "DCZTool", "Converter", "CZstdShim", "TestSupport"]),
        .testTarget(name: "ContentBlockerEngineTests", dependencies: ["ContentBlockerEngine", "Converter", "PublicSuffix"]),
    ],
    swiftLanguageModes: [.v5]
)
