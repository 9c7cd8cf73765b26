import PropertyBased
import Testing
@testable import ReaderTerminal

/// The renderer: the bytes of a frame, written out; and, over any two frames, that its diff
/// turns a screen showing the first into one showing the second.
/// PropertyBased prints the seed of a failing run; `.fixedSeed(…)` replays it.
@Suite struct FrameRendererTests {
    private let reverse = CellStyle(reverse: true)

    @Test func oneChangedCellIsOnePlacedCharacter() {
        var old = Grid(size: TerminalSize(columns: 10, rows: 3))
        old.draw("hello", x: 0, y: 1)
        var new = old
        new.draw("a", x: 1, y: 1)
        #expect(FrameRenderer.bytes(for: new, after: old, colour: true) == "\u{1B}[2;2H\u{1B}[0ma")
        #expect(FrameRenderer.bytes(for: new, after: new, colour: true) == "")
    }

    @Test func theFirstFrameIsDrawnWholeOnAClearedScreenWithoutItsBlanks() {
        var grid = Grid(size: TerminalSize(columns: 5, rows: 2))
        grid.draw("ab", x: 0, y: 0)
        grid.draw("c", x: 1, y: 1, style: CellStyle(bold: true, foreground: .red))
        #expect(FrameRenderer.bytes(for: grid, after: nil, colour: true)
                == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mab\u{1B}[2;2H\u{1B}[0;1;31mc\u{1B}[0m")
        // Without colour, the attributes stay.
        #expect(FrameRenderer.bytes(for: grid, after: nil, colour: false)
                == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mab\u{1B}[2;2H\u{1B}[0;1mc\u{1B}[0m")
    }

    @Test func aResizeRedrawsWhole() {
        var old = Grid(size: TerminalSize(columns: 5, rows: 2))
        old.draw("ab", x: 0, y: 0)
        var new = Grid(size: TerminalSize(columns: 4, rows: 2))
        new.draw("ab", x: 0, y: 0)
        #expect(FrameRenderer.bytes(for: new, after: old, colour: true) == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1H\u{1B}[0mab")
    }

    @Test func theCursorIsPlacedAgainAfterTheLastColumnAndStylesChangeOnlyWhenTheyDo() {
        let old = Grid(size: TerminalSize(columns: 3, rows: 2))
        var new = old
        new.draw("xyz", x: 0, y: 0)
        new.draw("q", x: 0, y: 1)
        new.setStyle(reverse, y: 1)
        #expect(FrameRenderer.bytes(for: new, after: old, colour: true)
                == "\u{1B}[1;1H\u{1B}[0mxyz\u{1B}[2;1H\u{1B}[0;7mq  \u{1B}[0m")
    }

    @Test func aWideCharacterIsWrittenWholeWhenEitherHalfChanged() {
        var old = Grid(size: TerminalSize(columns: 4, rows: 1))
        old.draw("ab中", x: 0, y: 0)
        var new = old
        new.draw("文", x: 2, y: 0)
        #expect(FrameRenderer.bytes(for: new, after: old, colour: true) == "\u{1B}[1;3H\u{1B}[0m文")
        var narrow = old
        narrow.draw("c", x: 3, y: 0)
        #expect(FrameRenderer.bytes(for: narrow, after: old, colour: true) == "\u{1B}[1;3H\u{1B}[0m c")
    }

    /// A frame drawn by a few random strokes, from a few graphemes and styles; a stroke without
    /// text restyles `width` cells.
    static let strokes = Gen<UInt32>.uint32().map { (value: UInt32) -> (text: String?, x: Int, y: Int, style: CellStyle, width: Int) in
        let texts = ["a", "bc", "中", "😀x", "e\u{301}", " ", "文字", "zz"]
        let styles = [CellStyle.plain, CellStyle(reverse: true), CellStyle(bold: true, foreground: .cyan), CellStyle(dim: true)]
        return ((value >> 11) % 4 == 0 ? nil : texts[Int(value % 8)], Int((value >> 3) % 7), Int((value >> 6) % 3),
                styles[Int((value >> 9) % 4)], Int((value >> 13) % 4))
    }.array(of: 0...20)

    private static func grid(_ strokes: [(text: String?, x: Int, y: Int, style: CellStyle, width: Int)], on base: Grid) -> Grid {
        var grid = base
        for stroke in strokes {
            if let text = stroke.text {
                grid.draw(text, x: stroke.x, y: stroke.y, style: stroke.style)
            } else {
                grid.setStyle(stroke.style, x: stroke.x, y: stroke.y, width: stroke.width)
            }
        }
        return grid
    }

    @Test func applyingTheDiffToTheOldFrameShowsTheNewOne() async {
        await propertyCheck(count: 2000, input: Self.strokes, Self.strokes, Gen.bool()) { first, second, resized in
            let old = Self.grid(first, on: Grid(size: TerminalSize(columns: 6, rows: 3)))
            let new = Self.grid(second, on: resized ? Grid(size: TerminalSize(columns: 7, rows: 3)) : old)
            var screen = ScreenEmulator(size: old.size)
            screen.apply(FrameRenderer.bytes(for: old, after: nil, colour: true))
            #expect(screen.cells == ScreenEmulator.shown(old))
            if resized { screen = ScreenEmulator(size: new.size) }
            screen.apply(FrameRenderer.bytes(for: new, after: old, colour: true))
            #expect(screen.cells == ScreenEmulator.shown(new), "\(first) then \(second)")
        }
    }
}

extension FrameRendererTests {
    @Test func aShortGapOfUnchangedCellsIsWrittenOverAndALongOneSkipped() {
        var old = Grid(size: TerminalSize(columns: 20, rows: 1))
        old.draw("abcdefghijklmnop", x: 0, y: 0)
        var new = old
        new.draw("X", x: 0, y: 0)
        new.draw("Y", x: 3, y: 0)
        new.draw("Z", x: 15, y: 0)
        #expect(FrameRenderer.bytes(for: new, after: old, colour: true) == "\u{1B}[1;1H\u{1B}[0mXbcY\u{1B}[1;16HZ")
        // Not over cells of another style than the one set.
        var styled = old
        styled.draw("X", x: 0, y: 0)
        styled.setStyle(CellStyle(bold: true), x: 1, y: 0, width: 1)
        styled.draw("Y", x: 3, y: 0)
        #expect(FrameRenderer.bytes(for: styled, after: old, colour: true)
                == "\u{1B}[1;1H\u{1B}[0mX\u{1B}[0;1mb\u{1B}[1;4H\u{1B}[0mY")
    }
}
