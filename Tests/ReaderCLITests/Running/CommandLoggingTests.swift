import Foundation
@testable import ReaderCLI
@testable import ReaderKit
import Testing

/// swift-log's global system traps when bootstrapped twice: a process that runs several commands
/// (these tests, the fuzzers) must not, and each command logs at its own level.
@Suite struct CommandLoggingTests {
    @Test func commandsRunOneAfterAnotherInOneProcessEachLogAtTheirOwnLevel() async throws {
        // Given: a cache path of the test's own (the client is never asked to load: nothing is opened).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-logging-\(UUID().uuidString)")
        let environment = ["HOME": folder.path, "READER_CACHE_PATH": folder.appendingPathComponent("cache.sqlite").path]
        let verbose = try GlobalOptions.parse(["--verbose"])
        let quiet = try GlobalOptions.parse([])

        // When: three commands run in this one process, verbose, quiet, verbose.
        var levels: [String] = []
        for options in [verbose, quiet, verbose] {
            levels.append(try await CommandRunner.withClient(options, environment: environment) { client in "\(client.logger.logLevel)" })
        }

        // Then: none trapped, and each logged as its own --verbose said.
        #expect(levels == ["debug", "critical", "debug"])
        #expect(!FileManager.default.fileExists(atPath: folder.path), "no cache was made")
    }
}
