import Foundation
import ReaderKit

/// An aligned table sized to the terminal: the flexible column takes what the others leave.
struct Table {
    struct Column {
        var title: String
        var alignRight = false
        /// The column that shrinks (with an ellipsis) when the terminal is narrow.
        var flexible = false
        /// The most cells the column takes on a terminal, so that a long name cannot squeeze the
        /// flexible column (a title) to nothing; longer cells end with an ellipsis.
        var maximumWidth: Int?
    }

    var columns: [Column]
    var rows: [[String]]

    /// Renders with every cell sanitised; `width` nil means no limit (output to a pipe). Styles
    /// are applied after the cells are measured and padded, so colour never moves a column.
    func render(width: Int?, style: Style = .plain, cellStyle: (Int, String) -> String = { $1 }) -> String {
        let cells = rows.map { $0.map { TerminalText.sanitise($0, maxLength: 1000) } }
        var widths = columns.indices.map { index in
            max(TerminalText.width(columns[index].title), cells.map { TerminalText.width($0[index]) }.max() ?? 0)
        }
        if width != nil {
            for (index, column) in columns.enumerated() {
                if let maximum = column.maximumWidth { widths[index] = min(widths[index], max(maximum, TerminalText.width(column.title))) }
            }
        }
        if let width, let flexible = columns.firstIndex(where: \.flexible) {
            let others = widths.enumerated().filter { $0.offset != flexible }.map(\.element).reduce(0, +)
            let spacing = 2 * (columns.count - 1)
            widths[flexible] = max(10, min(widths[flexible], width - others - spacing))
        }
        func line(_ values: [String], styled: (Int, String) -> String) -> String {
            let last = values.count - 1
            return values.indices.map { index -> String in
                let cell = TerminalText.truncate(values[index], toWidth: widths[index])
                // No padding after the last cell: lines end without trailing spaces.
                let padding = String(repeating: " ", count: index == last && !columns[index].alignRight
                                     ? 0 : max(0, widths[index] - TerminalText.width(cell)))
                let shown = cell.isEmpty ? cell : styled(index, cell)
                return columns[index].alignRight ? padding + shown : shown + padding
            }.joined(separator: "  ")
        }
        let header = line(columns.map(\.title)) { style.bold($1) }
        return ([header] + cells.map { line($0) { cellStyle($0, $1) } }).joined(separator: "\n")
    }
}
