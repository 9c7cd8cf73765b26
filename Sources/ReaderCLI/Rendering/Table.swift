import Foundation
import ReaderKit
import ReaderTerminal

/// An aligned table sized to the terminal.
///
/// On a terminal no line is wider than the width it is given. Columns give way in this order
/// (the README's "What it looks like" says the same):
/// 1. the flexible column (a title) shrinks, down to ``Table/flexibleMinimum(width:)``: 20 cells,
///    or two fifths of a wide terminal;
/// 2. the columns with a ``Column/minimumWidth`` shrink to it, their cells ending with `…`;
/// 3. the columns with a ``Column/dropOrder`` are left out, lowest first, until the rest fit;
/// 4. only when even that is too wide (a terminal narrower than about 40 cells) does the
///    flexible column go below its minimum, then the widest others.
/// Room left over goes back to the shrunk columns first, up to their whole width, then to the
/// flexible one. Without a width (output to a pipe or a file) every value is whole.
package struct Table {
    package struct Column {
        var title: String
        var alignRight = false
        /// The column that takes the room the others leave (the title); it shrinks first.
        var flexible = false
        /// The most cells the column takes on a terminal, so that a long name cannot squeeze the
        /// flexible column (a title) to nothing; longer cells end with an ellipsis.
        var maximumWidth: Int?
        /// How far the column may shrink when the flexible one would otherwise go below its
        /// minimum; nil: it never shrinks.
        var minimumWidth: Int?
        /// When the column is left out on a narrow terminal: 1 first; nil: never.
        var dropOrder: Int?
        /// Whether a cell too long for the column wraps onto more lines instead of being cut:
        /// for messages, which are never cut.
        var wraps = false
    }

    /// Which columns are shown, and how wide each is.
    struct Layout: Equatable {
        /// Indices into ``Table/columns``, in order.
        var shown: [Int]
        /// The width of every column, by index into ``Table/columns``; 0 for one not shown.
        var widths: [Int]

        /// The cells a line takes: the shown columns and two spaces between each.
        var totalWidth: Int { shown.map { widths[$0] }.reduce(0, +) + 2 * max(0, shown.count - 1) }
    }

    var columns: [Column]
    var rows: [[String]]

    /// The fewest cells the flexible column keeps before other columns give way: 20, or two
    /// fifths of a wide terminal, so that a title stays readable.
    static func flexibleMinimum(width: Int) -> Int { max(20, width / 5 * 2) }

    /// The cells as they are drawn: sanitised, on one line.
    private var cells: [[String]] {
        rows.map { row in columns.indices.map { index in index < row.count ? TerminalText.sanitise(row[index], maxLength: 1000) : "" } }
    }

    /// The columns to show and their widths for a terminal `width` cells wide; nil: no limit.
    func layout(width: Int?) -> Layout {
        layout(width: width, cells: cells)
    }

    private func layout(width: Int?, cells: [[String]]) -> Layout {
        var natural = columns.indices.map { index in
            max(TerminalText.width(columns[index].title), cells.map { TerminalText.width($0[index]) }.max() ?? 0)
        }
        guard let given = width else { return Layout(shown: Array(columns.indices), widths: natural) }
        let width = min(max(1, given), Terminal.widest)
        for (index, column) in columns.enumerated() {
            if let maximum = column.maximumWidth { natural[index] = min(natural[index], max(maximum, TerminalText.width(column.title))) }
        }
        // The least each column takes before anything is left out (steps 1 and 2).
        let floors = columns.indices.map { index -> Int in
            let column = columns[index]
            if column.flexible { return min(natural[index], Self.flexibleMinimum(width: width)) }
            return min(natural[index], max(1, column.minimumWidth ?? natural[index]))
        }
        var shown = Array(columns.indices)
        func spacing() -> Int { 2 * max(0, shown.count - 1) }
        // Step 3: leave out columns, lowest drop order first, until the floors fit.
        let droppable = columns.indices.filter { columns[$0].dropOrder != nil }
            .sorted { (columns[$0].dropOrder ?? 0, $0) < (columns[$1].dropOrder ?? 0, $1) }
        for index in droppable where shown.map({ floors[$0] }).reduce(0, +) + spacing() > width {
            shown.removeAll { $0 == index }
        }
        var widths = columns.indices.map { shown.contains($0) ? floors[$0] : 0 }
        var room = width - spacing() - shown.map { widths[$0] }.reduce(0, +)
        if room >= 0 {
            // Room left over: shrunk columns first, in the order they are kept longest, then the flexible one.
            let regaining = shown.filter { !columns[$0].flexible }
                .sorted { (columns[$0].dropOrder ?? Int.max, $0) > (columns[$1].dropOrder ?? Int.max, $1) }
            for index in regaining + shown.filter({ columns[$0].flexible }) {
                let more = min(room, natural[index] - widths[index])
                widths[index] += more
                room -= more
            }
        } else {
            // Step 4: narrower than the floors: the flexible column, then the widest, a cell at a time.
            var excess = -room
            for index in shown where columns[index].flexible {
                let less = min(excess, max(0, widths[index] - 1))
                widths[index] -= less
                excess -= less
            }
            while excess > 0, let widest = shown.max(by: { widths[$0] < widths[$1] }), widths[widest] > 1 {
                widths[widest] -= 1
                excess -= 1
            }
        }
        return Layout(shown: shown, widths: widths)
    }

    /// Renders with every cell sanitised; `width` nil means no limit (output to a pipe). Styles
    /// are applied after the cells are measured and padded, so colour never moves a column.
    /// `cellStyle` is given the column's index in ``columns`` (whether or not others are shown).
    package func render(width: Int?, style: Style = .plain, cellStyle: (Int, String) -> String = { $1 }) -> String {
        let cells = self.cells
        let layout = layout(width: width, cells: cells)
        let last = layout.shown.last
        func lines(_ values: [String], styled: (Int, String) -> String) -> [String] {
            // Each shown column's text, a line apiece: wrapped where the column wraps, else cut.
            let parts = layout.shown.map { index -> [String] in
                let cellWidth = layout.widths[index]
                guard width != nil else { return [values[index]] }
                if columns[index].wraps, TerminalText.width(values[index]) > cellWidth {
                    return cellWidth >= 10
                        ? TerminalText.wrap(values[index], toWidth: cellWidth, breakingLongWords: true)
                        : TerminalText.chunks(values[index], ofWidth: cellWidth)
                }
                return [TerminalText.truncate(values[index], toWidth: cellWidth)]
            }
            let height = parts.map(\.count).max() ?? 1
            return (0..<height).map { row in
                var line = ""
                for (position, index) in layout.shown.enumerated() {
                    let cell = row < parts[position].count ? parts[position][row] : ""
                    if position > 0 { line += "  " }
                    let padding = String(repeating: " ", count: max(0, layout.widths[index] - TerminalText.width(cell)))
                    let shown = cell.isEmpty ? cell : styled(index, cell)
                    // No padding after the last cell: lines end without trailing spaces.
                    line += columns[index].alignRight ? padding + shown : shown + (index == last ? "" : padding)
                }
                while line.hasSuffix(" ") { line.removeLast() }
                return line
            }
        }
        let header = lines(columns.map(\.title)) { style.bold($1) }
        return (header + cells.flatMap { lines($0) { cellStyle($0, $1) } }).joined(separator: "\n")
    }
}
