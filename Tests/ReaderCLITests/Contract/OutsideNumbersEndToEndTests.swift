import Foundation
import GRDB
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// Absurd numbers from outside — a server's headers and body, a damaged cache row, a forged token
/// file — end in an error with its code, a stale copy, or a clean exit: never a trap (exit 132/133
/// with a backtrace), never a wait of hours, never data silently lost.
@Suite(.processSlot) struct OutsideNumbersEndToEndTests {
    /// The signals a trap ends a process with (SIGILL, SIGTRAP, SIGABRT), as `Process` reports them.
    static func trapped(_ result: ReaderProcess.Result) -> Bool {
        [4, 5, 6, 132, 133, 134].contains(result.status) || result.stderr.contains("Fatal error") || result.stderr.contains("Crash")
    }

    /// `body` with the first match of `pattern` replaced by `replacement`.
    static func replacing(_ pattern: String, with replacement: String, in body: [UInt8]) throws -> [UInt8] {
        let text = String(decoding: body, as: UTF8.self)
        let expression = try NSRegularExpression(pattern: pattern)
        let match = try #require(expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)), "no \(pattern)")
        return Array((text as NSString).replacingCharacters(in: match.range, with: replacement).utf8)
    }

    // MARK: - Retry-After

    @Test(arguments: ["99999999999999999999", "1e300", "1e400"])
    func aRetryAfterNoCalendarCanShowIsComeBackLaterAtOnce(_ retryAfter: String) async throws {
        try await withTestServer { _ in
            .respond(status: 503, headers: [("Content-Type", "text/html"), ("Retry-After", retryAfter)], body: Array("<p>down</p>".utf8))
        } body: { server in
            let reader = ReaderProcess(server: server)
            for retries in ["0", "3"] {
                let result = try await reader.run("films", "--retries", retries)
                #expect(!Self.trapped(result), "\(result.stderr)")
                #expect(result.status == 69, "\(result.status) \(result.stderr)")
                #expect(result.stderr.hasPrefix("error H503: "), "\(result.stderr)")
                #expect(result.stderr.contains("it asks to come back later"), "\(result.stderr)")
            }
            // Not retried: a wait of 10^20 seconds is not waited for, whatever --retries says.
            #expect(server.requests.count == 2)
        }
    }

    @Test(.replaysRecordings) func aRetryAfterNoCalendarCanShowStillLetsTheCachedCopyBeServed() async throws {
        let failing = NIOLockedValueBox(false)
        try await withTestServer { request in
            if failing.withLockedValue({ $0 }) {
                return .json(Array("{}".utf8), status: 503, headers: [("Retry-After", "99999999999999999999")])
            }
            return Fixtures.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            failing.withLockedValue { $0 = true }
            let result = try await reader.run("films", "--refresh")
            #expect(!Self.trapped(result), "\(result.stderr)")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("A New Hope"))
            #expect(result.stderr.contains("notice H503: showing cached data from"), "\(result.stderr)")
        }
    }

    // MARK: - Body fields

    @Test(.replaysRecordings) func aCollectionCountOf2To63IsADecodingErrorAndIsNeverStored() async throws {
        let body = try Self.replacing(#""count": ?\d+"#, with: #""count": 9223372036854775807"#, in: Fixtures.bytes("swapi/films.json"))
        try await withTestServer { _ in .json(body) } body: { server in
            let reader = ReaderProcess(server: server)
            for arguments in [["films"], ["films", "--all"], ["films", "--json"]] {
                let result = try await reader.run(arguments)
                #expect(!Self.trapped(result), "\(arguments): \(result.stderr)")
                #expect(result.status == 65, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("D1005") || result.stderr.contains("\"code\":\"D1005\""), "\(arguments): \(result.stderr)")
            }
            // What does not decode is not stored: the offline read finds nothing, and says so.
            let offline = try await reader.run("films", "--offline")
            #expect(!Self.trapped(offline), "\(offline.stderr)")
            #expect(offline.status == 69)
            #expect(offline.stderr.hasPrefix("error C1001: "), "\(offline.stderr)")
        }
    }

    /// Reddit fields a renderer does arithmetic on, each set to a value no post can have.
    static let absurdRedditFields: [(pattern: String, replacement: String)] = [
        (#""created_utc": [0-9.]+"#, #""created_utc": 1e300"#),
        (#""created_utc": [0-9.]+"#, #""created_utc": -1e300"#),
        (#""score": -?\d+"#, #""score": -9223372036854775808"#),
        (#""num_comments": \d+"#, #""num_comments": -9223372036854775808"#),
        (#""num_comments": \d+"#, #""num_comments": 9223372036854775807"#),
    ]

    @Test(.replaysRecordings, arguments: absurdRedditFields.indices)
    func anAbsurdNumberInAListingIsADecodingErrorInEveryView(_ index: Int) async throws {
        let (pattern, replacement) = Self.absurdRedditFields[index]
        let body = try Self.replacing(pattern, with: replacement, in: Fixtures.bytes("reddit/listing_r_python_hot.json"))
        try await withTestServer { _ in .json(body) } body: { server in
            let reader = ReaderProcess(server: server)
            for arguments in [["posts", "python"], ["posts", "python", "--json"], ["posts", "python", "--pages", "2"]] {
                let result = try await reader.run(arguments)
                #expect(!Self.trapped(result), "\(replacement) \(arguments): \(result.stderr)")
                #expect(result.status == 65, "\(replacement) \(arguments): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("D1005"), "\(replacement) \(arguments): \(result.stderr)")
            }
        }
    }

    @Test(.replaysRecordings, arguments: [(#""created_utc": [0-9.]+"#, #""created_utc": 1e300"#),
                      (#""score": -?\d+"#, #""score": -9223372036854775808"#)])
    func anAbsurdNumberInACommentThreadIsADecodingError(_ field: (String, String)) async throws {
        let body = try Self.replacing(field.0, with: field.1, in: Fixtures.bytes("reddit/comments_r_python_2xmo63.json"))
        try await withTestServer { _ in .json(body) } body: { server in
            let result = try await ReaderProcess(server: server).run("comments", "2xmo63")
            #expect(!Self.trapped(result), "\(result.stderr)")
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("D1005"), "\(result.stderr)")
        }
    }

    // MARK: - Cache rows

    /// Damages the stored rows of a cache that holds the films list, through SQL as another
    /// program or a bad disk would.
    static func damage(_ reader: ReaderProcess, _ sql: String) throws {
        let queue = try DatabaseQueue(path: reader.cachePath)
        try queue.write { db in try db.execute(sql: sql) }
        try queue.close()
    }

    static let damagedRows: [String] = [
        "UPDATE response SET fetchedAt = 1e300",
        "UPDATE response SET fetchedAt = -1e300",
        "UPDATE response SET fetchedAt = 'not a date'",
        "UPDATE response SET fetchedAt = x'00ff'",
        "UPDATE response SET bodySize = 9223372036854775807",
        "UPDATE response SET lastUsedAt = 1e300",
        "UPDATE response SET status = 99999999999",
        "UPDATE response SET api = 'neither'",
        "UPDATE response SET api = 'Reddit'",
        "UPDATE response SET api = x'00ff'",
    ]

    @Test(.replaysRecordings, arguments: damagedRows)
    func aDamagedRowIsDroppedWithANoticeNeverServedNeverFatal(_ sql: String) async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            try Self.damage(reader, sql)

            let offline = try await reader.run("films", "--offline")
            #expect(!Self.trapped(offline), "\(sql): \(offline.stderr)")
            #expect(offline.status == 69, "\(sql): \(offline.status) \(offline.stderr)")
            #expect(offline.stdout.isEmpty)
            #expect(offline.stderr.contains("warning C1006: a cached copy was damaged"), "\(sql): \(offline.stderr)")
            #expect(offline.stderr.contains("error C1001: "), "\(sql): \(offline.stderr)")
            #expect(!offline.stderr.contains("row:") && !offline.stderr.contains("swapi.dev"), "the row is not dumped: \(offline.stderr)")

            // Dropped, not kept to be tripped over again: the network answers, the new copy is stored.
            let online = try await reader.run("films")
            #expect(online.status == 0, "\(sql): \(online.stderr)")
            #expect(!online.stderr.contains("C1006"), "\(sql): \(online.stderr)")
            let again = try await reader.run("films", "--offline")
            #expect(again.status == 0 && again.stdout.contains("A New Hope"), "\(sql): \(again.stderr)")
        }
    }

    /// Runs `body` with a reader whose cache holds two entries (films and people), then damaged
    /// by `sql`, and its server, shut down when `body` returns or throws.
    static func withTwoEntriesDamaged(by sql: String, _ body: (ReaderProcess) async throws -> Void) async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("people").status == 0)
            try damage(reader, sql)
            try await body(reader)
        }
    }

    @Test(.replaysRecordings) func storingStillWorksBesideRowsWhoseSizesWouldOverflowASum() async throws {
        // Two sizes near Int64.max: SQLite's SUM overflows on them.
        try await Self.withTwoEntriesDamaged(by: "UPDATE response SET bodySize = 9223372036854775000") { reader in
            let stored = try await reader.run("planets", "--cache-size", "10MB")
            #expect(!Self.trapped(stored), "\(stored.stderr)")
            #expect(stored.status == 0, "\(stored.stderr)")
            #expect(!stored.stderr.contains("C100"), "a store failed: \(stored.stderr)")
            #expect(try await reader.run("planets", "--offline").status == 0)
        }
    }

    @Test(.replaysRecordings) func cacheStatsStatusAndClearSurviveADamagedFile() async throws {
        try await Self.withTwoEntriesDamaged(by: "UPDATE response SET fetchedAt = 1e300, bodySize = 9223372036854775000") { reader in
            for arguments in [["cache", "stats"], ["cache", "stats", "--json"], ["status", "--timeout", "2s"], ["cache", "prune"]] {
                let result = try await reader.run(arguments)
                #expect(!Self.trapped(result), "\(arguments): \(result.stderr)")
            }
            // `clear` always repairs: afterwards nothing damaged is left to warn about.
            let clear = try await reader.run("cache", "clear")
            #expect(clear.status == 0, "\(clear.stderr)")
            let offline = try await reader.run("films", "--offline")
            #expect(offline.status == 69 && !offline.stderr.contains("C1006"), "\(offline.stderr)")
        }
    }

    // MARK: - Rate limits

    static func lockOut(_ reader: ReaderProcess, origin: String, api: String = "reddit", resetAt: String) throws {
        try damage(reader, """
            INSERT OR REPLACE INTO rateLimit (host, api, remaining, resetAt, observedAt)
            VALUES ('\(origin)', '\(api)', 0, \(resetAt), strftime('%s', 'now'))
            """)
    }

    @Test(.replaysRecordings) func aLockOutIsPerOriginAndAPICappedAtTenMinutesShownByStatusAndClearedByCacheClear() async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/listing_r_python_hot.json")) } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("posts", "python").status == 0)
            let before = server.requests.count

            // Another origin's lock-out (another host, the same host on another port) or another
            // API's at the same origin does not hold this one back.
            try Self.lockOut(reader, origin: "https://www.reddit.com", resetAt: "strftime('%s', 'now') + 300")
            try Self.lockOut(reader, origin: "http://127.0.0.1:1", resetAt: "strftime('%s', 'now') + 300")
            try Self.lockOut(reader, origin: server.baseURL, api: "swapi", resetAt: "strftime('%s', 'now') + 300")
            #expect(try await reader.run("posts", "python", "--refresh").status == 0)
            #expect(server.requests.count == before + 1)

            // A year away is read as ten minutes: not sent, said with the capped time.
            try Self.lockOut(reader, origin: server.baseURL, resetAt: "strftime('%s', 'now') + 31536000")
            let locked = try await reader.run("posts", "python", "--refresh", "--max-stale", "0s")
            #expect(!Self.trapped(locked), "\(locked.stderr)")
            #expect(locked.status == 75, "\(locked.stderr)")
            #expect(locked.stderr.contains("error R1003: \(server.baseURL)'s rate limit is used up; it resets at"), "\(locked.stderr)")
            #expect(locked.stderr.contains("(in 10 min)") || locked.stderr.contains("(in 9 min)"), "\(locked.stderr)")
            #expect(server.requests.count == before + 1)

            let status = try await reader.run("status", "--timeout", "2s")
            #expect(status.stdout.contains("\(server.baseURL)'s rate limit is used up"), "\(status.stdout)")
            let statusJSON = try await reader.run("status", "--timeout", "2s", "--json")
            #expect(statusJSON.stdout.contains(#""host":"\#(server.baseURL)""#), "\(statusJSON.stdout)")

            #expect(try await reader.run("cache", "clear").status == 0)
            let afterStatus = server.requests.count
            #expect(try await reader.run("posts", "python").status == 0)
            #expect(server.requests.count == afterStatus + 1)
        }
    }

    @Test(.replaysRecordings, arguments: ["1e300", "'soon'", "-1e300"])
    func aLockOutRowNoCalendarCanShowIsIgnored(_ resetAt: String) async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/listing_r_python_hot.json")) } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("posts", "python").status == 0)
            try Self.lockOut(reader, origin: server.baseURL, resetAt: resetAt)
            let result = try await reader.run("posts", "python", "--refresh")
            #expect(!Self.trapped(result), "\(result.stderr)")
            #expect(result.status == 0, "\(result.stderr)")
            let status = try await reader.run("status", "--timeout", "2s")
            #expect(!Self.trapped(status), "\(status.stderr)")
            #expect(!status.stdout.contains("rate limit is used up"))
        }
    }

    @Test(.replaysRecordings) func aResetAnnouncedHoursAwayLocksOutForTenMinutesAtMost() async throws {
        try await withTestServer { _ in
            .json(Fixtures.bytes("reddit/listing_r_python_hot.json"),
                  headers: [("X-Ratelimit-Remaining", "0"), ("X-Ratelimit-Reset", "99999999999999999999")])
        } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("posts", "python").status == 0)
            let locked = try await reader.run("posts", "python", "--refresh", "--max-stale", "0s")
            #expect(!Self.trapped(locked), "\(locked.stderr)")
            #expect(locked.status == 75, "\(locked.stderr)")
            #expect(locked.stderr.contains("(in 10 min)") || locked.stderr.contains("(in 9 min)"), "\(locked.stderr)")
            #expect(server.requests.count == 1)
        }
    }

    // MARK: - The token file

    @Test(arguments: ["1e300", "-1e300", "9999999999999", "\"tomorrow\""])
    func aTokenFileWithAnExpiryNoCalendarCanShowIsAsGoodAsNone(_ expiresAt: String) async throws {
        var reader = ReaderProcess()
        reader.environment["READER_REDDIT_CLIENT_ID"] = "reader-test-app"
        let folder = (reader.cachePath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let token = #"{"token": {"access_token": "forged", "expires_at": \#(expiresAt), "client_id": "reader-test-app"}}"#
        _ = FileManager.default.createFile(atPath: folder + "/reddit-token.json", contents: Data(token.utf8), attributes: [.posixPermissions: 0o600])
        let status = try await reader.run("status", "--timeout", "1s")
        #expect(!Self.trapped(status), "\(status.stderr)")
        #expect(status.stdout.contains("no token held yet"), "\(status.stdout)")
    }
}

/// What the attack on the built binary found beyond the review's list.
@Suite(.processSlot) struct OutsideNumbersFollowUpEndToEndTests {
    @Test(.replaysRecordings) func aCountBeyondWhatAllReadsIsSaidNotSilentlyCut() async throws {
        let body = try OutsideNumbersEndToEndTests.replacing(#""count": ?\d+"#, with: #""count": 1000000"#,
                                                              in: Fixtures.bytes("swapi/people_page1.json"))
        try await withTestServer { _ in .json(body) } body: { server in
            let result = try await ReaderProcess(server: server).run("people", "--all")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("warning R1005: the collection says it holds 1000000; reader reads at most 1000 pages, so only the first 10000 were read"),
                    "\(result.stderr)")
            #expect(server.requests.count == 1000)
        }
    }

    @Test(.replaysRecordings, arguments: [#""count": 1e30"#, #""count": 100000000000000000000000"#])
    func aCountNoIntegerHoldsIsD1005NotCorruptJSON(_ count: String) async throws {
        let body = try OutsideNumbersEndToEndTests.replacing(#""count": ?\d+"#, with: count, in: Fixtures.bytes("swapi/films.json"))
        try await withTestServer { _ in .json(body) } body: { server in
            let result = try await ReaderProcess(server: server).run("films")
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error D1005: "), "\(result.stderr)")
        }
    }

    @Test func aCachePathThatIsADanglingOrLoopingLinkIsRefusedByTheCacheCommands() async throws {
        let reader = ReaderProcess()
        let folder = (reader.cachePath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for target in ["/nonexistent/x.sqlite", reader.cachePath] {
            try? FileManager.default.removeItem(atPath: reader.cachePath)
            // The second is a link to itself: a loop.
            try FileManager.default.createSymbolicLink(atPath: reader.cachePath, withDestinationPath: target)
            for arguments in [["cache", "stats"], ["cache", "clear"], ["cache", "prune"]] {
                let result = try await reader.run(arguments)
                #expect(result.status == 73, "\(target) \(arguments): \(result.stdout) \(result.stderr)")
                #expect(result.stderr.contains("C1004"), "\(target) \(arguments): \(result.stderr)")
            }
        }
    }

    /// A path the cache commands cannot look at is not "no cache yet": under something that is
    /// no folder (and, for another user, under a folder of theirs), the cache may well be there.
    @Test func aCachePathThatCannotBeLookedAtIsRefusedByTheCacheCommands() async throws {
        var reader = ReaderProcess()
        let folder = (reader.cachePath as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = folder + "/a-file"
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        reader.environment["READER_CACHE_PATH"] = file + "/cache.sqlite"
        for arguments in [["cache", "stats"], ["cache", "clear"], ["cache", "prune"]] {
            let result = try await reader.run(arguments)
            #expect(result.status == 73, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.contains("C1004") && !result.stdout.contains("0 entries"), "\(arguments): \(result.stdout) \(result.stderr)")
        }
    }
}

extension OutsideNumbersFollowUpEndToEndTests {
    @Test func aBodyThatIsNotTheGzipItClaimsIsABrokenAnswerNotATooLargeOne() async throws {
        try await withTestServer { _ in
            .respond(status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")],
                     body: Array(#"{"count": 0, "next": null, "previous": null, "results": []}"#.utf8))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "--retries", "0")
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error T1011: 127.0.0.1 answered outside HTTP: a body that is not the gzip or deflate it says it is\n"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("larger than"), "\(result.stderr)")
        }
    }
}

extension OutsideNumbersFollowUpEndToEndTests {
    @Test(.replaysRecordings) func aSyncThatSkipsPostsItCannotFollowIsNotComplete() async throws {
        let listing = try OutsideNumbersEndToEndTests.replacing(#""id": "[a-z0-9]+""#, with: #""id": "../../api/v1/access_token""#,
                                                                in: Fixtures.bytes("reddit/listing_r_python_hot.json"))
        try await withTestServer { request in
            request.path.hasPrefix("/comments/") ? .json(Fixtures.bytes("reddit/comments_r_python_2xmo63.json")) : .json(listing)
        } body: { server in
            let result = try await ReaderProcess(server: server).run("sync", "reddit", "python")
            #expect(result.status == 65, "\(result.stdout) \(result.stderr)")
            #expect(result.stdout.contains("D1005"), "\(result.stdout)")
            #expect(!server.requests.contains { $0.target.contains("access_token") }, "the id was never followed")
        }
    }
}

extension OutsideNumbersFollowUpEndToEndTests {
    /// Foundation's DateFormatter traps on this Retry-After (a combining mark, a control character,
    /// replacement characters); the property tests found it.
    @Test func aRetryAfterThatTrappedDateFormatterIsIgnored() async throws {
        let value = String(decoding: [0x57, 0xD6, 0xAE, 0xEF, 0xBF, 0xBD, 0x58, 0xEF, 0xBF, 0xBD] as [UInt8], as: UTF8.self)
        try await withTestServer { _ in
            .respond(status: 503, headers: [("Content-Type", "text/html"), ("Retry-After", value)], body: Array("<p>down</p>".utf8))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "--retries", "0")
            #expect(!OutsideNumbersEndToEndTests.trapped(result), "\(result.stderr)")
            #expect(result.status == 69 && result.stderr.hasPrefix("error H503: "), "\(result.stderr)")
        }
    }
}
