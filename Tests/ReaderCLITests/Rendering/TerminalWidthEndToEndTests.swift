import Foundation
import Testing
import TestSupport

/// The built `reader` on a real pseudo-terminal 40, 60, 80 and 200 columns wide: no line it
/// shows (stdout and stderr alike) is wider than the terminal, measured here in cells with the
/// test's own count (``TerminalWidth``), not ReaderKit's. And on a pipe, nothing is cut.
@Suite(.processSlot) struct TerminalWidthEndToEndTests {
    static let widths: [UInt16] = [40, 60, 80, 200]

    /// Answers like SWAPI and Reddit from the fixtures, and the shared comment thread.
    static func route(_ request: TestServer.Request) -> TestServer.Reply {
        if request.path == "/comments/2xmo63.json" {
            return .json(Fixtures.bytes("reddit/comments_r_python_2xmo63.json"), headers: [("Cache-Control", "max-age=0, must-revalidate")])
        }
        return Fixtures.route(request)
    }

    /// Every line a terminal shows for `arguments` with stdout and stderr on it.
    private func shownLines(_ arguments: [String], columns: UInt16, reader: ReaderProcess,
                            expectStatus: Int32? = 0) async throws -> [String] {
        let result = try await reader.runOnTerminal(arguments, streams: [.standardOutput, .standardError], columns: columns)
        if let expectStatus { #expect(result.status == expectStatus, "\(arguments) at \(columns): \(result.stdout)") }
        return ShownText.lines(result.stdout)
    }

    private func expectFits(_ lines: [String], columns: UInt16, _ what: String) {
        #expect(!lines.isEmpty, "\(what) showed nothing")
        for line in lines {
            #expect(TerminalWidth.cells(of: line) <= Int(columns),
                    "\(what) at \(columns) columns: \(TerminalWidth.cells(of: line)) cells: \(line.debugDescription)")
        }
    }

    @Test(.replaysRecordings, arguments: widths) func postsFitTheTerminal(columns: UInt16) async throws {
        try await withTestServer(Self.route) { server in
            let reader = ReaderProcess(server: server)
            // r/popular has emoji and accented titles; the front page long subreddit names.
            for subreddit in ["popular", "python"] {
                let lines = try await shownLines(["posts", subreddit], columns: columns, reader: reader)
                expectFits(lines, columns: columns, "posts \(subreddit)")
                // The header and every post's id are always there: the id is what `reader comments` takes.
                #expect(lines.first?.hasPrefix("SCORE") == true, "\(lines.first ?? "")")
                #expect(lines.first?.contains(" ID ") == true && lines.first?.contains("TITLE") == true, "\(lines.first ?? "")")
            }
            let front = try await shownLines(["posts"], columns: columns, reader: reader)
            expectFits(front, columns: columns, "posts (front page)")
            #expect(front.contains { $0.contains("6zyrr6") })
        }
    }

    @Test(.replaysRecordings, arguments: widths) func listsAndDetailViewsFitTheTerminal(columns: UInt16) async throws {
        try await withTestServer(Self.route) { server in
            let reader = ReaderProcess(server: server)
            for command in ["films", "people", "planets", "species", "starships", "vehicles"] {
                let lines = try await shownLines([command], columns: columns, reader: reader)
                expectFits(lines, columns: columns, command)
                #expect(lines.first?.hasPrefix("ID  ") == true, "\(command): \(lines.first ?? "")")
            }
            // A detail view, and its message about the names it could not load (on stderr).
            for arguments in [["films", "1"], ["people", "1"]] {
                let lines = try await shownLines(arguments, columns: columns, reader: reader)
                expectFits(lines, columns: columns, arguments.joined(separator: " "))
                #expect(lines.contains { $0.hasPrefix("Title") || $0.hasPrefix("Name") })
            }
            let crawl = try await shownLines(["films", "1"], columns: columns, reader: reader)
            // Wrapped under its label: every line of the crawl starts where the first one's text does.
            let start = try #require(crawl.firstIndex { $0.hasPrefix("Opening crawl  It is a period of civil") })
            let continuation = crawl[(start + 1)...].prefix { $0.hasPrefix("               ") && !$0.hasPrefix("                ") }
            #expect(!continuation.isEmpty)
        }
    }

    @Test(.replaysRecordings, arguments: widths) func commentsFitTheTerminalAndReadWell(columns: UInt16) async throws {
        try await withTestServer(Self.route) { server in
            let reader = ReaderProcess(server: server)
            let lines = try await shownLines(["comments", "2xmo63"], columns: columns, reader: reader)
            expectFits(lines, columns: columns, "comments")
            // The traceback keeps its indentation: four spaces of code under the comment's two.
            #expect(lines.contains("      Traceback (most recent call last):"), "\(lines.prefix(90))")
            // A link reads as its text; its URL is shown whole in a note, broken but not cut.
            #expect(lines.contains("    Relevant tutorial[1]"))
            #expect(ShownText.joiningBrokenLines(lines).contains("[1] http://peterdowns.com/posts/first-time-with-pypi.html"))
            #expect(!lines.contains { $0.contains("](http") })
            #expect(!lines.contains { $0.contains("…") })
            // One point, not "1 points"; every meta line fits (checked above), wrapped where it must.
            #expect(lines.contains { $0.contains("1 point") && !$0.contains("1 points") })
            #expect(!lines.contains { $0.range(of: #"(^|[^0-9.])1 points"#, options: .regularExpression) != nil })
            if columns == 200 {
                // Prose stops at about 100 cells however wide the terminal: the longest line of the
                // first comment (at two cells in) is at most 102.
                let prose = lines.filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }
                #expect(prose.map(TerminalWidth.cells(of:)).max() ?? 0 <= 100)
                #expect(prose.map(TerminalWidth.cells(of:)).max() ?? 0 > 90)
                #expect(lines.contains("          load_entry_point('rtv==1.0a1', 'console_scripts', 'rtv')()"))
            }
        }
    }

    @Test(arguments: widths) func statusFitsTheTerminalAndIsNeverCut(columns: UInt16) async throws {
        // Nothing listens on port 9: every service fails to connect, with a message to show.
        let reader = ReaderProcess()
        let lines = try await shownLines(["status", "--timeout", "2s"], columns: columns, reader: reader, expectStatus: nil)
        expectFits(lines, columns: columns, "status")
        #expect(!lines.contains { $0.contains("…") }, "\(lines)")
        let joined = ShownText.joiningBrokenLines(lines)
        // The cache's path, though longer than a narrow terminal, is shown whole.
        #expect(joined.contains(reader.cachePath), "\(joined)")
        #expect(lines.first?.hasPrefix("SERVICE") == true)
    }

    @Test(.replaysRecordings) func pipedOutputIsWhole() async throws {
        try await withTestServer(Self.route) { server in
            var reader = ReaderProcess(server: server)
            reader.environment["COLUMNS"] = nil

            // Every title of r/popular, however long, in full (the fixture's titles have no entities).
            let posts = try await reader.run("posts", "popular")
            #expect(posts.status == 0)
            let listing = try #require(try JSONSerialization.jsonObject(with: Data(Fixtures.bytes("reddit/listing_r_popular_hot_2026.json"))) as? [String: Any])
            let children = ((listing["data"] as? [String: Any])?["children"] as? [[String: Any]]) ?? []
            let titles = children.compactMap { ($0["data"] as? [String: Any])?["title"] as? String }
            #expect(titles.count > 25)
            #expect(titles.contains { $0.count > 250 })
            for title in titles where !title.contains("&") {
                #expect(posts.stdout.contains(title), "cut: \(title)")
            }
            // Nothing is left out either: author is a column on a pipe.
            let header = posts.stdout.prefix { $0 != "\n" }.split(separator: " ")
            #expect(header == ["SCORE", "COMMENTS", "AGE", "SUBREDDIT", "AUTHOR", "ID", "TITLE"])

            // A detail view keeps each value on its line, for the pager to wrap.
            let film = try await reader.run("films", "1")
            #expect(film.status == 0)
            let crawl = film.stdout.split(separator: "\n").first { $0.hasPrefix("Opening crawl") } ?? ""
            #expect(crawl.hasPrefix("Opening crawl  It is a period of civil war."))
            #expect(crawl.hasSuffix("restore freedom to the galaxy...."))
            // And its message on stderr is one line.
            #expect(film.stderr.split(separator: "\n").count == 1, "\(film.stderr)")

            // Code is never broken on a pipe; prose is wrapped at the reading width.
            let comments = try await reader.run("comments", "2xmo63")
            #expect(comments.stdout.contains("\n          load_entry_point('rtv==1.0a1', 'console_scripts', 'rtv')()\n"))
            #expect(comments.stdout.contains("\n    [1] http://peterdowns.com/posts/first-time-with-pypi.html\n"))

            // $COLUMNS, when the user set it, is the width to fit.
            reader.environment["COLUMNS"] = "50"
            for arguments in [["posts", "popular"], ["people"], ["films", "1"], ["comments", "2xmo63"]] {
                let result = try await reader.run(arguments)
                #expect(result.status == 0)
                for line in (result.stdout + result.stderr).split(separator: "\n") {
                    #expect(TerminalWidth.cells(of: String(line)) <= 50, "\(arguments): \(line)")
                }
            }
        }
    }
}

extension TerminalWidthEndToEndTests {
    /// Piped, prose is never wider than 100 cells, its indentation included, at any depth: over
    /// every text of the Reddit fixtures (the recorded comment thread, and each self post of the
    /// recorded listings shown as a post of its own), every line is measured. Only what is kept
    /// as written may be wider: a code line, and a link's URL in its note.
    @Test(.replaysRecordings) func pipedCommentsKeepProseWithinAHundredCells() async throws {
        let (pages, texts) = try Self.commentPagesOfTheRedditFixtures()
        #expect(pages.count > 50, "the fixtures' threads and self posts: \(pages.count)")
        try await withTestServer { request in
            let id = request.path.dropFirst("/comments/".count).dropLast(".json".count)
            return pages[String(id)].map { .json($0) } ?? .respond(status: 404, headers: [], body: [])
        } body: { server in
            var reader = ReaderProcess(server: server)
            reader.environment["COLUMNS"] = nil
            let verbatim = Self.keptAsWritten(in: texts)
            var deepAndFull = 0
            for id in pages.keys.sorted() {
                let result = try await reader.run("comments", id)
                #expect(result.status == 0, "\(id): \(result.stderr)")
                for line in result.stdout.split(separator: "\n").map(String.init) {
                    let cells = TerminalWidth.cells(of: line)
                    let text = String(line.drop { $0 == " " })
                    if cells > 90, cells <= 100, line.count - text.count >= 6 { deepAndFull += 1 }
                    guard cells > 100 else { continue }
                    #expect(verbatim.code.contains(text) || verbatim.isURLNote(text),
                            "\(id): \(cells) cells: \(line.debugDescription)")
                }
            }
            // Prose three levels deep was measured, and fills the reading width there.
            #expect(deepAndFull > 0)
        }
    }

    /// Each comment page of the Reddit fixtures by its post's id, and every post's and comment's
    /// text in them: the recorded thread as it is, and each self post of a recorded listing as a
    /// page of its own with no comments.
    static func commentPagesOfTheRedditFixtures() throws -> (pages: [String: [UInt8]], texts: [String]) {
        var pages: [String: [UInt8]] = [:]
        var texts: [String] = []
        func collectTexts(_ value: Any) {
            if let object = value as? [String: Any] {
                for (key, member) in object {
                    if key == "body" || key == "selftext", let text = member as? String { texts.append(text) } else { collectTexts(member) }
                }
            } else if let array = value as? [Any] {
                array.forEach(collectTexts)
            }
        }
        let emptyListing: [String: Any] = ["kind": "Listing", "data": ["after": NSNull(), "before": NSNull(), "children": [Any]()]]
        for name in Fixtures.names(in: "reddit", withExtension: "json") {
            let bytes = Fixtures.bytes(name)
            let json = try JSONSerialization.jsonObject(with: Data(bytes))
            if let thread = json as? [[String: Any]] {
                let post = (((thread.first?["data"] as? [String: Any])?["children"] as? [[String: Any]])?.first?["data"] as? [String: Any])
                let id = try #require(post?["id"] as? String, "\(name)")
                pages[id] = bytes
                collectTexts(thread)
            } else if let children = ((json as? [String: Any])?["data"] as? [String: Any])?["children"] as? [[String: Any]] {
                for child in children {
                    guard let post = child["data"] as? [String: Any], post["is_self"] as? Bool == true,
                          let id = post["id"] as? String, let text = post["selftext"] as? String, !text.isEmpty else { continue }
                    let listing: [String: Any] = ["kind": "Listing", "data": ["after": NSNull(), "before": NSNull(), "children": [child]]]
                    pages[id] = Array(try JSONSerialization.data(withJSONObject: [listing, emptyListing]))
                    texts.append(text)
                }
            }
        }
        return (pages, texts)
    }

    /// What `reader comments` keeps as it was written, however wide: the lines of code (fenced,
    /// or indented by four spaces), without their leading spaces; and the texts, to find a
    /// note's URL in.
    struct KeptAsWritten {
        var code: Set<String> = []
        var texts: [String] = []

        /// `[1] URL`, a URL found whole in one of the texts.
        func isURLNote(_ line: String) -> Bool {
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]"),
                  line[line.index(after: line.startIndex)..<close].allSatisfy(\.isNumber) else { return false }
            let url = line[close...].dropFirst(2)
            return !url.isEmpty && !url.contains(" ") && texts.contains { $0.contains(url) }
        }
    }

    static func keptAsWritten(in texts: [String]) -> KeptAsWritten {
        var kept = KeptAsWritten()
        for text in texts {
            let decoded = text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "\r\n", with: "\n")
            kept.texts.append(decoded)
            var fenced = false
            for raw in decoded.split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.replacingOccurrences(of: "\t", with: "    ")
                let content = String(line.drop { $0 == " " })
                if content.hasPrefix("```") || content.hasPrefix("~~~") { fenced.toggle(); continue }
                if fenced || line.hasPrefix("    ") { kept.code.insert(content) }
            }
        }
        return kept
    }
}

/// What a terminal shows of the bytes it was sent, worked out by the test itself.
enum ShownText {
    /// The lines, without escape sequences; a carriage return (a progress line redrawn) starts
    /// again at the left, so each piece between is a line of its own to measure.
    static func lines(_ received: String) -> [String] {
        withoutEscapes(received).split(separator: "\n", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "\r", omittingEmptySubsequences: false) }
            .map(String.init)
            .filter { !$0.isEmpty }
    }

    /// `lines` with each line break and the indentation after it taken out: a word that was
    /// broken across lines reads whole again (words wrapped at spaces run together).
    static func joiningBrokenLines(_ lines: [String]) -> String {
        lines.map { $0.drop { $0 == " " } }.joined()
    }

    /// `text` without CSI sequences (`ESC [ … final`) and OSC strings (`ESC ] … BEL`).
    static func withoutEscapes(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{1B}" else { result.append(scalar); continue }
            switch scalars.next() {
            case "[": while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
            case "]": while let next = scalars.next(), next != "\u{07}" {}
            default: continue
            }
        }
        return String(result)
    }
}

extension TerminalWidthEndToEndTests {
    /// Errors, hints and notices on a narrow terminal wrap under their label; none is cut.
    @Test func errorsAndNoticesWrapOnANarrowTerminalAndStayWholePiped() async throws {
        let reader = ReaderProcess()   // nothing listens on port 9: T1004
        let onTerminal = try await reader.runOnTerminal(["films"], streams: [.standardOutput, .standardError], columns: 40)
        let lines = ShownText.lines(onTerminal.stdout + onTerminal.stderr)
        #expect(lines.contains { $0.hasPrefix("error T1004") }, "\(lines)")
        #expect(lines.count > 2, "the message and its hint take several lines at 40 columns: \(lines)")
        for line in lines { #expect(TerminalWidth.cells(of: line) <= 40, "\(line)") }
        #expect(!lines.joined().contains("…"), "\(lines)")
        let piped = try await reader.run("films")
        let first = try #require(piped.stderr.split(separator: "\n").first.map(String.init))
        #expect(first.hasPrefix("error T1004: ") && TerminalWidth.cells(of: first) > 40, "whole when piped: \(piped.stderr)")
    }
}
