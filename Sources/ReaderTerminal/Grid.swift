import ReaderKit

/// What a screen shows: a grid of cells that a view draws text into, and the renderer writes.
///
/// Text gets in only through ``draw(_:x:y:style:maxWidth:)``, which sanitises it by ReaderKit's
/// rules (``TerminalText/sanitise(_:maxLength:)``: control, bidi and zero-width characters and
/// whole escape sequences, payload included, removed), so no cell ever holds a byte the
/// terminal would act on. Widths are ReaderKit's (``TerminalText/width(of:)``): a wide
/// character takes two cells, and is never cut in half — by the edge, or by text drawn over
/// either half.
public struct Grid: Hashable, Sendable {
    /// The most scalars one cell holds: an emoji sequence has up to about ten; more is a
    /// stack of combining marks drawn over other rows, and the first scalar alone is kept.
    static let longestGrapheme = 16

    public let size: TerminalSize
    private var cells: [Cell]

    /// A grid of `size` filled with spaces in `style`.
    public init(size: TerminalSize, style: CellStyle = .plain) {
        self.size = size
        cells = Array(repeating: .blank(style), count: size.columns * size.rows)
    }

    /// The cell at column `x`, row `y` (from 0, top left); a blank one outside the grid.
    public subscript(x x: Int, y y: Int) -> Cell {
        guard contains(x: x, y: y) else { return .blank() }
        return cells[y * size.columns + x]
    }

    /// Draws `text`, sanitised, from column `x` of row `y`, one line, cut at the grid's edge or
    /// after `maxWidth` cells; a wide character that would be cut is a space instead.
    /// - Returns: the number of cells drawn.
    @discardableResult
    public mutating func draw(_ text: some StringProtocol, x: Int, y: Int, style: CellStyle = .plain,
                              maxWidth: Int? = nil) -> Int {
        guard y >= 0, y < size.rows, x >= 0, x < size.columns else { return 0 }
        let room = min(size.columns - x, max(0, maxWidth ?? .max))
        guard room > 0 else { return 0 }
        // Each cell shows at least one scalar kept: more than this can never fit (sanitising
        // stops there, however long the text).
        let shown = TerminalText.sanitise(text, maxLength: room * Self.longestGrapheme)
        var column = x
        for character in shown {
            var grapheme = String(character)
            if character.unicodeScalars.count > Self.longestGrapheme {
                grapheme = String(character.unicodeScalars.first.map(Character.init) ?? " ")
            }
            // A joiner left at the end would join this cell to the next one's emoji on the terminal.
            while grapheme.unicodeScalars.count > 1, grapheme.unicodeScalars.last == "\u{200D}" {
                grapheme.unicodeScalars.removeLast()
            }
            let width = TerminalText.width(of: Character(grapheme))
            guard width > 0 else { continue }
            guard column + width <= x + room else {
                if column < x + room { put(.blank(style), x: column, y: y); column += 1 }
                break
            }
            put(Cell(grapheme: grapheme, width: min(width, 2), style: style), x: column, y: y)
            column += min(width, 2)
        }
        return column - x
    }

    /// Sets the style of `width` cells of row `y` from column `x` (to the edge when nil), keeping
    /// what they show: a selected row is highlighted across the screen. A wide character with
    /// a half in the range is styled whole.
    public mutating func setStyle(_ style: CellStyle, x: Int = 0, y: Int, width: Int? = nil) {
        guard y >= 0, y < size.rows, x < size.columns else { return }
        var start = max(0, x)
        var end = min(size.columns, width.map { x + max(0, min($0, size.columns)) } ?? size.columns)
        guard start < end else { return }
        if self[x: start, y: y].isContinuation { start -= 1 }
        if self[x: end - 1, y: y].width == 2 { end += 1 }
        for column in start..<end { cells[y * size.columns + column].style = style }
    }

    /// Fills the whole grid with spaces in `style`.
    public mutating func clear(_ style: CellStyle = .plain) {
        cells = Array(repeating: .blank(style), count: cells.count)
    }

    /// Fills row `y` with spaces in `style`: what is drawn over part of a row leaves nothing of
    /// what was there.
    public mutating func clear(row y: Int, style: CellStyle = .plain) {
        guard y >= 0, y < size.rows else { return }
        for x in 0..<size.columns { cells[y * size.columns + x] = .blank(style) }
    }

    /// Row `y` as text, its trailing spaces left out: what a test compares.
    public func text(ofRow y: Int) -> String {
        var line = ""
        for x in 0..<size.columns { line += self[x: x, y: y].grapheme }
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }

    /// Every row as text, one a line: the screen as a person reads it.
    public var text: String {
        (0..<size.rows).map(text(ofRow:)).joined(separator: "\n")
    }

    private func contains(x: Int, y: Int) -> Bool {
        x >= 0 && y >= 0 && x < size.columns && y < size.rows
    }

    /// Puts `cell` (width 1 or 2, fitting) at `x`, `y`: a wide character it overwrites half of
    /// becomes a space, and a wide one takes the next cell as its continuation.
    private mutating func put(_ cell: Cell, x: Int, y: Int) {
        breakWideCharacter(at: x, y: y)
        if cell.width == 2 { breakWideCharacter(at: x + 1, y: y) }
        cells[y * size.columns + x] = cell
        if cell.width == 2 { cells[y * size.columns + x + 1] = .continuation(cell.style) }
    }

    /// Blanks the wide character that has a half at `x`, `y`, if any.
    private mutating func breakWideCharacter(at x: Int, y: Int) {
        let index = y * size.columns + x
        if cells[index].isContinuation, x > 0 {
            cells[index - 1] = .blank(cells[index - 1].style)
            cells[index] = .blank(cells[index].style)
        } else if cells[index].width == 2, x + 1 < size.columns {
            cells[index] = .blank(cells[index].style)
            cells[index + 1] = .blank(cells[index + 1].style)
        }
    }
}
