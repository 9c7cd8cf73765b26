import Foundation
import Testing
import TestSupport

/// `reader sync` that knows its total: progress by service and phase, each phase's total fixed
/// from its start; a summary grouped by code with a few ids and a hint that fits each code;
/// plain `reader sync` saying what it needs; and help that lists only what sync takes.
@Suite(.processSlot) struct SyncProgressAndSummaryEndToEndTests {
    /// The progress lines a terminal received: `syncing swapi, resources: 12/260` → ("swapi, resources", 12, 260).
    static func progressLines(_ shown: String) -> [(phase: String, completed: Int, total: Int)] {
        shown.components(separatedBy: "\r\u{1B}[K").compactMap { line in
            guard line.hasPrefix("syncing "), let colon = line.range(of: ": ", options: .backwards) else { return nil }
            let numbers = line[colon.upperBound...].split(separator: "/")
            guard numbers.count == 2, let completed = Int(numbers[0]), let total = Int(numbers[1].prefix { $0.isNumber }) else { return nil }
            return (String(line[line.index(line.startIndex, offsetBy: "syncing ".count)..<colon.lowerBound]), completed, total)
        }
    }

    @Test(.replaysRecordings) func progressNamesTheServiceAndPhaseAndNoTotalMoves() async throws {
        // Given all of SWAPI: 6 collections, 28 pages (6 first ones, 22 more), 260 resources.
        let data = SWAPIDataSet()
        // And r/python's 102 posts, each with comments.
        try await withTestServer { request in
            request.path.hasPrefix("/comments/") ? .json(Fixtures.bytes("reddit/comments_r_python_2xmo63.json"))
                : data.reply(to: request) ?? Fixtures.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)

            // When syncing both with stderr on a terminal.
            let result = try await reader.runOnTerminal(["sync", "swapi", "reddit", "python"], streams: .standardError)

            // Then each phase is named with its service and keeps one total from start to end...
            #expect(result.status == 0, "\(result.stderr.debugDescription)")
            let lines = Self.progressLines(result.stderr)
            let expectedTotals = ["swapi, first pages": 6, "swapi, more pages": 22, "swapi, resources": 260,
                                  "reddit, listings": 1, "reddit, comments": 102]
            for (phase, total) in expectedTotals {
                let shown = lines.filter { $0.phase == phase }
                #expect(!shown.isEmpty && shown.allSatisfy { $0.total == total }, "\(phase): \(shown)")
                #expect(shown.last?.completed == total, "\(phase) ends at its total: \(shown.last.map { "\($0)" } ?? "none")")
                #expect(zip(shown, shown.dropFirst()).allSatisfy { $0.completed <= $1.completed }, "\(phase) counts up")
            }
            // ...and the phases come in order, never going back to an earlier one.
            let order = ["swapi, first pages", "swapi, more pages", "swapi, resources", "reddit, listings", "reddit, comments"]
            let phases = lines.map(\.phase)
            #expect(Set(phases).isSubset(of: Set(order)), "\(Set(phases))")
            let indices = phases.compactMap { order.firstIndex(of: $0) }
            #expect(zip(indices, indices.dropFirst()).allSatisfy { $0 <= $1 }, "\(phases)")
        }
    }

    @Test func theSummaryGroupsFailuresByCodeWithAFewIdsAndAHintThatFits() async throws {
        // Given people after id 40 gone (404 {"detail": "Not found"}), and starships that close
        // the connection: 43 people (ids 41…83) and 36 starships.
        let data = SWAPIDataSet()
        try await withTestServer { request in
            let parts = request.path.split(separator: "/")
            if parts.count == 3, parts[1] == "people", let id = Int(parts[2]), id > 40 {
                return .json(Array(#"{"detail": "Not found"}"#.utf8), status: 404)
            }
            if parts.count == 3, parts[1] == "starships" { return .close }
            return data.reply(to: request) ?? Fixtures.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)

            // When syncing.
            let sync = try await reader.run("sync", "swapi", "--retries", "0")

            // Then each code is one group: its count, its first three ids, the rest counted, and a
            // hint of its own: a 404 is not "run it again".
            #expect(sync.status == 66, "\(sync.stderr)")
            let lines = sync.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "sync swapi: 209 fetched, 79 failed (A404 ×43, T1005 ×36)", "\(sync.stdout)")
            let notFound = try #require(lines.firstIndex { $0.hasPrefix("  A404 ×43: ") }, "\(sync.stdout)")
            #expect(lines[notFound].hasSuffix("(people/41, people/42, people/43 and 40 more)"), "\(lines[notFound])")
            #expect(lines[notFound + 1] == "    hint: they are gone or never existed: running the sync again will not bring them back")
            let lost = try #require(lines.firstIndex { $0.hasPrefix("  T1005 ×36: ") }, "\(sync.stdout)")
            #expect(lines[lost].hasSuffix("(starships/1, starships/2, starships/3 and 33 more)"), "\(lines[lost])")
            #expect(lines[lost + 1] == "    hint: run the sync again to fill these gaps")
            // The closing error says what running it again can and cannot do.
            #expect(sync.stderr.contains("error A404: the sync is incomplete: 79 requests failed"), "\(sync.stderr)")
            #expect(sync.stderr.contains("hint: running it again may fill the gaps of T1005, not those of A404"), "\(sync.stderr)")
            #expect(!sync.stderr.contains("run it again to fill the gaps"), "\(sync.stderr)")

            // And --json gives each group's examples and suggestion.
            let json = try await reader.run("sync", "swapi", "--retries", "0", "--json")
            let failures = (json.json?["swapi"] as? [String: Any])?["failures"] as? [[String: Any]] ?? []
            let group = failures.first { $0["code"] as? String == "A404" }
            #expect(group?["count"] as? Int == 43 && group?["examples"] as? [String] == ["people/41", "people/42", "people/43"], "\(json.stdout)")
            #expect((group?["hint"] as? String)?.contains("will not bring them back") == true, "\(json.stdout)")
        }
    }

    @Test(.replaysRecordings) func aHundredDifferentNotFoundsAreNotToldAsTheFirstOne() async throws {
        // Given r/python's 102 posts, each of whose comments answers Reddit's 404.
        try await withTestServer { request in
            request.path.hasPrefix("/comments/")
                ? .json(Fixtures.bytes("reddit/error_404_not_found_r_a_plus_b.json"), status: 404) : Fixtures.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)

            // When syncing the subreddit.
            let sync = try await reader.run("sync", "reddit", "python", "--retries", "0")

            // Then the group says what the code means, names the first three posts, counts the rest,
            // and does not tell to run it again.
            #expect(sync.status == 66, "\(sync.stderr)")
            let group = try #require(sync.stdout.split(separator: "\n").first { $0.hasPrefix("  A404 ×102: ") }, "\(sync.stdout)")
            #expect(group == "  A404 ×102: not found (404) (post 6302cj, post 6zn6fy, post 6zsvt7 and 99 more)", "\(group)")
            #expect(!sync.stdout.contains("does not exist"), "\(sync.stdout)")
            #expect(sync.stderr.contains("hint: running it again will not fill these gaps (A404)"), "\(sync.stderr)")
        }
    }

    @Test func plainSyncSaysWhatItNeedsAndItsHelpListsOnlyWhatItTakes() async throws {
        let reader = ReaderProcess()

        // Plain `reader sync`: a clear R1001, exit 64, that says what to give.
        let plain = try await reader.run("sync")
        #expect(plain.status == 64)
        #expect(plain.stderr.hasPrefix("error R1001: say what to sync: swapi, reddit SUBREDDIT…, or both; or name them in "),
                "\(plain.stderr)")
        #expect(plain.stderr.contains("[sync] swapi = true"), "\(plain.stderr)")
        // A slip is answered with what was meant.
        let slip = try await reader.run("sync", "swapy")
        #expect(slip.status == 64 && slip.stderr.contains("(did you mean swapi?)"), "\(slip.stderr)")

        // Its help has no --offline, which it always refuses; --refresh, which it takes, stays.
        let help = try await reader.run("sync", "--help")
        #expect(help.status == 0)
        #expect(!help.stdout.contains("  --offline"), "\(help.stdout)")
        #expect(help.stdout.contains("  --refresh"), "\(help.stdout)")
        // Given anyway, it is explained rather than unknown.
        let offline = try await reader.run("sync", "swapi", "--offline")
        #expect(offline.status == 64 && offline.stderr.contains("it cannot run with --offline"), "\(offline.stderr)")
    }
}
