import PropertyBased
import Testing
@testable import ReaderTerminal

/// The grid: text drawn sanitised and measured, wide characters whole, nothing past the edge.
/// PropertyBased prints the seed of a failing run; `.fixedSeed(…)` replays it.
@Suite struct GridTests {
    @Test func textIsDrawnFromItsColumnAndCutAtTheEdgeOrItsWidth() {
        var grid = Grid(size: TerminalSize(columns: 10, rows: 2))
        #expect(grid.draw("hello world", x: 2, y: 0) == 8)
        #expect(grid.draw("abcdef", x: 0, y: 1, maxWidth: 3) == 3)
        #expect(grid.text == "  hello wo\nabc")
        // Outside the grid: nothing, and no trap.
        #expect(grid.draw("x", x: 10, y: 0) == 0)
        #expect(grid.draw("x", x: -1, y: 0) == 0)
        #expect(grid.draw("x", x: 0, y: 2) == 0)
    }

    @Test func aWideCharacterTakesTwoCellsAndIsNeverCutInHalf() {
        var grid = Grid(size: TerminalSize(columns: 5, rows: 1))
        #expect(grid.draw("中文字", x: 0, y: 0) == 5)
        #expect(grid[x: 0, y: 0].grapheme == "中" && grid[x: 0, y: 0].width == 2)
        #expect(grid[x: 1, y: 0].isContinuation)
        // The third would be cut by the edge: a space stands there.
        #expect(grid.text == "中文")
        #expect(grid[x: 4, y: 0] == .blank())
        // Drawing over either half blanks the other.
        grid.draw("a", x: 1, y: 0)
        #expect(grid.text == " a文")
        grid.draw("b", x: 2, y: 0)
        #expect(grid.text == " ab")
        #expect(grid[x: 3, y: 0] == .blank())
    }

    @Test func serverTextReachesNoCellUnsanitised() {
        var grid = Grid(size: TerminalSize(columns: 20, rows: 1))
        // An OSC 8 link with its payload, a colour, a bidi override, a zero-width space, a BEL,
        // a C1 CSI, a line break.
        grid.draw("a\u{1B}]8;;http://evil.example/\u{07}b\u{1B}[31mc\u{202E}d\u{200B}e\u{07}f\u{9B}2Jg\nh", x: 0, y: 0)
        #expect(grid.text == "abcdefg h")
    }

    @Test func aStyleCanBeSetAcrossARowKeepingItsText() {
        var grid = Grid(size: TerminalSize(columns: 4, rows: 1))
        grid.draw("ab", x: 0, y: 0)
        grid.setStyle(CellStyle(reverse: true), y: 0)
        #expect(grid.text == "ab")
        #expect((0..<4).allSatisfy { grid[x: $0, y: 0].style == CellStyle(reverse: true) })
    }

    @Test func aSizeIsBounded() {
        #expect(TerminalSize(columns: 65_535, rows: -3) == TerminalSize(columns: 1000, rows: 0))
    }

    /// Text as a server might send it: wide, combining, emoji, controls, escapes, bidi.
    static let hostileText = Gen<UInt8>.uint8().map { (value: UInt8) -> String in
        let pieces = ["a", "Z", " ", "中", "😀", "e\u{301}", "\u{301}", "👩\u{200D}💻", "\u{1B}[2J", "\u{1B}]0;title\u{07}",
                      "\u{1B}", "\u{9B}", "\u{202E}", "\u{2066}", "\u{200B}", "\u{FEFF}", "\u{07}", "\n", "\t", "\u{7F}",
                      "\u{85}", "\u{E0041}", "\u{FE0F}", "ｗ", "\u{200D}"]
        return pieces[Int(value) % pieces.count]
    }.array(of: 0...40).map { $0.joined() }

    @Test func anyTextLeavesOnlyVisibleScalarsAndWholeWideCharactersWithinTheRow() async {
        await propertyCheck(count: 2000, input: Self.hostileText, Gen.int(in: 0...12)) { text, x in
            var grid = Grid(size: TerminalSize(columns: 12, rows: 1))
            grid.draw(text, x: x, y: 0)
            for column in 0..<12 {
                let cell = grid[x: column, y: 0]
                for scalar in cell.grapheme.unicodeScalars {
                    let value = scalar.value
                    #expect(!(value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                              || (0x2066...0x2069).contains(value) || (0x200B...0x200C).contains(value) || value == 0xFEFF
                              || (0xE0000...0xE007F).contains(value)), "\(text.debugDescription) → \(cell.grapheme.debugDescription)")
                }
                if cell.width == 2 { #expect(column + 1 < 12 && grid[x: column + 1, y: 0].isContinuation) }
                if cell.isContinuation { #expect(column > 0 && grid[x: column - 1, y: 0].width == 2) }
            }
        }
    }
}

extension GridTests {
    @Test func aStyleOverHalfAWideCharacterStylesItWhole() {
        var grid = Grid(size: TerminalSize(columns: 6, rows: 1))
        grid.draw("a中文", x: 0, y: 0)
        grid.setStyle(CellStyle(bold: true), x: 2, y: 0, width: 2)
        #expect((0..<6).map { grid[x: $0, y: 0].style.bold } == [false, true, true, true, true, false])
    }
}
