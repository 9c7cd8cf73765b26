import ReaderTerminal

/// The selected row of a list and the first row on screen, moved by the keys every list shares
/// (`j`/`k`, `g`/`G`, `PgDn`/`PgUp` and their twins): the selection stays in the list and on screen.
struct ListCursor: Sendable, Equatable {
    /// The selected row, from 0.
    private(set) var selected = 0
    /// The first row on screen.
    private(set) var top = 0

    /// Selects row `index`, bounded to `count` rows, scrolling it into a view of `height` rows.
    /// - Parameter trailingRows: rows drawn after the list that cannot be selected (`loading
    ///   more…`), which the view may scroll to.
    mutating func select(_ index: Int, count: Int, height: Int, trailingRows: Int = 0) {
        let height = max(1, height)
        selected = max(0, min(index, count - 1))
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = max(0, min(top, count + trailingRows - height))
        // The last row selected brings what follows the list into view.
        if selected == count - 1 { top = max(top, count + trailingRows - height) }
    }

    /// Moves for a list key; false for any other key.
    mutating func move(_ key: Key, count: Int, height: Int, trailingRows: Int = 0) -> Bool {
        let target: Int
        switch key {
        case .character("j"), .down: target = selected + 1
        case .character("k"), .up: target = selected - 1
        case .character("g"), .home: target = 0
        case .character("G"), .end: target = count - 1
        case .pageDown, .control("d"): target = selected + max(1, height)
        case .pageUp, .control("u"): target = selected - max(1, height)
        default: return false
        }
        select(target, count: count, height: height, trailingRows: trailingRows)
        return true
    }

    /// Draws a table rendered whole (its header first, then a line a row): the header, dim, on
    /// the first row, then the `height` rows from ``top``, the selected one in reverse video.
    func draw(table rendered: String, into grid: inout Grid, height: Int) {
        draw(lines: rendered.split(separator: "\n", omittingEmptySubsequences: false), into: &grid, height: height)
    }

    /// As ``draw(table:into:height:)``, from the table's lines split already (a long table laid
    /// out once, not at every frame).
    func draw(lines: [Substring], into grid: inout Grid, height: Int) {
        grid.draw(lines.first ?? "", x: 0, y: 0, style: CellStyle(dim: true))
        for row in 0..<max(0, min(height, lines.count - 1 - top)) {
            grid.draw(lines[top + row + 1], x: 0, y: row + 1)
            if top + row == selected { grid.setStyle(CellStyle(reverse: true), y: row + 1) }
        }
    }
}
