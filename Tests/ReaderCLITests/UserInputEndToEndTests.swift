import Foundation
import Testing
import TestSupport

/// What a user meets when an argument, the environment or the config file is not what reader
/// takes: the message says what is wrong and what is taken, and nothing is done on a guess.
@Suite struct UserInputEndToEndTests {
    /// A negative number after an option is its value, so the option's own check says its bounds.
    @Test(arguments: [
        (["films", "--page", "-1"], "--page must be a whole number from 1 to 10000, got -1"),
        (["people", "-99"], "the id must be a whole number from 1 to 1000000, got -99"),
        (["films", "--retries", "-1"], "--retries must be from 0 to 10, got -1"),
        (["films", "--timeout", "-1"], "--timeout must be more than 0 and at most 1 hour, got -1s"),
        (["films", "--max-age", "-2h"], "--max-age must be from 0 to 100 years, got -2h"),
        (["films", "--max-stale", "-1"], "--max-stale must be from 0 to 100 years, got -1s"),
        (["films", "--max-wait", "-1"], "--max-wait must be from 0 to a day, got -1s"),
        (["films", "--cache-size", "-1"], "--cache-size must be 0 or more, got -1 B"),
        (["comments", "2xmo63", "--depth", "-1"], "--depth must be from 1 to 10, got -1"),
        (["comments", "2xmo63", "--limit", "-5"], "--limit must be from 1 to 500, got -5"),
        (["config", "--retries", "-3"], "--retries must be from 0 to 10, got -3"),
        (["status", "--timeout", "-1"], "--timeout must be more than 0 and at most 5 minutes, got -1s"),
        (["cache", "prune", "--older-than", "-1d"], "--older-than must be from 0 to 100 years, got -1d"),
    ])
    func aNegativeNumberReachesTheOptionsOwnCheck(arguments: [String], message: String) async throws {
        let server = try await TestServer(Fixtures.route)
        let result = try ReaderProcess(server: server).run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("error R1001: \(message)\n"), "\(arguments): \(result.stderr)")
        #expect(server.requests.isEmpty)
        await server.shutdown()
    }

    /// The cache commands' options are taken before the subcommand's name as after it.
    @Test func theCacheCommandsTakeTheirOptionsBeforeTheSubcommand() throws {
        let reader = ReaderProcess()
        let path = reader.folder.appendingPathComponent("elsewhere.sqlite").path
        let before = try reader.run("cache", "--cache-path", path, "path")
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == path + "\n")
        let after = try reader.run("cache", "path", "--cache-path", path)
        #expect(after.status == 0 && after.stdout == path + "\n", "\(after.stderr)")
        let json = try reader.run("cache", "--json", "--cache-path", path, "path")
        #expect(json.json?["path"] as? String == path, "\(json.stdout) \(json.stderr)")
        // Without a subcommand: stats, the default, on that file.
        let stats = try reader.run("cache", "--cache-path", path, "--json")
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.json?["path"] as? String == path, "\(stats.stdout)")
    }
}
