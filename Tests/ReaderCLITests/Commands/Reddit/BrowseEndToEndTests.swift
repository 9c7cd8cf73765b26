import Foundation
import Testing
import TestSupport

/// `reader browse` in a real terminal (tmux) against the loopback test server: the post list
/// drawn, moved through and quit; the terminal given back exactly on `q`, Ctrl-c and SIGTERM; a
/// resize; hostile titles; and the refusal without a terminal.
@Suite(.processSlot) struct BrowseEndToEndTests {
    /// r/python's hot listing (102 posts), as `reader posts python` asks for it; anything else 404.
    static func listing(_ request: TestServer.Request) -> TestServer.Reply {
        request.path == "/r/python/hot.json"
            ? .json(Fixtures.bytes("reddit/listing_r_python_hot.json"))
            : .respond(status: 404, headers: [], body: [])
    }

    static let bottomLine = "r/python · hot · 102 posts"

    /// Whether a line of `capture-pane -e` starts reverse video (tmux writes `ESC [ 0 ; 7 m`).
    static func isReverse(_ line: some StringProtocol) -> Bool {
        line.hasPrefix("\u{1B}[7m") || line.hasPrefix("\u{1B}[0;7m")
    }

    /// Whether the terminal was given back as it was: the same modes, the main screen, the
    /// cursor shown, wrap on, no keypad or mouse mode left on, no scroll region.
    private func expectGivenBack(_ terminal: TmuxTerminal, rows: Int) async throws {
        let (before, after) = try await terminal.modesBeforeAndAfter()
        #expect(before != nil && before == after)
        #expect(try await terminal.pane("#{alternate_on} #{cursor_flag} #{wrap_flag} #{keypad_flag} #{keypad_cursor_flag} #{mouse_any_flag}")
                == "0 1 1 0 0 0")
        #expect(try await terminal.pane("#{scroll_region_upper} #{scroll_region_lower}") == "0 \(rows - 1)")
    }

    @Test(.replaysRecordings) func theListIsDrawnMovedThroughAndQuitAndTheTerminalGivenBack() async throws {
        try await withTestServer(Self.listing) { server in
            let reader = ReaderProcess(server: server)
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
            let (screen, shown) = try await terminal.waitForScreen(containing: Self.bottomLine)
            #expect(shown, "\(screen)")
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.hasPrefix("SCORE  COMMENTS") == true, "\(screen)")
            #expect(lines.count > 23 && lines[23].hasPrefix(Self.bottomLine), "\(screen)")
            #expect(lines.count > 1 && lines[1].hasSuffix("/r/Python Official Job Board"), "\(screen)")
            #expect(try await terminal.pane("#{alternate_on} #{cursor_flag}") == "1 0")
            // The first row selected, in reverse video; two steps down, the third.
            #expect(Self.isReverse(try await terminal.styledScreen().split(separator: "\n")[1]))
            try await terminal.press("j", "Down")
            let (styled, moved) = try await terminal.waitForScreen(styled: true) { screen in
                let lines = screen.split(separator: "\n")
                return lines.count > 3 && Self.isReverse(lines[3])
            }
            #expect(moved, "\(styled)")
            #expect(styled.split(separator: "\n")[3].contains("A new version of Wilson"))
            #expect(!Self.isReverse(styled.split(separator: "\n")[1]))
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
            try await expectGivenBack(terminal, rows: 24)

            // It asked for exactly what `reader posts python` asks for first, then in the
            // background for the comments of the posts on screen as `reader comments ID` asks.
            let browsed = server.requests.map(\.target)
            #expect(try await reader.run("posts", "python", "--refresh").status == 0)
            #expect(browsed.first == "/r/python/hot.json?limit=25&raw_json=1")
            #expect(server.requests.last?.target == browsed.first)
            #expect(browsed.contains("/comments/6zn6fy.json?sort=confidence&raw_json=1"))
            _ = try await reader.run("comments", "6zn6fy", "--refresh")
            #expect(server.requests.last?.target == "/comments/6zn6fy.json?sort=confidence&raw_json=1")
        }
    }

    @Test(.replaysRecordings) func ctrlCEndsWith130AndSigtermWith143TheTerminalGivenBackEachTime() async throws {
        try await withTestServer(Self.listing) { server in
            let interrupted = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await interrupted.waitForScreen(containing: Self.bottomLine).ok)
            try await interrupted.press("C-c")
            #expect(try await interrupted.waitForFile("status") == "130")
            try await expectGivenBack(interrupted, rows: 24)

            let terminated = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminated.waitForScreen(containing: Self.bottomLine).ok)
            let pid = try #require(try await terminated.waitForFile("pid").flatMap { Int32($0) })
            #expect(kill(pid, SIGTERM) == 0)
            #expect(try await terminated.waitForFile("status") == "143")
            try await expectGivenBack(terminated, rows: 24)
        }
    }

    @Test(.replaysRecordings) func ctrlZStopsItWithTheTerminalGivenBackAndFgBringsTheScreenBackWhole() async throws {
        try await withTestServer(Self.listing) { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"],
                                                        jobControl: true)
            #expect(try await terminal.waitForScreen(containing: Self.bottomLine).ok)
            try await terminal.press("C-z")
            // Stopped as a job is (128 + SIGTSTP), the terminal as it was while it is.
            #expect(try await terminal.waitForFile("stopped") == "148")
            let (before, during) = (try await terminal.waitForFile("before"), try await terminal.waitForFile("during"))
            #expect(before != nil && before == during)
            // `fg`: the screen whole again, in raw mode (a key acts at once, unechoed).
            try await terminal.press("j")
            let (styled, moved) = try await terminal.waitForScreen(styled: true) { screen in
                let lines = screen.split(separator: "\n")
                return lines.count > 23 && Self.isReverse(lines[2]) && lines[23].hasPrefix(Self.bottomLine)
            }
            #expect(moved, "\(styled)")
            #expect(try await terminal.pane("#{alternate_on} #{cursor_flag}") == "1 0")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
            try await expectGivenBack(terminal, rows: 24)
        }
    }

    @Test(.replaysRecordings) func anyOtherEndingSignalGivesTheTerminalBackToo() async throws {
        try await withTestServer(Self.listing) { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.bottomLine).ok)
            let pid = try #require(try await terminal.waitForFile("pid").flatMap { Int32($0) })
            #expect(kill(pid, SIGUSR1) == 0)
            #expect(try await terminal.waitForFile("status") == "\(128 + SIGUSR1)")
            try await expectGivenBack(terminal, rows: 24)
        }
    }

    /// The real-time signals end a process by default as SIGUSR1 does: the first and the last.
    @Test(.replaysRecordings, arguments: [__libc_current_sigrtmin(), __libc_current_sigrtmax()])
    func aRealTimeSignalGivesTheTerminalBackToo(signal: Int32) async throws {
        try await withTestServer(Self.listing) { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.bottomLine).ok)
            let pid = try #require(try await terminal.waitForFile("pid").flatMap { Int32($0) })
            #expect(kill(pid, signal) == 0)
            #expect(try await terminal.waitForFile("status") == "\(128 + signal)")
            try await expectGivenBack(terminal, rows: 24)
        }
    }

    @Test(.replaysRecordings) func aFaultSentByKillEndsItTooTheTerminalGivenBack() async throws {
        try await withTestServer(Self.listing) { server in
            // With Swift's backtracer as it comes (on): a fault sent by kill has nothing to trace,
            // and the process ends as the signal's default does.
            let reader = ReaderProcess(server: server)
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.bottomLine).ok)
            let pid = try #require(try await terminal.waitForFile("pid").flatMap { Int32($0) })
            #expect(kill(pid, SIGSEGV) == 0)
            #expect(try await terminal.waitForFile("status") == "\(128 + SIGSEGV)")
            try await expectGivenBack(terminal, rows: 24)
        }
    }

    @Test(.replaysRecordings) func aResizeRedrawsAtTheNewSize() async throws {
        try await withTestServer(Self.listing) { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.bottomLine).ok)
            try await terminal.resize(columns: 40, rows: 12)
            let (screen, redrawn) = try await terminal.waitForScreen { screen in
                let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
                // At 40 columns the table gives way: COMMENTS, AGE and SUBREDDIT are left out.
                return lines.first?.hasPrefix("SCORE  ID") == true && lines.count >= 12 && lines[11].hasPrefix(Self.bottomLine)
            }
            #expect(redrawn, "\(screen)")
            #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 40 })
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
            try await expectGivenBack(terminal, rows: 12)
        }
    }

    @Test func hostileTitlesNeverReachTheTerminalRaw() async throws {
        let title = #"evil\u001b]2;pwned\u0007 \u001b[2J\u001b[31mtitle\u202e\u200bgnp.exe"#
        let body = #"{"kind": "Listing", "data": {"after": null, "children": [{"kind": "t3", "data": {"id": "abc", "name": "t3_abc", "title": "\#(title)", "author": "a", "subreddit": "python", "score": 1, "num_comments": 0, "created_utc": 1790000000, "permalink": "/r/python/comments/abc/"}}]}}"#
        try await withTestServer { _ in .json(Array(body.utf8)) } body: { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            let (screen, shown) = try await terminal.waitForScreen(containing: "r/python · hot · 1 posts")
            #expect(shown, "\(screen)")
            #expect(screen.split(separator: "\n")[1].hasSuffix("evil titlegnp.exe"), "\(screen)")
            #expect(!screen.contains("pwned"))
            #expect(try await terminal.pane("#{pane_title}") != "pwned")
            #expect(try await !terminal.styledScreen().contains("\u{1B}[31m"))
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    /// A stray variation selector (after a space) is measured as tmux draws it: a row drawn over
    /// one that held it keeps no glyph of it. Post A's title holds one; B's is the same text
    /// after it; filtered to B, the first row must read as B's own row did.
    @Test(arguments: ["\u{FE0F}", "\u{FE0E}", "\u{E0100}"])
    func aStrayVariationSelectorLeavesNoGlyphBehind(selector: String) async throws {
        func post(_ id: String, _ title: String) -> String {
            #"{"kind": "t3", "data": {"id": "\#(id)", "name": "t3_\#(id)", "title": "\#(title)", "author": "a", "subreddit": "python", "score": 1, "num_comments": 0, "created_utc": 1790000000, "permalink": "/r/python/comments/\#(id)/"}}"#
        }
        let body = #"{"kind": "Listing", "data": {"after": null, "children": [\#(post("aaa", "k \(selector)tail of the title")), \#(post("bbb", "kk tail of the title"))]}}"#
        try await withTestServer { _ in .json(Array(body.utf8)) } body: { server in
            let terminal = try await TmuxTerminal.start(ReaderProcess(server: server), columns: 80, rows: 24, arguments: ["browse", "python"])
            let (before, shown) = try await terminal.waitForScreen(containing: "r/python · hot · 2 posts")
            #expect(shown, "\(before)")
            let rowOfB = before.split(separator: "\n", omittingEmptySubsequences: false)[2]
            #expect(rowOfB.hasSuffix("kk tail of the title"), "\(before)")
            try await terminal.press("/", "k", "k", "Enter")
            let (after, filtered) = try await terminal.waitForScreen(containing: "1 of 2 posts")
            #expect(filtered, "\(after)")
            #expect(after.split(separator: "\n", omittingEmptySubsequences: false)[1] == rowOfB,
                    "\(after)")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    /// The cache file deleted while browsing is noticed, as `sync` notices it (C1003), and
    /// opened anew: what is read afterwards is in the file the next command reads.
    @Test(.replaysRecordings) func aCacheFileDeletedWhileBrowsingIsNoticedAndOpenedAnew() async throws {
        try await withTestServer(Self.listing) { server in
            let reader = ReaderProcess(server: server)
            let terminal = try await TmuxTerminal.start(reader, columns: 80, rows: 24, arguments: ["browse", "python"])
            #expect(try await terminal.waitForScreen(containing: Self.bottomLine).ok)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: reader.cachePath + suffix) }
            let (screen, said) = try await terminal.waitForScreen(containing: "C1003")
            #expect(said, "\(screen)")
            #expect(screen.contains("the cache file was deleted while in use"), "\(screen)")
            // A fresh copy read now is stored in the new file, where a command finds it.
            try await terminal.press("r")
            #expect(try await waitUntil { try await reader.run("posts", "python", "--offline").status == 0 })
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }

    @Test func withoutATerminalOrWithADumbOneItIsR1001() async throws {
        let piped = try await ReaderProcess().run("browse", "python")
        #expect(piped.status == 64)
        #expect(piped.stderr.contains("R1001"), "\(piped.stderr)")
        #expect(piped.stderr.contains("browse needs a terminal"), "\(piped.stderr)")
        #expect(piped.stderr.contains("'reader posts' is for scripts"), "\(piped.stderr)")
        #expect(piped.stdout.isEmpty)
        // Nothing for a script there: --json is refused before anything else.
        let json = try await ReaderProcess().run("browse", "--json", "python")
        #expect(json.status == 64)
        #expect(json.stderr.contains("browse draws on the terminal and writes no JSON"), "\(json.stderr)")

        let dumb = try await TmuxTerminal.start(ReaderProcess(), columns: 80, rows: 24, arguments: ["browse", "python"], term: "dumb")
        #expect(try await dumb.waitForFile("status") == "64")
        #expect(try await dumb.screen().contains("browse needs a terminal, and TERM is dumb"))
        let (before, after) = try await dumb.modesBeforeAndAfter()
        #expect(before != nil && before == after)
    }
}
