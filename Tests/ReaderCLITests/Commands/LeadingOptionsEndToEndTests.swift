import Foundation
import Testing
import TestSupport

/// The options every command takes, given before the command's name, mean what they mean after
/// it (`reader --offline films` is `reader films --offline`); a command that does not take one
/// refuses it as it would after its name, and an unknown option is refused as before.
@Suite(.processSlot) struct LeadingOptionsEndToEndTests {
    @Test func commonOptionsBeforeTheCommandMeanWhatTheyMeanAfterIt() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let online = try await reader.run("films")
            #expect(online.status == 0, "\(online.stderr)")
            let asked = server.requests.count

            // --offline: from the cache, without a request.
            let offline = try await reader.run("--offline", "films")
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(offline.stdout == online.stdout)
            #expect(server.requests.count == asked)

            // --json and a detail view, a flag and its value in both spellings, -v.
            let json = try await reader.run("--json", "--timeout", "5s", "--retries=0", "-v", "films", "1")
            let jsonAfter = try await reader.run("films", "1", "--json", "--timeout", "5s", "--retries=0", "-v")
            #expect(json.status == 0 && jsonAfter.status == 0, "\(json.stderr)")
            let item = try #require(json.json?["item"] as? NSDictionary, "\(json.stdout)")
            #expect(item == jsonAfter.json?["item"] as? NSDictionary)
            #expect(item["title"] as? String == "A New Hope")
            #expect(json.stderr.contains("[ReaderKit] GET\n"), "verbose: \(json.stderr)")

            // A value that is a negative number still reaches the option's own check.
            let negative = try await reader.run("--timeout", "-1", "films")
            #expect(negative.status == 64)
            #expect(negative.stderr.hasPrefix("error R1001: --timeout must be more than 0 and at most 1 hour, got -1s\n"), "\(negative.stderr)")

            // --cache-path, before a command with subcommands and before its subcommand.
            let elsewhere = reader.folder.appendingPathComponent("elsewhere.sqlite").path
            let path = try await reader.run("--cache-path", elsewhere, "cache", "path")
            #expect(path.status == 0 && path.stdout == elsewhere + "\n", "\(path.stderr)")
            let stats = try await reader.run("--json", "--cache-path=\(elsewhere)", "cache")
            #expect(stats.json?["path"] as? String == elsewhere, "\(stats.stdout) \(stats.stderr)")
        }
    }

    @Test func noColorBeforeTheCommandTurnsColourOffOnATerminal() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let coloured = try await reader.runOnTerminal(["people", "1"], streams: [.standardOutput])
            #expect(coloured.status == 0 && coloured.stdout.contains("\u{1B}["), "the control run must colour")
            let plain = try await reader.runOnTerminal(["--no-color", "people", "1"], streams: [.standardOutput])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout.contains("Luke Skywalker"))
            #expect(!plain.stdout.contains("\u{1B}["), "\(plain.stdout.debugDescription)")
        }
    }

    /// Where the command does not take the option, or the option is not one, the refusal is the
    /// one given with the option after the command's name, or as before.
    @Test(arguments: [
        (["--offline", "status"], "error R1001: Unknown option '--offline'"),
        (["--offline", "sync", "swapi"], "error R1001: sync fills the cache from the network; it cannot run with --offline"),
        (["--bogus", "films"], "error R1001: Unknown option '--bogus'"),
        (["--offline", "--bogus", "films"], "error R1001: Unknown option '--offline'"),
        (["--offline"], "error R1001: Unknown option '--offline'"),
    ])
    func refusalsSayWhatTheySayAfterTheCommand(arguments: [String], message: String) async throws {
        let result = try await ReaderProcess().run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix(message), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// A word that is not a command, after a common option, is answered as it is before one.
    @Test func aMisspeltCommandIsAnsweredAsWithTheOptionAfterIt() async throws {
        let reader = ReaderProcess()
        let before = try await reader.run("--offline", "film")
        let after = try await reader.run("film", "--offline")
        #expect(before.status == 64 && before.stderr == after.stderr, "\(before.stderr)")
    }
}
