import Foundation
import ReaderKit
import Testing
import TestSupport
@testable import ReaderCLI
@testable import ReaderTerminal

/// How a table gives way on a narrow terminal (the order the README documents), and that no
/// line it draws is wider than its width, measured with the tests' own cell count.
@Suite struct TableLayoutTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A post whose every column is wide: score 12.3k, 1234 comments, 2 h old, r/programming
    /// (13 cells), an author of 24 cells (16 at most on a terminal), id abc123 and a 120-cell title.
    static let widePost = RedditPost(
        id: "abc123", name: "t3_abc123", title: String(repeating: "A title word ", count: 10).prefix(120).description,
        author: "a_rather_long_username", subreddit: "programming", score: 12_345, numComments: 1234,
        createdUTC: now.addingTimeInterval(-7200), permalink: "/r/programming/comments/abc123/")

    private func shown(_ table: Table, width: Int?) -> (titles: [String], widths: [String: Int]) {
        let layout = table.layout(width: width)
        return (layout.shown.map { table.columns[$0].title },
                Dictionary(uniqueKeysWithValues: layout.shown.map { (table.columns[$0].title, layout.widths[$0]) }))
    }

    @Test func postsGiveWayInTheDocumentedOrder() {
        // Given the widest post; when the terminal narrows; then the title shrinks to its
        // minimum (20, or two fifths of the width), SUBREDDIT and AUTHOR to 10, then AUTHOR,
        // COMMENTS, AGE and SUBREDDIT are left out in turn. SCORE, ID and TITLE stay.
        let table = Reader.Posts.table([Self.widePost], now: Self.now)
        let all = ["SCORE", "COMMENTS", "AGE", "SUBREDDIT", "AUTHOR", "ID", "TITLE"]

        let wide = shown(table, width: 200)
        #expect(wide.titles == all)
        #expect(wide.widths["TITLE"] == 120 && wide.widths["AUTHOR"] == 16 && wide.widths["SUBREDDIT"] == 13)

        let hundred = shown(table, width: 100)
        #expect(hundred.titles == all)
        #expect(hundred.widths["TITLE"] == 40 && hundred.widths["SUBREDDIT"] == 13 && hundred.widths["AUTHOR"] == 13)

        let eighty = shown(table, width: 80)
        #expect(eighty.titles == ["SCORE", "COMMENTS", "AGE", "SUBREDDIT", "ID", "TITLE"])
        #expect(eighty.widths["TITLE"] == 35 && eighty.widths["SUBREDDIT"] == 13)

        let sixty = shown(table, width: 60)
        #expect(sixty.titles == ["SCORE", "AGE", "SUBREDDIT", "ID", "TITLE"])
        #expect(sixty.widths["TITLE"] == 25)

        let forty = shown(table, width: 40)
        #expect(forty.titles == ["SCORE", "ID", "TITLE"])
        #expect(forty.widths["TITLE"] == 25)
        #expect(table.render(width: 40).split(separator: "\n").map(String.init)
                == ["SCORE  ID      TITLE", "12.3k  abc123  A title word A title wor…"])

        // A front page's subreddits outlast the age: at 60, AGE goes before SUBREDDIT.
        var old = Self.widePost
        old.createdUTC = Self.now.addingTimeInterval(-86_400 * 200)
        let months = shown(Reader.Posts.table([old], now: Self.now), width: 60)
        #expect(months.titles == ["SCORE", "SUBREDDIT", "ID", "TITLE"])
    }

    @Test func withoutAWidthEveryValueIsWholeAndEveryColumnShown() {
        let table = Reader.Posts.table([Self.widePost], now: Self.now)
        let rendered = table.render(width: nil)
        #expect(!rendered.contains("…"))
        #expect(rendered.contains("u/a_rather_long_username  abc123  " + Self.widePost.title))
        #expect(shown(table, width: nil).titles.count == 7)
    }

    /// Random rows (wide characters, emoji, long and empty cells) at every width from 40 to 260:
    /// no line is wider than the terminal and the title keeps at least 20 cells (or its whole).
    @Test func noLineIsWiderThanTheTerminal() {
        let seed = UInt64(ProcessInfo.processInfo.environment["READER_TABLE_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "word", "日本語", "한국어", "🎉", "👩‍💻", "e\u{301}", "x", "r/swift", "long_name_without_spaces", " "]
        func text(_ count: Int) -> String {
            (0..<Int.random(in: 0...count, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        for width in 40...260 {
            let posts = (0..<4).map { index in
                RedditPost(id: text(3), name: "t3_x", title: text(40), author: text(12), subreddit: text(8),
                           score: Int.random(in: -2_000_000...2_000_000, using: &random), numComments: Int.random(in: 0...99_999, using: &random),
                           createdUTC: Self.now.addingTimeInterval(-Double(index * 100_000)), permalink: "/p")
            }
            let table = Reader.Posts.table(posts, now: Self.now)
            for line in table.render(width: width, style: Style(enabled: true)).split(separator: "\n") {
                let cells = TerminalWidth.cells(of: ShownText.withoutEscapes(String(line)))
                #expect(cells <= width, "seed \(seed) (READER_TABLE_SEED), width \(width): \(cells) cells: \(line)")
            }
            let layout = table.layout(width: width)
            let title = table.columns.count - 1
            let whole = posts.map { TerminalText.width(TerminalText.sanitise($0.title, maxLength: 1000)) }.max() ?? 0
            #expect(layout.widths[title] >= min(20, max(whole, 5)), "seed \(seed), width \(width)")
        }
    }

    @Test func scoresStayNarrow() {
        let cases: [(Int, String)] = [(0, "0"), (-1, "-1"), (9999, "9999"), (12_400, "12.4k"), (99_949, "99.9k"), (99_950, "100k"),
                                      (-123_456, "-123k"), (999_499, "999k"), (999_500, "1.0M"), (1_234_567, "1.2M"),
                                      (9_950_000, "10M"), (123_456_789, "123M"), (999_500_000, "1.0B"), (Int.max, "9223372037B"),
                                      (Int.min, "-9223372037B")]
        for (value, expected) in cases { #expect(Compact.number(value) == expected, "\(value)") }
        // Within Reddit's bounds every score takes at most six cells.
        for value in stride(from: -1_000_000_000, through: 1_000_000_000, by: 49_999) {
            #expect(Compact.number(value).count <= 6, "\(value): \(Compact.number(value))")
        }
    }

    @Test func colourNeverMovesAColumn() {
        let table = Reader.Posts.table([Self.widePost], now: Self.now)
        for width in [40, 60, 80, 200] {
            let coloured = table.render(width: width, style: Style(enabled: true)) { _, text in Style(enabled: true).cyan(text) }
            #expect(coloured.contains("\u{1B}["))
            #expect(ShownText.withoutEscapes(coloured) == table.render(width: width))
        }
    }

    @Test func aWrappingColumnWrapsAndCutsNothing() {
        // Given a status-like table whose last column is a message.
        let message = "error T1004: cannot connect to 127.0.0.1:9 (connection refused); is the service running on that port?"
        let table = Table(columns: [.init(title: "SERVICE"), .init(title: "STEP"), .init(title: "TIME", alignRight: true),
                                    .init(title: "RESULT", flexible: true, wraps: true)],
                          rows: [["swapi", "connect", "0.4 ms", message], ["reddit", "resolve", "1.2 ms", "ok  127.0.0.1"]])
        for width in [40, 60, 80] {
            let lines = table.render(width: width).split(separator: "\n").map(String.init)
            #expect(lines.allSatisfy { TerminalWidth.cells(of: $0) <= width }, "\(lines)")
            #expect(!lines.joined().contains("…"))
            // The message's lines all start at the RESULT column, and read back as the message.
            let column = lines[0].distance(from: lines[0].startIndex, to: lines[0].range(of: "RESULT")!.lowerBound)
            let parts = lines[1...].prefix { !$0.hasPrefix("reddit") }.map { String($0.dropFirst(column)) }
            #expect(parts.joined(separator: " ") == message, "\(lines)")
            #expect(lines.last == "reddit   resolve  1.2 ms  ok  127.0.0.1")
        }
    }

    @Test func absurdWidthsNeitherTrapNorOverflow() {
        let table = Reader.Posts.table([Self.widePost], now: Self.now)
        for width in [Int.min, -1, 0, 1, 5, 39, Int.max] {
            let rendered = table.render(width: width)
            #expect(rendered.split(separator: "\n").count == 2)
        }
        // A terminal as wide as anyone claims is laid out as the widest one there is.
        #expect(table.layout(width: Int.max) == table.layout(width: Terminal.widest))
    }

    @Test func longWordsBreakInsteadOfBeingCut() {
        let url = "https://example.com/" + String(repeating: "日本", count: 10) + "/end"
        let lines = TerminalText.wrap("see " + url + " now", toWidth: 16, breakingLongWords: true)
        #expect(lines.allSatisfy { TerminalWidth.cells(of: $0) <= 16 }, "\(lines)")
        #expect(lines.first == "see")
        let rest = lines.dropFirst().joined()
        #expect(rest == url + "now" || rest == url + " now", "\(lines)")
        #expect(TerminalText.chunks("ab日", ofWidth: 3) == ["ab", "日"])
    }
}
