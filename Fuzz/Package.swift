// swift-tools-version: 5.4
import Foundation
import PackageDescription

// A path dependency is named after its folder, which is whatever the clone is called.
let readerPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// The libFuzzer targets, a package of their own so that the main package never links a second
// `main`: `Fuzz/run` builds them with `-sanitize=fuzzer,address` and runs one. What an input goes
// through is the main package's `ReaderFuzzing` (`Fuzz/Harness`), which the tests replay too.
// Tools version 5.4 on purpose: from 5.5 on, SwiftPM renames an executable's entry point and
// points `main` at it, which leaves nothing for libFuzzer's own `main` to do.
let package = Package(
    name: "ReaderFuzz",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // The whole path of an answer: status, headers and body → decision → the row stored and
        // read back → every renderer → the exit code.
        .executableTarget(
            name: "ReaderFuzz",
            dependencies: [.product(name: "ReaderFuzzing", package: readerPackage)]
        ),
        // Every column of a cache row (and the token file), as any of SQLite's kinds of value.
        .executableTarget(
            name: "ReaderCacheFuzz",
            dependencies: [.product(name: "ReaderFuzzing", package: readerPackage)]
        ),
    ]
)
