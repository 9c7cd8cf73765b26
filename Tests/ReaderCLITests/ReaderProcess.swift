import Foundation
import TestSupport

/// Runs the built `reader` binary, as a user or a script would, and captures what it printed.
struct ReaderProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary beside the test bundle in the build folder.
    static let executable: URL = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = exe.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("reader").path), folder.path != "/" {
            folder = folder.deletingLastPathComponent()
        }
        return folder.appendingPathComponent("reader")
    }()

    /// A private folder for one test's cache.
    let folder: URL
    var environment: [String: String]

    init(server: TestServer? = nil, swapiURL: String? = nil, redditURL: String? = nil) {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-e2e-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        environment = [
            "HOME": folder.path,
            "PATH": "/usr/bin:/bin",
            "READER_CACHE_PATH": folder.appendingPathComponent("cache/cache.sqlite").path,
            "READER_SWAPI_URL": swapiURL ?? (server.map { $0.baseURL + "/api" } ?? "http://127.0.0.1:9/api"),
            "READER_REDDIT_URL": redditURL ?? (server?.baseURL ?? "http://127.0.0.1:9"),
        ]
    }

    var cachePath: String { environment["READER_CACHE_PATH"]! }

    /// Runs `reader ARGUMENTS` with no terminal attached and waits for it.
    func run(_ arguments: String...) throws -> Result {
        try run(arguments)
    }

    func run(_ arguments: [String]) throws -> Result {
        try launch(arguments).wait()
    }

    /// A `reader` process started and not yet waited for.
    struct Running {
        let process: Process
        let out: URL
        let err: URL

        /// Waits for it to end and collects what it printed.
        func wait() -> Result {
            process.waitUntilExit()
            return Result(status: process.terminationStatus,
                          stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        }
    }

    /// Starts `reader ARGUMENTS` (through `prefix`, such as `setpriv …`, when given) without waiting.
    func launch(_ arguments: [String], prefix: [String] = [], executable: URL = ReaderProcess.executable) throws -> Running {
        let process = Process()
        process.executableURL = prefix.first.map { URL(fileURLWithPath: $0) } ?? executable
        process.arguments = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + [executable.path] + arguments
        process.environment = environment
        let out = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        FileManager.default.createFile(atPath: out.path, contents: nil)
        FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err)
    }
}

extension ReaderProcess.Result {
    /// stdout as a JSON object.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }

    /// stderr as the JSON error object's members.
    var errorJSON: [String: Any]? {
        ((try? JSONSerialization.jsonObject(with: Data(stderr.utf8))) as? [String: Any])?["error"] as? [String: Any]
    }
}
