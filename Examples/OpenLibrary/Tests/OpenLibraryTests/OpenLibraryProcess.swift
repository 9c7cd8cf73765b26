import Foundation
import TestSupport

/// Runs the built `openlibrary` executable, as a person or a script would, with an environment
/// of its own: a private cache file, and Open Library at the test server.
struct OpenLibraryProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        /// stdout as a JSON object.
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    /// The executable `name` beside the test bundle in the build folder.
    static func executable(_ name: String) -> URL { BuiltProducts.executable(name) }

    /// The program run: `openlibrary`, or `reader-openlibrary` (`reader` with Open Library registered).
    var program = "openlibrary"

    /// A private folder for this test's cache and output, removed with the last copy of this
    /// value: at the end of the test, or when it throws.
    let scratch = TemporaryFolder("openlibrary-e2e")
    var folder: URL { scratch.url }
    var environment: [String: String]

    /// - Parameters:
    ///   - baseURL: where Open Library is; by default a port nothing listens on.
    ///   - contact: `OPENLIBRARY_CONTACT`, if any.
    init(baseURL: String = "http://127.0.0.1:9", contact: String? = "books@example.org") {
        let folder = scratch.url
        environment = [
            "HOME": folder.path,
            "PATH": "/usr/bin:/bin",
            "READER_CACHE_PATH": folder.appendingPathComponent("cache.sqlite").path,
            "OPENLIBRARY_URL": baseURL,
        ]
        if let contact { environment["OPENLIBRARY_CONTACT"] = contact }
    }

    init(server: TestServer, contact: String? = "books@example.org") {
        self.init(baseURL: server.baseURL, contact: contact)
    }

    /// Runs `openlibrary ARGUMENTS` with no terminal attached and waits for it.
    func run(_ arguments: String...) async throws -> Result {
        try await run(arguments)
    }

    func run(_ arguments: [String]) async throws -> Result {
        try await ProcessSlots.shared.withSlot { try await runNow(arguments) }
    }

    private func runNow(_ arguments: [String]) async throws -> Result {
        let process = Process()
        process.executableURL = Self.executable(program)
        process.arguments = arguments
        process.environment = environment
        let out = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        // FileHandle(forWritingTo:) below fails for a file that was not made.
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        await process.exited()
        return Result(status: process.terminationStatus,
                      stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
