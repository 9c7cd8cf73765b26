import Foundation
import GRDB
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// The contract, end to end: the built `reader` binary against a real server on 127.0.0.1 that
/// serves the recorded fixtures and injects faults, asserting stdout, stderr and the exit code.
@Suite(.processSlot) struct ContractEndToEndTests {
    /// A fault the server injects instead of the fixture, switchable between two runs.
    enum Fault: Sendable, CaseIterable {
        case htmlNotFound, corruptJSON, otherShape, htmlWith200, internalError, unavailableWithLongRetryAfter

        var reply: TestServer.Reply {
            switch self {
            case .htmlNotFound:
                .respond(status: 404, headers: [("Content-Type", "text/html")], body: Fixtures.bytes("swapi/unknown_resource_404.html"))
            case .corruptJSON: .json(Array(#"{"count": 6, "results": [{"title": "A New"#.utf8))
            case .otherShape: .json(Array(#"{"count": 6, "next": null, "previous": null, "results": [{"name": "no title"}]}"#.utf8))
            case .htmlWith200:
                .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html><title>Hotel WiFi login</title></html>".utf8))
            case .internalError: .json(Fixtures.bytes("reddit/error_500_internal_server_error.json"), status: 500)
            case .unavailableWithLongRetryAfter: .json(Array("{}".utf8), status: 503, headers: [("Retry-After", "3600")])
            }
        }

        /// The code and exit code without a cached copy.
        var expected: (code: String, exit: Int32) {
            switch self {
            case .htmlNotFound: ("H404", 66)
            case .corruptJSON: ("D1002", 65)
            case .otherShape: ("D1003", 65)
            case .htmlWith200: ("D1001", 76)
            case .internalError: ("A500", 69)
            case .unavailableWithLongRetryAfter: ("H503", 69)
            }
        }

        /// Whether a cached copy is served instead (404 is never served: it resets the copy).
        var servesStale: Bool { self != .htmlNotFound }
    }

    /// A fixture server whose answer can be switched to a fault.
    final class FaultyServer: ShutsDown, Sendable {
        let fault = NIOLockedValueBox<Fault?>(nil)
        let server: TestServer

        func shutdown() async { await server.shutdown() }

        init() async throws {
            let fault = self.fault
            server = try await TestServer { request in
                fault.withLockedValue { $0 }?.reply ?? SampleAPI.route(request)
            }
        }
    }

    @Test func successPrintsATableAndExitsZero() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let result = try await reader.run("films")
            #expect(result.status == 0)
            #expect(result.stdout.contains("A New Hope") && result.stdout.contains("George Lucas"))
            #expect(result.stdout.hasPrefix("ID"))
            #expect(!result.stderr.contains("error"))
            #expect(server.requests.map(\.target) == ["/api/films/"])
        }
    }

    @Test func jsonOutputKeepsTheAPIsFieldNamesAndSaysWhereTheDataCameFrom() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let first = try #require(try await reader.run("films", "--json").json)
            let items = try #require(first["items"] as? [[String: Any]])
            #expect(items.count == 6)
            let newHope = try #require(items.first)
            #expect(newHope["episode_id"] as? Int == 4 && newHope["opening_crawl"] != nil)
            let meta = try #require(first["meta"] as? [String: Any])
            #expect(meta["source"] as? String == "network" && meta["stale"] as? Bool == false)
            #expect(meta["error_code"] is NSNull && meta["count"] as? Int == 6)

            let second = try #require(try await reader.run("films", "--json").json)
            #expect((second["meta"] as? [String: Any])?["source"] as? String == "cache")
            #expect(server.requests.count == 1, "a fresh cached copy is served without the network")

            let one = try #require(try await reader.run("people", "1", "--json").json)
            #expect((one["item"] as? [String: Any])?["name"] as? String == "Luke Skywalker")
        }
    }

    @Test func redditPostsAreRequestedWithRawJSONAndADescriptiveUserAgent() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let result = try await ReaderProcess(server: server).run("posts", "python", "--limit", "5")
            #expect(result.status == 0)
            #expect(result.stdout.contains("r/Python"))
            let request = try #require(server.requests.first)
            #expect(request.path == "/r/python/hot.json")
            #expect(request.query == ["limit": "5", "raw_json": "1"])
            #expect(request.headers["user-agent"]?.contains("reader") == true)
            #expect(request.headers["accept-encoding"]?.contains("gzip") == true)
        }
    }

    @Test func anUnknownQueryParameterAndUnknownFieldsAreIgnored() async throws {
        // The server knows nothing of raw_json and adds fields reader does not model: both pass.
        try await withTestServer { request in
            let films = String(decoding: SWAPIResources.page("films"), as: UTF8.self)
                .replacingOccurrences(of: "\"title\":", with: "\"added_later\": {\"x\": [1]}, \"title\":")
            return .json(Array(films.utf8))
        } body: { server in
            let reader = ReaderProcess(server: server, redditURL: server.baseURL)
            let result = try await reader.run("films")
            #expect(result.status == 0 && result.stdout.contains("A New Hope"))
            #expect(try await reader.run("posts", "swift").status == 65, "a SWAPI body is not a Reddit listing")
        }
    }

    @Test(.replaysRecordings, arguments: Fault.allCases)
    func eachFaultWithoutACachedCopyExitsWithItsCode(fault: Fault) async throws {
        try await withShutdown(of: FaultyServer()) { faulty in
            faulty.fault.withLockedValue { $0 = fault }
            let result = try await ReaderProcess(server: faulty.server).run("films", "--retries", "0")
            #expect(result.status == fault.expected.exit, "\(result.stderr)")
            #expect(result.stderr.contains("error \(fault.expected.code):"))
            #expect(result.stderr.contains("hint:"))
            #expect(result.stdout.isEmpty)
            if fault == .htmlNotFound { #expect(result.stderr.contains("not found") && !result.stderr.contains("JSON")) }
            if fault == .htmlWith200 { #expect(result.stderr.contains("Hotel WiFi login") && result.stderr.contains("captive portal")) }
        }
    }

    @Test(.replaysRecordings, arguments: Fault.allCases)
    func eachFaultWithACachedCopyServesItOrResetsIt(fault: Fault) async throws {
        try await withShutdown(of: FaultyServer()) { faulty in
            let reader = ReaderProcess(server: faulty.server)
            #expect(try await reader.run("films").status == 0)
            faulty.fault.withLockedValue { $0 = fault }

            let result = try await reader.run("films", "--refresh", "--retries", "0")
            if fault.servesStale {
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.contains("A New Hope"))
                #expect(result.stderr.contains("notice \(fault.expected.code): showing cached data from"))
            } else {
                #expect(result.status == fault.expected.exit)
                #expect(result.stdout.isEmpty)
                // The reset deleted the copy: offline there is nothing left.
                #expect(try await reader.run("films", "--offline").status == 69)
            }
        }
    }

    @Test(.replaysRecordings) func aStaleCopyIsServedWithItsAgeAndCodeInJSON() async throws {
        try await withShutdown(of: FaultyServer()) { faulty in
            let reader = ReaderProcess(server: faulty.server)
            #expect(try await reader.run("films").status == 0)
            // Age the entry by two days, so the next read goes to the network without --refresh.
            let queue = try DatabaseQueue(path: reader.cachePath)
            try await queue.write { db in try db.execute(sql: "UPDATE response SET fetchedAt = datetime('now', '-2 days')") }
            faulty.fault.withLockedValue { $0 = .corruptJSON }

            let result = try await reader.run("films", "--json")
            #expect(result.status == 0)
            let meta = try #require(result.json?["meta"] as? [String: Any])
            #expect(meta["source"] as? String == "cache" && meta["stale"] as? Bool == true)
            #expect(meta["error_code"] as? String == "D1002")
            #expect((meta["age_seconds"] as? Int ?? 0) >= 2 * 86_400)
            #expect(result.stderr.contains("2 days ago"))
        }
    }

    @Test func nothingListeningExits75OrServesTheCache() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            await server.shutdown()  // now nothing listens on that port

            let withCopy = try await reader.run("films", "--refresh")
            #expect(withCopy.status == 0 && withCopy.stderr.contains("notice T1004:"))
            let without = try await reader.run("planets", "--refresh")
            #expect(without.status == 75)
            #expect(without.stderr.contains("error T1004:"))
        }
    }

    @Test func offlineNeverTouchesTheNetwork() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let missing = try await reader.run("films", "--offline")
            #expect(missing.status == 69 && missing.stderr.contains("error C1001:"))
            #expect(server.requests.isEmpty)

            #expect(try await reader.run("films").status == 0)
            let cached = try await reader.run("films", "--offline")
            #expect(cached.status == 0 && cached.stdout.contains("A New Hope"))
            #expect(server.requests.count == 1)
        }
    }

    @Test(.replaysRecordings) func internalServerErrorWithoutRetryAfterIsTriedOnce() async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/error_500_internal_server_error.json"), status: 500) } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "swift")
            #expect(result.status == 69)
            #expect(result.stderr.contains("Internal Server Error"))
            #expect(server.requests.count == 1)
        }
    }

    @Test(.replaysRecordings) func rateLimitedIsRetriedThenExits75() async throws {
        try await withTestServer { _ in
            .respond(status: 429, headers: [("Content-Type", "text/html"), ("Retry-After", "0")],
                     body: Fixtures.bytes("reddit/error_429_too_many_requests.html"))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "--retries", "2")
            #expect(result.status == 75)
            #expect(result.stderr.contains("error H429:"))
            #expect(server.requests.count == 3)
        }
    }

    @Test func redditsQuarantinedAndMissingSubredditsSayWhy() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let quarantined = try await reader.run("posts", "quarantined")
            #expect(quarantined.status == 77)
            #expect(quarantined.stderr.contains("A403") && quarantined.stderr.contains("quarantined"))
            let missing = try await reader.run("posts", "a+b")
            #expect(missing.status == 66 && missing.stderr.contains("A404"))
        }
    }

    @Test(.replaysRecordings) func aRedirectToRedditSearchMeansTheSubredditDoesNotExist() async throws {
        try await withTestServer { request in
            .respond(status: 302, headers: [("Content-Type", "text/html"),
                                            ("Location", "/subreddits/search.json?q=invalidsubreddit7")],
                     body: Fixtures.bytes("reddit/redirect_302_nonexistent_subreddit.html"))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "invalidsubreddit7")
            #expect(result.status == 66)
            #expect(result.stderr.contains("r/invalidsubreddit7 does not exist"))
            #expect(server.requests.count == 1)
        }
    }

    @Test func aBodyThatTricklesInIsCutOffByTheDeadline() async throws {
        // The deadline is the transport's real clock (nothing to inject): the test waits for it,
        // and asserts only what happened, not how long it took.
        try await withTestServer { _ in .trickle(interval: .milliseconds(50)) } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "--timeout", "500ms", "--retries", "0")
            #expect(result.status == 75, "\(result.stderr)")
            #expect(result.stderr.contains("error T1001:"))
            #expect(server.requests.count == 1, "the request was answered: the body was what never ended")
        }
    }

    @Test func aTruncatedBodyIsAConnectionLostAndIsRetried() async throws {
        try await withTestServer { _ in
            .truncate(status: 200, headers: [("Content-Type", "application/json")], body: Array(#"{"count": 6"#.utf8), announcedLength: 5000)
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "--retries", "1")
            #expect(result.status == 75)
            #expect(result.stderr.contains("error T1005:"))
            #expect(server.requests.count == 2)
        }
    }

    @Test func oneRunNeverShowsTheSameAlertTwice() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            await server.shutdown()
            let result = try await reader.run("films", "--refresh")
            #expect(result.stderr.components(separatedBy: "T1004").count == 2)
        }
    }
}
