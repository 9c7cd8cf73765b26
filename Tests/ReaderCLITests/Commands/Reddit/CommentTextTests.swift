import Foundation
import ReaderKit
import Testing
@testable import ReaderCLI

/// A comment's text (Reddit's markdown) as a good reader shows it: prose wrapped to a reading
/// width, code as written, links as their text and a note with the URL.
@Suite struct CommentTextTests {
    @Test func indentedCodeKeepsItsIndentationAndIsNotRewrapped() {
        let text = "Try this:\n\n    def f(x):\n        return x  +  1\n\n    print(f(2))\n\nDone &gt; good."
        #expect(CommentTree.body(text, indent: "  ", width: 80)
                == ["  Try this:", "", "      def f(x):", "          return x  +  1", "", "      print(f(2))", "", "  Done > good."])
    }

    @Test func fencedCodeKeepsItsLinesAndSpaces() {
        let text = "Run:\n```\nx  =  [1,\n      2]\n```\nthen go on"
        #expect(CommentTree.body(text, indent: "", width: 60) == ["Run:", "    x  =  [1,", "          2]", "then go on"])
    }

    @Test func fourSpacesInsideAParagraphAreNotCode() {
        // Markdown starts a code block only after a blank line.
        #expect(CommentTree.body("one line\n    continued", indent: "", width: 60) == ["one line", "    continued"])
        #expect(CommentTree.body("one line\n    continued and a long tail of words", indent: "", width: 24)
                == ["one line", "    continued and a long", "    tail of words"])
    }

    @Test func aCodeLineTooWideIsBrokenInsideItsBlockNeverCut() {
        let code = "        File \"/usr/lib/python3.4/site-packages/pkg_resources/__init__.py\", line 521"
        let lines = CommentTree.body("Error:\n\n" + code, indent: "  ", width: 40)
        #expect(lines.dropFirst(2).allSatisfy { TerminalWidth.cells(of: $0) <= 40 && $0.hasPrefix("          ") }, "\(lines)")
        #expect(lines[2] == "  " + code.prefix(38))
        // Read back, the pieces are the line, whole.
        #expect(lines[2].dropFirst(2) + lines.dropFirst(3).map { $0.dropFirst(10) }.joined() == code[...])
        // On a pipe it stays one line.
        #expect(CommentTree.body("Error:\n\n" + code, indent: "  ", width: nil) == ["  Error:", "", "  " + code])
    }

    @Test func proseIsCappedAtAReadingWidth() {
        let words = Array(repeating: "word", count: 100).joined(separator: " ")
        // 100 cells with the indentation: 19 words of 4 letters after two spaces (20 would be 101).
        for width in [150, 200, nil] as [Int?] {
            let lines = CommentTree.body(words, indent: "  ", width: width)
            #expect(lines.allSatisfy { TerminalWidth.cells(of: $0) <= 100 })
            #expect(lines.first.map { TerminalWidth.cells(of: $0) } == 96)
        }
        let deep = CommentTree.body(words, indent: String(repeating: " ", count: 14), width: nil)
        #expect(deep.allSatisfy { TerminalWidth.cells(of: $0) <= 100 })
        #expect(CommentTree.body(words, indent: "  ", width: 60).allSatisfy { TerminalWidth.cells(of: $0) <= 60 })
    }

    @Test func linksReadAsTheirTextWithTheURLInANote() {
        let text = "See [the docs](https://example.com/a_(b)) and [https://x.org](https://x.org), not [deleted] or [a] (b)."
        let lines = CommentTree.body(text, indent: "", width: 200)
        #expect(lines == ["See the docs[1] and https://x.org, not [deleted] or [a] (b).", "[1] https://example.com/a_(b)"])
        // A URL wider than the terminal is broken across lines, and whole when read back.
        let long = "https://pip.pypa.io/en/latest/reference/pip_install.html#vcs-support"
        let narrow = CommentTree.body("as [well](\(long)).", indent: "    ", width: 40)
        #expect(narrow.first == "    as well[1].")
        #expect(narrow.allSatisfy { TerminalWidth.cells(of: $0) <= 40 })
        #expect(narrow.dropFirst().map { $0.drop { $0 == " " } }.joined() == "[1] " + long)
    }

    @Test func countsAreSingularForOne() {
        #expect(CommentTree.count(1, "point", "points") == "1 point")
        #expect(CommentTree.count(0, "point", "points") == "0 points")
        #expect(CommentTree.count(2, "point", "points") == "2 points")
        #expect(CommentTree.count(12_400, "point", "points") == "12.4k points")
        #expect(CommentTree.count(1, "comment", "comments") == "1 comment")
    }

    @Test func theMetaLineWrapsBetweenItsParts() throws {
        let comment = try RedditComment.fixture(author: "civilization_phaze_3", score: 1)
        let lines = CommentTree.lines([.comment(comment)], depth: 3, now: comment.createdUTC.addingTimeInterval(7200),
                                      width: 40, style: .plain)
        #expect(Array(lines.prefix(2)) == ["      u/civilization_phaze_3 · 1 point", "      2 h ago"])
        let wide = CommentTree.lines([.comment(comment)], depth: 3, now: comment.createdUTC.addingTimeInterval(7200),
                                     width: 80, style: .plain)
        #expect(wide.first == "      u/civilization_phaze_3 · 1 point · 2 h ago")
    }

    @Test func hostileTextInCodeIsSanitisedButKeepsItsIndentation() {
        let lines = CommentTree.body("x\n\n    a \u{1B}[31mred\u{1B}[0m\u{202E}b\n\tc", indent: "", width: 80)
        #expect(lines == ["x", "", "    a redb", "    c"])
    }
}

extension RedditComment {
    /// A comment with no replies, decoded as Reddit sends one.
    static func fixture(author: String, score: Int, body: String = "text") throws -> RedditComment {
        let json = #"{"id": "c1", "author": "\#(author)", "body": "\#(body)", "score": \#(score), "created_utc": 1700000000, "replies": ""}"#
        return try JSONDecoder().decode(RedditComment.self, from: Data(json.utf8))
    }
}
