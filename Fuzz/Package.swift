// swift-tools-version: 5.4
import Foundation
import PackageDescription

// A path dependency is named after its folder, which is whatever the clone is called.
let readerPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

// The libFuzzer target, a package of its own so that the main package never links a second
// `main`: `Fuzz/run` builds it with `-sanitize=fuzzer,address` and runs it. Tools version 5.4
// on purpose: from 5.5 on, SwiftPM renames an executable's entry point and points `main` at it,
// which leaves nothing for libFuzzer's own `main` to do.
let package = Package(
    name: "ReaderFuzz",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "ReaderFuzz",
            dependencies: [.product(name: "ReaderKit", package: readerPackage)]
        ),
    ]
)
