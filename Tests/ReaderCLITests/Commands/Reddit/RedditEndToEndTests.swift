import Foundation
import Testing
import TestSupport

/// Reddit end to end: its error answers each as their own message and code, the comment tree,
/// paging, and titles written to attack the terminal.
@Suite(.processSlot) struct RedditEndToEndTests {
    /// One of Reddit's error answers and what reader must make of it.
    struct Answer: Sendable, CustomTestStringConvertible {
        var name: String
        var reply: TestServer.Reply
        var code: String
        var exit: Int32
        var reason: String
        var message: String

        var testDescription: String { name }
    }

    static let answers: [Answer] = [
        Answer(name: "redirect to search", reply: .respond(status: 302, headers: [
            ("Content-Type", "text/html; charset=UTF-8"), ("Location", "/subreddits/search.json?q=somewhere")],
            body: Fixtures.bytes("reddit/redirect_302_nonexistent_subreddit.html")),
               code: "A404", exit: 66, reason: "not_found", message: "r/somewhere does not exist"),
        Answer(name: "404", reply: .json(Fixtures.bytes("reddit/error_404_not_found_r_a_plus_b.json"), status: 404),
               code: "A404", exit: 66, reason: "not_found", message: "r/somewhere does not exist"),
        // Reddit's answer for a banned subreddit, in the shape of its other error bodies.
        Answer(name: "banned", reply: .json(Array(#"{"reason": "banned", "message": "Not Found", "error": 404}"#.utf8), status: 404),
               code: "A404", exit: 66, reason: "banned", message: "r/somewhere is banned"),
        Answer(name: "private", reply: .json(Array(#"{"reason": "private", "message": "Forbidden", "error": 403}"#.utf8), status: 403),
               code: "A403", exit: 77, reason: "private", message: "r/somewhere is private"),
        Answer(name: "quarantined", reply: .json(Fixtures.bytes("reddit/error_403_quarantined_reason.json"), status: 403),
               code: "A403", exit: 77, reason: "quarantined", message: "r/somewhere is quarantined"),
        Answer(name: "whoa there, pardner", reply: .respond(status: 429, headers: [
            ("Content-Type", "text/html; charset=UTF-8"), ("Retry-After", "4")], body: Fixtures.bytes("reddit/error_429_too_many_requests.html")),
               code: "H429", exit: 75, reason: "too_many_requests", message: "too many requests came from this address"),
    ]

    @Test(.replaysRecordings, arguments: answers)
    func redditsErrorAnswersEachHaveTheirMessageAndCode(_ answer: Answer) async throws {
        try await withTestServer { _ in answer.reply } body: { server in
            let reader = ReaderProcess(server: server)
            let text = try await reader.run("posts", "somewhere", "--retries", "0")
            #expect(text.status == answer.exit)
            #expect(text.stderr.hasPrefix("error \(answer.code): "), "\(text.stderr)")
            #expect(text.stderr.contains(answer.message), "\(text.stderr)")
            #expect(text.stdout.isEmpty)

            // A reader of its own: after a 429 this one's cache keeps the server's Retry-After.
            let json = try await ReaderProcess(server: server).run("posts", "somewhere", "--retries", "0", "--json")
            #expect(json.status == answer.exit)
            #expect(json.errorJSON?["code"] as? String == answer.code)
            #expect(json.errorJSON?["reason"] as? String == answer.reason)
        }
    }

    /// A 404 that is not Reddit's (a web server's page, no error body of Reddit's) is no
    /// subreddit that does not exist: the address is what to check, as for any service.
    @Test func aWebServersNotFoundIsTheAddressToCheckNotTheSubreddit() async throws {
        try await withTestServer { _ in
            .respond(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html><title>404 Not Found</title></html>".utf8))
        } body: { server in
            let reader = ReaderProcess(server: server)
            for source in ["api", "feed"] {
                var chosen = reader
                chosen.environment["READER_REDDIT_SOURCE"] = source
                let result = try await chosen.run("posts", "python", "--retries", "0")
                #expect(result.status == 66, "\(source): \(result.stderr)")
                #expect(result.stderr.contains("check the service address (READER_REDDIT_URL"), "\(source): \(result.stderr)")
                #expect(!result.stderr.contains("does not exist") && !result.stderr.contains("check the spelling"), "\(source): \(result.stderr)")
                let json = try await chosen.run("posts", "python", "--retries", "0", "--json")
                #expect(json.errorJSON?["reason"] == nil || json.errorJSON?["reason"] is NSNull, "\(json.stderr)")
            }
        }
    }

    @Test(.replaysRecordings) func afterA429SayingWhenToComeBackNothingIsSentBeforeThenNotEvenByTheNextRun() async throws {
        try await withTestServer { _ in
            .respond(status: 429, headers: [("Content-Type", "text/html"), ("Retry-After", "3600")],
                     body: Fixtures.bytes("reddit/error_429_too_many_requests.html"))
        } body: { server in
            let reader = ReaderProcess(server: server)
            let first = try await reader.run("posts", "python", "--retries", "0")
            #expect(first.stderr.hasPrefix("error H429: "), "\(first.stderr)")
            #expect(server.requests.count == 1)
            // Another subreddit on the same origin, by another run: not sent.
            let next = try await reader.run("posts", "rust", "--retries", "0")
            #expect(next.stderr.hasPrefix("error R1003: "), "\(next.stderr)")
            #expect(next.status == 75)
            #expect(server.requests.count == 1)
        }
    }

    @Test(.replaysRecordings) func aQuarantinedSubredditsExplanationIsShownSanitised() async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/error_403_quarantined_reason.json"), status: 403) } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "somewhere")
            #expect(result.stderr.contains("It may contain a high degree of misinformation"))
            #expect(!result.stderr.contains("<div"))
        }
    }

    @Test(.replaysRecordings) func commentsShowThePostThenAnIndentedTree() async throws {
        try await withTestServer { request in
            request.path == "/comments/2xmo63.json"
                ? .json(Fixtures.bytes("reddit/comments_r_python_2xmo63.json"), headers: [("Cache-Control", "max-age=0, must-revalidate")])
                : .respond(status: 404, headers: [], body: [])
        } body: { server in
            let reader = ReaderProcess(server: server)
            for argument in ["2xmo63", "t3_2xmo63", "https://www.reddit.com/r/Python/comments/2xmo63/a_python_terminal_viewer/", "https://redd.it/2xmo63"] {
                let result = try await reader.run("comments", argument, "--refresh")
                #expect(result.status == 0, "\(argument): \(result.stderr)")
                let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.first == "A python terminal viewer for browsing reddit")
                #expect(lines.contains { $0.hasPrefix("u/civilization_phaze_3 · ") })
                // Replies sit two columns further in than their parent.
                #expect(lines.contains { $0.hasPrefix("  u/") })
                #expect(lines.contains { $0.hasPrefix("    ") })
            }
            #expect(server.requests.allSatisfy { $0.target.hasPrefix("/comments/2xmo63.json?sort=confidence") })

            // A post's URL on another host is no Reddit post: refused, the host named, before any request.
            let asked = server.requests.count
            for argument in ["https://example.com/r/x/comments/2xmo63", "reddit.com.example.net/comments/2xmo63"] {
                let elsewhere = try await reader.run("comments", argument)
                #expect(elsewhere.status == 64 && elsewhere.stderr.contains("R1001"), "\(argument): \(elsewhere.stderr)")
                #expect(elsewhere.stderr.contains(argument.contains("example.com") ? "example.com is not Reddit's" : "reddit.com.example.net is not Reddit's"),
                        "\(elsewhere.stderr)")
            }
            #expect(server.requests.count == asked)

            let json = try await reader.run("comments", "2xmo63", "--json", "--offline")
            let item = json.json?["item"] as? [String: Any]
            #expect((item?["post"] as? [String: Any])?["id"] as? String == "2xmo63")
            #expect((item?["comments"] as? [Any])?.count == 19)
        }
    }

    @Test func loadMoreStubsAreCountedNotDropped() async throws {
        let page = """
            [{"kind": "Listing", "data": {"after": null, "before": null, "children": [{"kind": "t3", "data": {
              "id": "abc", "name": "t3_abc", "title": "A post", "author": "someone", "subreddit": "swift", "score": 5,
              "num_comments": 40, "created_utc": 1700000000, "permalink": "/r/swift/comments/abc/", "is_self": true, "selftext": ""}}]}},
             {"kind": "Listing", "data": {"after": null, "before": null, "children": [
               {"kind": "t1", "data": {"id": "c1", "author": "first", "body": "top comment", "score": 3, "created_utc": 1700000100,
                 "replies": {"kind": "Listing", "data": {"after": null, "before": null, "children": [
                   {"kind": "more", "data": {"count": 12, "children": ["x1", "x2"]}}]}}}},
               {"kind": "more", "data": {"count": 27, "children": ["y1"]}}]}}]
            """
        try await withTestServer { _ in .json(Array(page.utf8)) } body: { server in
            let result = try await ReaderProcess(server: server).run("comments", "abc")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("\n  … 12 more replies not loaded"))
            #expect(result.stdout.contains("\n… 27 more replies not loaded"))
        }
    }

    @Test func pagesFollowAfterAndStopAtTheEnd() async throws {
        let listing: @Sendable (String?, [String]) -> [UInt8] = { after, ids in
            let children = ids.map { id in
                #"{"kind": "t3", "data": {"id": "\#(id)", "name": "t3_\#(id)", "title": "post \#(id)", "author": "a", "subreddit": "swift", "score": 1, "num_comments": 0, "created_utc": 1700000000, "permalink": "/p"}}"#
            }
            return Array(#"{"kind": "Listing", "data": {"after": \#(after.map { "\"\($0)\"" } ?? "null"), "before": null, "children": [\#(children.joined(separator: ","))]}}"#.utf8)
        }
        try await withTestServer { request in
            switch request.query["after"] {
            case nil: .json(listing("t3_b", ["a", "b"]))
            case "t3_b": .json(listing("t3_d", ["c", "d"]))
            default: .json(listing(nil, ["e"]))
            }
        } body: { server in
            let reader = ReaderProcess(server: server)
            let result = try await reader.run("posts", "swift", "--limit", "2", "--pages", "5", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            let ids = (result.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == ["a", "b", "c", "d", "e"])
            #expect(server.requests.count == 3)
            #expect((result.json?["meta"] as? [String: Any])?["after"] is NSNull)

            let resumed = try await reader.run("posts", "swift", "--limit", "2", "--after", "t3_b")
            #expect(resumed.stdout.contains("post c") && !resumed.stdout.contains("post a"))
            #expect(resumed.stderr.contains("more: --after t3_d"))
            // Served from the cache: the first run fetched that very page.
            #expect(server.requests.count == 3)
            #expect(server.requests[1].target == "/r/swift/hot.json?limit=2&after=t3_b&raw_json=1")
        }
    }

    @Test(.replaysRecordings) func sortTimeAndUserReachRedditAsItExpects() async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/listing_frontpage_limit5.json")) } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("posts", "swift", "--sort", "controversial", "--time", "week").status == 0)
            #expect(try await reader.run("posts", "--user", "u/spez", "--sort", "top", "--time", "all").status == 0)
            #expect(server.requests.map(\.target) == [
                "/r/swift/controversial.json?limit=25&t=week&raw_json=1",
                "/user/spez/submitted.json?sort=top&limit=25&t=all&raw_json=1",
            ])
            let wrong = try await reader.run("posts", "swift", "--sort", "new", "--time", "week")
            #expect(wrong.status == 64 && wrong.stderr.contains("--time goes with --sort top or controversial"))
            let both = try await reader.run("posts", "swift", "--user", "spez")
            #expect(both.status == 64)
            #expect(server.requests.count == 2)
        }
    }

    /// Titles, authors and comments written to attack a terminal: none of it may move the cursor,
    /// recolour, reverse text or break a row, and every column stays aligned.
    @Test func hostileTextCannotHijackTheTerminalOrTheTable() async throws {
        let titles = [
            "red \u{1B}[31malert\u{1B}[0m and \u{1B}]0;pwned title\u{07}osc",
            "cursor \u{1B}[2J\u{1B}[H home and C1 \u{9B}31m csi",
            "bidi \u{202E}txet desrever\u{202C} and isolate \u{2066}x\u{2069}",
            "zero\u{200B}width\u{200D}joiner\u{FEFF}bom",
            "line\nbreak\r\ncarriage\rreturn\ttab",
            "emoji 🎉🚀 and 👩‍💻 family",
            "CJK 日本語のタイトル 한국어",
            "combining e\u{301}\u{301} marks",
            "entities &amp; &lt;b&gt; &#27;[31m",
        ]
        let children = titles.enumerated().map { index, title in
            let object: [String: Any] = ["kind": "t3", "data": [
                "id": "p\(index)", "name": "t3_p\(index)", "title": title, "author": index == 0 ? "evil\u{1B}[8m" : "user\(index)",
                "subreddit": "swift", "score": index * 7000, "num_comments": 3, "created_utc": 1_700_000_000, "permalink": "/p"]]
            return object
        }
        let body = try JSONSerialization.data(withJSONObject: ["kind": "Listing", "data": ["after": NSNull(), "before": NSNull(), "children": children]])
        try await withTestServer { _ in .json(Array(body)) } body: { server in
            var reader = ReaderProcess(server: server)
            reader.environment["COLUMNS"] = "100"
            let result = try await reader.run("posts", "swift")
            #expect(result.status == 0)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == titles.count + 1, "a title broke a row: \(lines)")
            for scalar in result.stdout.unicodeScalars {
                let value = scalar.value
                #expect(!(value < 0x20 && value != 0x0A) && !(0x7F...0x9F).contains(value), "control U+\(String(value, radix: 16))")
                let invisible = (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0xFEFF
                    || ((0x200B...0x200F).contains(value) && value != 0x200D)
                #expect(!invisible, "invisible U+\(String(value, radix: 16))")
            }
            // A zero-width joiner survives only inside an emoji sequence, where it draws one glyph.
            #expect(result.stdout.contains("zerowidthjoinerbom") && result.stdout.contains("👩\u{200D}💻"))
            #expect(result.stdout.contains("entities & <b>"))
            // Every column starts at the same terminal cell on every row; the header shows where.
            let authorColumn = cellOffset(of: "AUTHOR", in: lines[0])
            let idColumn = cellOffset(of: "ID", in: lines[0])
            for (index, line) in lines.dropFirst().enumerated() {
                #expect(cellOffset(of: "u/", in: line) == authorColumn, "\(line)")
                #expect(cellOffset(of: " p\(index)  ", in: line).map { $0 + 1 } == idColumn, "\(line)")
                #expect(TerminalWidth.cells(of: line) <= 100, "\(line)")
            }
        }
    }

    private func cellOffset(of text: String, in line: String) -> Int? {
        guard let range = line.range(of: text) else { return nil }
        return TerminalWidth.cells(of: String(line[..<range.lowerBound]))
    }
}

/// Terminal cells, measured independently of ReaderKit: wide East Asian and emoji 2, marks 0.
enum TerminalWidth {
    static func cells(of text: String) -> Int {
        text.reduce(0) { total, character in
            let scalars = character.unicodeScalars
            guard let first = scalars.first else { return total }
            if first.properties.generalCategory == .nonspacingMark { return total }
            if scalars.contains(where: { $0.properties.isEmojiPresentation }) { return total + 2 }
            switch first.value {
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFF00...0xFF60: return total + 2
            default: return total + 1
            }
        }
    }
}
