import ReaderTerminal

/// The selected row of a list and the first row on screen, moved by the keys every list shares
/// (`j`/`k`, `g`/`G`, `PgDn`/`PgUp` and their twins): the selection stays in the list and on screen.
struct ListCursor: Sendable, Equatable {
    /// The selected row, from 0.
    private(set) var selected = 0
    /// The first row on screen.
    private(set) var top = 0

    /// Selects row `index`, bounded to `count` rows, scrolling it into a view of `height` rows.
    mutating func select(_ index: Int, count: Int, height: Int) {
        let height = max(1, height)
        selected = max(0, min(index, count - 1))
        if selected < top { top = selected }
        if selected >= top + height { top = selected - height + 1 }
        top = max(0, min(top, count - height))
    }

    /// Moves for a list key; false for any other key.
    mutating func move(_ key: Key, count: Int, height: Int) -> Bool {
        switch key {
        case .character("j"), .down: select(selected + 1, count: count, height: height)
        case .character("k"), .up: select(selected - 1, count: count, height: height)
        case .character("g"), .home: select(0, count: count, height: height)
        case .character("G"), .end: select(count - 1, count: count, height: height)
        case .pageDown, .control("d"): select(selected + max(1, height), count: count, height: height)
        case .pageUp, .control("u"): select(selected - max(1, height), count: count, height: height)
        default: return false
        }
        return true
    }

    /// Draws a table rendered whole (its header first, then a line a row): the header, dim, on
    /// the first row, then the `height` rows from ``top``, the selected one in reverse video.
    func draw(table rendered: String, into grid: inout Grid, height: Int) {
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        grid.draw(lines.first ?? "", x: 0, y: 0, style: CellStyle(dim: true))
        for row in 0..<max(0, min(height, lines.count - 1 - top)) {
            grid.draw(lines[top + row + 1], x: 0, y: row + 1)
            if top + row == selected { grid.setStyle(CellStyle(reverse: true), y: row + 1) }
        }
    }
}
