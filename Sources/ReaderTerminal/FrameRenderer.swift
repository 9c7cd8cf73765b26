/// Writes a grid to the terminal: the first frame whole, then only the cells that changed.
///
/// Every row's changes start with the cursor placed (`CUP`), and so does every run of changed
/// cells after more than a few unchanged ones (a shorter gap is written over, as it is), so
/// nothing relies on the terminal's automatic wrap at the last column, and a character whose
/// width the terminal measures otherwise misplaces its own run at most. Styles are set (`SGR`)
/// only when they change within a frame. A frame of another size (a resize) is drawn whole on a cleared screen.
public enum FrameRenderer {
    /// The most unchanged cells written again rather than skipped by placing the cursor
    /// (`ESC [ row ; column H` is 6 bytes or more).
    static let longestGap = 4

    /// The bytes that turn a terminal showing `old` (nil: unknown, as at the start) into one
    /// showing `new`. Empty when nothing changed.
    /// - Parameter colour: false leaves colours out; attributes (reverse, bold) stay.
    public static func bytes(for new: Grid, after old: Grid?, colour: Bool) -> String {
        var output = ""
        let whole = old?.size != new.size
        // A cleared screen is blank cells in the default style: those need no writing.
        if whole { output += "\u{1B}[0m\u{1B}[2J" }
        let blank = Cell.blank()
        var pen: CellStyle?
        for y in 0..<new.size.rows {
            var cursor: Int?
            var x = 0
            while x < new.size.columns {
                let cell = new[x: x, y: y]
                // The right half of a wide character is drawn with its left.
                guard !cell.isContinuation else { x += 1; continue }
                let changed: Bool
                if let old, !whole {
                    // A wide character's right half is its own in every way (``Grid`` keeps it so).
                    changed = old[x: x, y: y] != cell
                } else {
                    changed = cell != blank
                }
                guard changed else { x += 1; continue }
                if let at = cursor, at < x, x - at <= longestGap,
                   (at..<x).allSatisfy({ new[x: $0, y: y].width == 1 && new[x: $0, y: y].style == pen }) {
                    // A few cells that did not change, written again as they are, cost fewer
                    // bytes than placing the cursor past them.
                    for column in at..<x { output += new[x: column, y: y].grapheme }
                } else if cursor != x {
                    output += "\u{1B}[\(y + 1);\(x + 1)H"
                }
                if pen != cell.style {
                    output += cell.style.selectGraphicRendition(colour: colour)
                    pen = cell.style
                }
                output += cell.grapheme
                x += cell.width
                // At the right edge the terminal's cursor waits to wrap: place it again.
                cursor = x < new.size.columns ? x : nil
            }
        }
        if pen != nil, pen != .plain { output += "\u{1B}[0m" }
        return output
    }
}
