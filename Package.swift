// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "reader",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ReaderKit", targets: ["ReaderKit"]),
        // The `reader` command as a library: a program that registers services of its own
        // (`ServicePlugin`) and runs `reader` with them, as `reader-openlibrary` does.
        .library(name: "ReaderCLI", targets: ["ReaderCLI"]),
        .executable(name: "reader", targets: ["ReaderMain"]),
        // The fuzz harnesses, for the libFuzzer targets: a package of their own (`Fuzz/Package.swift`)
        // reaches a target only through a product. Not an API: use ReaderKit.
        .library(name: "ReaderFuzzing", targets: ["ReaderFuzzing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // TLS is AsyncHTTPClient's; ReaderKit reads its errors, and a refused certificate's dates.
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The config file's TOML (toml++ underneath: it reports the line of a syntax error).
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        // Property tests of every parser at a boundary (test targets only).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // `swift package generate-documentation` (Scripts/build-docs): ReaderKit's DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(
            name: "CReaderSQLite",
            dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]
        ),
        .target(
            name: "ReaderKit",
            dependencies: [
                "CReaderSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ]
        ),
        // The `reader` commands: parse, call ReaderKit, render. A library, so that the fuzz harnesses
        // and the tests reach its renderers; `ReaderMain` is the executable around it.
        .target(
            name: "ReaderCLI",
            dependencies: [
                "ReaderKit",
                "ReaderTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // The full-screen layer under `reader browse`: keys decoded, a grid of cells diffed to the
        // terminal, the terminal borrowed and given back, and an Elm-style program loop. And the
        // terminal line by line: its width, colour, messages wrapped to it, a progress line. It knows
        // no command and no service (the screens are ReaderCLI's), only ReaderKit's text rules and
        // its progress reports.
        .target(
            name: "ReaderTerminal",
            dependencies: ["ReaderKit"]
        ),
        .executableTarget(
            name: "ReaderMain",
            dependencies: ["ReaderCLI"]
        ),
        // One input through everything reader does with an answer or a cache row, for the libFuzzer
        // targets and the tests that replay their findings. It reaches the engine's and the app's
        // internals through `package` access, which library users do not have.
        .target(
            name: "ReaderFuzzing",
            dependencies: [
                "ReaderCLI",
                "ReaderKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Fuzz/Harness"
        ),
        .target(
            name: "TestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport"
        ),
        // The benchmarks' loopback server (bench/run builds and starts it).
        .executableTarget(
            name: "ReaderBenchServer",
            dependencies: [
                "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "bench/Server"
        ),
        // `reader browse` measured in the process: a key to its finished frame, bytes per frame.
        .executableTarget(
            name: "ReaderBrowseBench",
            dependencies: ["ReaderCLI", "ReaderKit", "ReaderTerminal"],
            path: "bench/Browse"
        ),
        // Reddit's feeds measured: a cached read through the feed against the JSON API's, and big feeds read.
        .executableTarget(
            name: "ReaderFeedBench",
            dependencies: ["ReaderKit", "TestSupport"],
            path: "bench/Feed"
        ),
        // The README's library example, exactly as printed there: built, and run by the tests.
        .executableTarget(name: "films-example", dependencies: ["ReaderKit"], path: "Examples/Films"),
        // A third service, outside ReaderKit: built on its public API alone (Examples/OpenLibrary/README.md).
        .target(
            name: "OpenLibraryKit",
            dependencies: ["ReaderKit"],
            path: "Examples/OpenLibrary/Sources/OpenLibraryKit"
        ),
        .executableTarget(
            name: "openlibrary",
            dependencies: [
                "OpenLibraryKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/OpenLibrary/Sources/openlibrary"
        ),
        // The same service as a plug-in of `reader`, and `reader` with it registered: the test
        // that a service is a folder and one line.
        .target(
            name: "ReaderOpenLibrary",
            dependencies: [
                "OpenLibraryKit", "ReaderCLI", "ReaderTerminal",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/OpenLibrary/Sources/ReaderOpenLibrary"
        ),
        .executableTarget(
            name: "reader-openlibrary",
            dependencies: ["ReaderOpenLibrary", "ReaderCLI"],
            path: "Examples/OpenLibrary/Sources/reader-openlibrary"
        ),
        .testTarget(
            name: "OpenLibraryTests",
            dependencies: ["OpenLibraryKit", "openlibrary", "reader-openlibrary", "ReaderKit", "TestSupport"],
            path: "Examples/OpenLibrary/Tests/OpenLibraryTests"
        ),
        .testTarget(
            name: "ReaderKitTests",
            dependencies: [
                "ReaderKit",
                "ReaderFuzzing",
                .product(name: "PropertyBased", package: "swift-property-based"),
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "ReaderTerminalTests",
            dependencies: [
                "ReaderTerminal",
                "ReaderKit",
                "TestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "ReaderCLITests",
            dependencies: [
                "ReaderCLI",
                "ReaderFuzzing",
                "ReaderMain",
                "films-example",
                .product(name: "PropertyBased", package: "swift-property-based"),
                "ReaderKit",
                "ReaderTerminal",
                "TestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
    ]
)
