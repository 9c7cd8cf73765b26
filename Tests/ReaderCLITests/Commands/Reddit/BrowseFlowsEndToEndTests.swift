import Foundation
import Testing
import TestSupport

/// `reader browse` used as people use it, in tmux against the loopback test server: filtering,
/// going to another subreddit and back, background failures that never show, and the server
/// going away (the offline note, cached screens still open) and coming back (the note goes with
/// no key pressed).
@Suite(.processSlot) struct BrowseFlowsEndToEndTests {
    /// r/python's hot listing (102 posts), r/rust's (r/popular's fixture), and for
    /// `comments`, whether to answer (with the recorded thread) or 503.
    static func handler(comments: Bool) -> TestServer.Handler {
        { request in
            switch request.path {
            case "/r/python/hot.json": .json(Fixtures.bytes("reddit/listing_r_python_hot.json"))
            case "/r/rust/hot.json": .json(Fixtures.bytes("reddit/listing_r_popular_hot_2026.json"))
            case let path where path.hasPrefix("/comments/"):
                comments ? .json(Fixtures.bytes("reddit/comments_r_python_2xmo63.json")) : .respond(status: 503, headers: [], body: [])
            default: .respond(status: 404, headers: [], body: [])
            }
        }
    }

    static let python = "r/python · hot · 102 posts"

    static func lines(_ screen: String) -> [Substring] {
        screen.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The bottom line of a 24-row screen.
    static func bottom(_ screen: String) -> Substring {
        let lines = lines(screen)
        return lines.count > 23 ? lines[23] : ""
    }

    @Test(.replaysRecordings) func aFilterNarrowsTheListAsItIsTypedAndSGoesToAnotherSubredditAndQBack() async throws {
        try await withTestServer(Self.handler(comments: true)) { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.python).ok)
            try await terminal.press("/", "w", "i", "l", "s", "o", "n")
            let (filtered, narrowed) = try await terminal.waitForScreen { screen in
                let lines = Self.lines(screen)
                return Self.bottom(screen).hasPrefix("/wilson") && lines[2].trimmingCharacters(in: .whitespaces).isEmpty
            }
            #expect(narrowed, "\(filtered)")
            #expect(Self.lines(filtered)[1].contains("A new version of Wilson"), "\(filtered)")
            try await terminal.press("Enter")
            #expect(try await terminal.waitForScreen(containing: "r/python · hot · 1 of 102 posts · /wilson").ok)
            try await terminal.press("Escape")
            #expect(try await terminal.waitForScreen { Self.bottom($0) == Self.python }.ok)

            try await terminal.press("s", "r", "u", "s", "t")
            #expect(try await terminal.waitForScreen(containing: "go to (subreddit, r/a+b, swapi): rust").ok)
            try await terminal.press("Enter")
            let (rust, went) = try await terminal.waitForScreen { Self.bottom($0).hasPrefix("r/rust · hot · ") }
            #expect(went, "\(rust)")
            try await terminal.press("q")
            #expect(try await terminal.waitForScreen { Self.bottom($0).hasPrefix(Self.python) }.ok)
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    @Test(.replaysRecordings) func prefetchFailuresNeverShowAndTheHelpCountsThem() async throws {
        try await withTestServer(Self.handler(comments: false)) { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.python).ok)
            // Every post on screen had its comments asked for, and each got a 503.
            #expect(await waitUntil { server.requests.filter { $0.path.hasPrefix("/comments/") }.count >= 22 })
            let screen = try await terminal.screen()
            #expect(!screen.contains("H503"), "\(screen)")
            #expect(Self.lines(screen)[23] == Self.python, "\(screen)")
            try await terminal.press("?")
            let (help, shown) = try await terminal.waitForScreen(containing: "failed, not shown")
            #expect(shown, "\(help)")
            #expect(help.contains("H503 ×"), "\(help)")
            // Any key closes the help.
            try await terminal.press("x")
            #expect(try await terminal.waitForScreen(containing: "SCORE  COMMENTS").ok)
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    @Test(.replaysRecordings) func whenTheServerGoesTheNoteSaysOfflineCachedScreensStillOpenAndWhenItComesBackTheNoteGoes() async throws {
        var server = try await TestServer(Self.handler(comments: true))
        let port = server.port
        let reader = ReaderProcess(server: server)
        let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
        #expect(try await terminal.waitForScreen(containing: Self.python).ok)
        // The comments of the posts on screen are prefetched into the cache.
        #expect(await waitUntil { server.requests.filter { $0.path.hasPrefix("/comments/") }.count >= 22 })
        await server.shutdown()

        try await terminal.press("r")
        let (offline, noted) = try await terminal.waitForScreen { Self.bottom($0).hasSuffix("offline · T1004") }
        #expect(noted, "\(offline)")
        #expect(Self.lines(offline)[0].hasPrefix("SCORE  COMMENTS"), "\(offline)")
        // The copy's age grows on screen with no key pressed.
        let (older, aged) = try await terminal.waitForScreen { Self.bottom($0).hasSuffix("offline · T1004") && Self.bottom($0) != Self.bottom(offline) }
        #expect(aged, "\(older)")
        // A prefetched post opens from the cache, while offline.
        try await terminal.press("Enter")
        let (post, opened) = try await terminal.waitForScreen { screen in
            !screen.contains("SCORE  COMMENTS") && Self.bottom(screen).hasSuffix("offline · T1004")
        }
        #expect(opened, "\(post)")
        #expect(!Self.lines(post).prefix(23).joined().contains("T1004"), "no banner: \(post)")

        // The server comes back on the same port; no key is pressed: the note goes from the
        // post on top, and the list under it was refreshed.
        server = try await TestServer(port: port, Self.handler(comments: true))
        let (back, cleared) = try await terminal.waitForScreen { !Self.bottom($0).isEmpty && !Self.bottom($0).contains("offline") }
        #expect(cleared, "\(back)")
        try await terminal.press("q")
        #expect(try await terminal.waitForScreen { Self.bottom($0) == Self.python }.ok)
        try await terminal.press("q")
        #expect(try await terminal.waitForFile("status") == "0")
        await server.shutdown()
    }

    @Test(.replaysRecordings) func withNoTargetItOpensTheConfigFilesFirstSubreddit() async throws {
        try await withTestServer(Self.handler(comments: true)) { server in
            var (reader, _) = try ConfigFileEndToEndTests.reader(config: "[reddit]\nsubreddits = [\"python\", \"rust\"]\n", server: server)
            reader.environment["READER_REDDIT_URL"] = server.baseURL
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse"])
            let (screen, opened) = try await terminal.waitForScreen { Self.bottom($0) == Self.python }
            #expect(opened, "\(screen)")
            #expect(server.requests.first?.target == "/r/python/hot.json?limit=25&raw_json=1")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    @Test(.replaysRecordings) func aPrefetchedPostOpensWithNoRequestFoldsAndJumpsAndQGoesBack() async throws {
        try await withTestServer(Self.handler(comments: true)) { server in
            let reader = ReaderProcess(server: server)
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.python).ok)
            let first = "/comments/6302cj.json"
            // Prefetched: in the cache (asked, and the answer stored), which --offline reads.
            #expect(try await waitUntil { try await reader.run("comments", "6302cj", "--offline").status == 0 })
            try await terminal.press("Enter")
            // (Every post's comments here are the recorded thread of 2xmo63.)
            let (post, opened) = try await terminal.waitForScreen { $0.hasPrefix("A python terminal viewer for browsing reddit") && $0.contains("u/davoclavo") }
            #expect(opened, "\(post)")
            #expect(Self.bottom(post).hasPrefix("r/Python · A python terminal viewer"), "\(post)")
            // J: the first top-level comment; Space folds it, with all its replies, to its header.
            try await terminal.press("J", "Space")
            let (folded, didFold) = try await terminal.waitForScreen { $0.contains("[+") && !$0.contains("u/davoclavo") }
            #expect(didFold, "\(folded)")
            #expect(Self.lines(folded)[4].hasPrefix("u/civilization_phaze_3 · 21 points"), "\(folded)")
            try await terminal.press("Space")
            #expect(try await terminal.waitForScreen(containing: "u/davoclavo").ok)
            try await terminal.press("q")
            #expect(try await terminal.waitForScreen { Self.bottom($0) == Self.python }.ok)
            // The post came from what the list prefetched: its comments were asked for once.
            #expect(server.requests.filter { $0.path == first }.count == 1, "\(server.requests.map(\.target))")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    @Test func oRunsTheBrowserWithTheLinkAsOneArgumentAndNeverThroughAShell() async throws {
        var reader = ReaderProcess()
        let folder = reader.folder.path
        // Each of these would make a file in the reader's folder, were the link given to a shell.
        let hostile = "https://example.com/a$(touch \(folder)/INJECTED)`touch \(folder)/INJECTED2`;touch \(folder)/INJECTED3"
        let body = #"{"kind": "Listing", "data": {"after": null, "children": [{"kind": "t3", "data": {"id": "abc", "name": "t3_abc", "title": "A link", "author": "a", "subreddit": "python", "score": 1, "num_comments": 0, "created_utc": 1790000000, "permalink": "/r/python/comments/abc/", "url": "\#(hostile)"}}]}}"#
        try await withTestServer { request in request.path == "/r/python/hot.json" ? .json(Array(body.utf8)) : .respond(status: 404, headers: [], body: []) } body: { server in
            reader.environment["READER_REDDIT_URL"] = server.baseURL
            let script = reader.folder.appendingPathComponent("browser.sh")
            try "#!/bin/sh\ncd \"$(dirname \"$0\")\"\nprintf '%s\\n' \"$#\" \"$@\" > opened\n".write(to: script, atomically: true, encoding: .utf8)
            #expect(chmod(script.path, 0o755) == 0)
            reader.environment["BROWSER"] = script.path
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: "r/python · hot · 1 posts").ok)
            try await terminal.press("o")
            var opened: String?
            _ = await waitUntil { opened = try? String(contentsOfFile: folder + "/opened", encoding: .utf8); return opened != nil }
            // One argument, the link whole; nothing in it ran.
            #expect(opened == "1\n\(hostile)\n")
            for name in ["INJECTED", "INJECTED2", "INJECTED3"] {
                #expect(!FileManager.default.fileExists(atPath: folder + "/" + name))
            }
            // The screen is browse's still, and the browser's output went nowhere near it.
            #expect(try await terminal.screen().contains("A link"))
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    @Test(.replaysRecordings) func afterASyncOfflineBrowsingOfAListAndAPostSendsNoRequest() async throws {
        // Every copy stale at once: only --offline keeps the screens from asking again.
        let stale: TestServer.Handler = { request in
            guard case .respond(let status, let headers, let body) = Self.handler(comments: true)(request) else { return .close }
            return .respond(status: status, headers: headers + [("Cache-Control", "max-age=0")], body: body)
        }
        try await withTestServer(stale) { server in
            let reader = ReaderProcess(server: server)
            let sync = try await reader.run("sync", "reddit", "python")
            #expect(sync.status == 0, "\(sync.stderr)")
            let synced = server.requests.count
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "--offline", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.python).ok)
            try await terminal.press("Enter")
            let (post, opened) = try await terminal.waitForScreen { $0.hasPrefix("A python terminal viewer for browsing reddit") && $0.contains("u/davoclavo") }
            #expect(opened, "\(post)")
            try await terminal.press("q", "G")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
            #expect(server.requests.count == synced, "\(server.requests.dropFirst(synced).map(\.target))")
        }
    }

    /// Whether the server answers 429 from now on.
    final class Limited: @unchecked Sendable {
        private let lock = NSLock()
        private var on = false
        var isOn: Bool {
            get { lock.withLock { on } }
            set { lock.withLock { on = newValue } }
        }
    }

    @Test(.replaysRecordings) func aRateLimitSaysUntilWhenAndNothingMoreIsSentBeforeThen() async throws {
        let limited = Limited()
        let normal = Self.handler(comments: true)
        try await withTestServer({ request in
            limited.isOn ? .respond(status: 429, headers: [("Content-Type", "text/html"), ("Retry-After", "600")],
                                    body: Fixtures.bytes("reddit/error_429_too_many_requests.html")) : normal(request)
        }) { server in
            let reader = ReaderProcess(server: server)
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.python).ok)
            // The prefetch done, Reddit says: not before ten minutes.
            #expect(await waitUntil { server.requests.count >= 24 })
            limited.isOn = true
            try await terminal.press("r")
            let (limitedScreen, said) = try await terminal.waitForScreen { Self.bottom($0).contains("rate limited until ") }
            #expect(said, "\(limitedScreen)")
            let asked = server.requests.count
            // Another refresh, pages and posts scrolled into view: nothing goes.
            try await terminal.press("r")
            try await terminal.press("G")
            try await terminal.press("g")
            let (settled, still) = try await terminal.waitForScreen { Self.bottom($0).hasSuffix("R1003") }
            #expect(still, "\(settled)")
            #expect(server.requests.count == asked, "\(server.requests.dropFirst(asked).map(\.target))")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }
}
