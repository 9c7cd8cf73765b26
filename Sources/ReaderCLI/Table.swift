import Foundation
import ReaderKit

/// An aligned table sized to the terminal: the flexible column takes what the others leave.
struct Table {
    struct Column {
        var title: String
        var alignRight = false
        /// The column that shrinks (with an ellipsis) when the terminal is narrow.
        var flexible = false
    }

    var columns: [Column]
    var rows: [[String]]

    /// Renders with every cell sanitised; `width` nil means no limit (output to a pipe).
    func render(width: Int?) -> String {
        let cells = rows.map { $0.map { TerminalText.sanitise($0, maxLength: 1000) } }
        var widths = columns.indices.map { index in
            max(TerminalText.width(columns[index].title), cells.map { TerminalText.width($0[index]) }.max() ?? 0)
        }
        if let width, let flexible = columns.firstIndex(where: \.flexible) {
            let others = widths.enumerated().filter { $0.offset != flexible }.map(\.element).reduce(0, +)
            let spacing = 2 * (columns.count - 1)
            widths[flexible] = max(10, min(widths[flexible], width - others - spacing))
        }
        func line(_ values: [String]) -> String {
            var text = values.indices.map { index -> String in
                let cell = TerminalText.truncate(values[index], toWidth: widths[index])
                let padding = String(repeating: " ", count: max(0, widths[index] - TerminalText.width(cell)))
                return columns[index].alignRight ? padding + cell : cell + padding
            }.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        return ([line(columns.map(\.title))] + cells.map(line)).joined(separator: "\n")
    }
}

/// Facts about the terminal that decide how output looks.
enum Terminal {
    /// The width to fit: the terminal's when stdout is one, else `$COLUMNS`, else no limit.
    static func outputWidth(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int? {
        if isatty(STDOUT_FILENO) == 1 {
            var size = winsize()
            if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return isatty(STDOUT_FILENO) == 1 ? 80 : nil
    }
}
