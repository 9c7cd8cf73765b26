import Testing
@testable import ReaderKit

/// Text from the network cannot move the cursor, recolour, reverse or break the table.
@Suite struct TerminalTextTests {
    @Test func escapeSequencesAreRemoved() {
        #expect(TerminalText.sanitise("\u{1B}[31mred\u{1B}[0m \u{1B}[2J\u{1B}[Hclear") == "red clear")
        #expect(TerminalText.sanitise("title\u{1B}]0;pwned\u{07}!") == "title!")
        #expect(TerminalText.sanitise("a\u{9B}1Ab") == "ab")
    }

    @Test func bidiOverridesAndInvisibleCharactersAreRemoved() {
        #expect(TerminalText.sanitise("abc\u{202E}fed\u{202C}") == "abcfed")
        #expect(TerminalText.sanitise("in\u{200B}vis\u{2066}i\u{2069}ble\u{FEFF}") == "invisible")
    }

    @Test func aNameIsShownWithItsInvisibleCharactersEscapedNotDropped() {
        #expect(TerminalText.escapingInvisibles("ur\u{202E}l") == #"ur\u{202E}l"#)
        #expect(TerminalText.escapingInvisibles("a\u{1B}[31mb\nc\u{200B}") == #"a\u{1B}[31mb\u{A}c\u{200B}"#)
        #expect(TerminalText.escapingInvisibles("swift 🦅 é") == "swift 🦅 é")
        #expect(TerminalText.escapingInvisibles(String(repeating: "x", count: 10), maxLength: 4) == "xxxx…")
    }

    @Test func lineBreaksAndTabsFoldToOneSpace() {
        #expect(TerminalText.sanitise("one\r\ntwo\n\n\tthree") == "one two three")
        #expect(TerminalText.sanitise("bell\u{07}\u{00}null") == "bellnull")
    }

    @Test func widthCountsTerminalCells() {
        #expect(TerminalText.width("abc") == 3)
        #expect(TerminalText.width("日本") == 4)
        #expect(TerminalText.width("😀") == 2)
        #expect(TerminalText.width("e\u{301}") == 1)
        #expect(TerminalText.width("👍🏽") == 2)
        // Variation selectors as tmux draws them: an emoji form two wide, a stray one nothing.
        #expect(TerminalText.width("❤\u{FE0F}") == 2)
        #expect(TerminalText.width("#\u{FE0F}\u{20E3}") == 2)
        #expect(TerminalText.width(" \u{FE0F}") == 1)
        #expect(TerminalText.width("a\u{FE0F}b") == 2)
        #expect(TerminalText.width(" \u{FE0E}") == 1)
        #expect(TerminalText.width(" \u{E0100}") == 1)
        #expect(TerminalText.width("中\u{FE0F}") == 2)
        #expect(TerminalText.width("\u{FE0F}") == 0)
    }

    @Test func truncationKeepsWithinTheWidthWithAnEllipsis() {
        #expect(TerminalText.truncate("hello world", toWidth: 6) == "hello…")
        #expect(TerminalText.width(TerminalText.truncate("日本語のタイトル", toWidth: 7)) <= 7)
        #expect(TerminalText.truncate("short", toWidth: 10) == "short")
    }

    @Test func lengthIsCapped() {
        #expect(TerminalText.sanitise(String(repeating: "x", count: 100), maxLength: 10) == String(repeating: "x", count: 10) + "…")
    }
}

/// One run never shows the same notice twice; a repeat is counted.
@Suite struct NoticeBoardTests {
    @Test func repeatedNoticesAreShownOnceWithACount() async {
        let board = NoticeBoard()
        let offline = Notice(kind: .staleData, code: ErrorCode(.transport, 1009), message: "offline")
        let cache = Notice(kind: .cache, code: ErrorCode(.cache, 1003), message: "read-only")
        #expect(await board.post(offline))
        for _ in 0..<9 { #expect(await !board.post(offline)) }
        await board.post(cache)
        let drained = await board.drain()
        #expect(drained.map(\.notice) == [offline, cache])
        #expect(drained.map(\.count) == [10, 1])
        #expect(await board.drain().isEmpty)
    }

    @Test func aZeroWidthJoinerIsKeptOnlyInsideAnEmojiSequence() {
        #expect(TerminalText.sanitise("👩\u{200D}💻") == "👩\u{200D}💻")
        #expect(TerminalText.width(TerminalText.sanitise("👩\u{200D}💻")) == 2)
        #expect(TerminalText.sanitise("❤\u{FE0F}\u{200D}🔥") == "❤\u{FE0F}\u{200D}🔥")
        #expect(TerminalText.sanitise("a\u{200D}b") == "ab")
        #expect(TerminalText.sanitise("1\u{200D}2") == "12")
    }

    @Test func htmlEntitiesAreDecodedBeforeSanitising() {
        #expect(TerminalText.decodingHTMLEntities("Q&amp;A &lt;b&gt; &quot;x&quot; it&#39;s &#x27;y&#x27;") == "Q&A <b> \"x\" it's 'y'")
        #expect(TerminalText.decodingHTMLEntities("AT&T & co; &unknown; &#xZZ;") == "AT&T & co; &unknown; &#xZZ;")
        #expect(TerminalText.decodingHTMLEntities("&amp;amp;") == "&amp;")
        // An entity that spells an escape is decoded, then removed with what it introduces.
        #expect(TerminalText.sanitise(TerminalText.decodingHTMLEntities("a&#27;[31mred")) == "ared")
    }

    @Test func paragraphsKeepTheirBreaksAndLoseEverythingElse() {
        let lines = TerminalText.sanitiseParagraphs("first \u{1B}[1mline\r\n\n\n\nsecond\u{202E}\n\n")
        #expect(lines == ["first line", "", "second"])
    }

    @Test func wrappingFitsTheWidthInCells() {
        let lines = TerminalText.wrap("日本語 の タイトル is a title with words", toWidth: 12)
        #expect(lines.allSatisfy { TerminalText.width($0) <= 12 })
        #expect(lines.joined(separator: " ") == "日本語 の タイトル is a title with words")
        #expect(TerminalText.wrap(String(repeating: "x", count: 30), toWidth: 10) == [String(repeating: "x", count: 9) + "…"])
    }
}
