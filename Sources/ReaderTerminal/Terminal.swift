import Foundation
import ReaderKit

/// Facts about the terminal that decide how output looks. The environment is the caller's
/// (the app reads the process's once): every question that reads it takes it.
package enum Terminal {
    /// The widest terminal laid out as such; anything wider (a `$COLUMNS` of a million) is this.
    package static let widest = 10_000

    /// The width to fit stdout to: the terminal's when stdout is one, else `$COLUMNS` when the
    /// user set it, else nil: no limit, so that piped output is whole.
    package static func outputWidth(environment: [String: String]) -> Int? {
        width(of: STDOUT_FILENO, environment: environment)
    }

    /// The width to fit messages on stderr to, in the same way as ``outputWidth(environment:)``.
    package static func errorWidth(environment: [String: String]) -> Int? {
        width(of: STDERR_FILENO, environment: environment)
    }

    /// The width of the terminal on `descriptor`, else `$COLUMNS`, else nil; bounded to
    /// 1…``widest``, as `$COLUMNS` is anyone's to set.
    package static func width(of descriptor: Int32, environment: [String: String]) -> Int? {
        let isTerminal = isatty(descriptor) == 1
        if isTerminal {
            var size = winsize()
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return min(Int(size.ws_col), widest) }
        }
        if let columns = environment["COLUMNS"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), columns > 0 {
            return min(columns, widest)
        }
        return isTerminal ? 80 : nil
    }

    /// `message` wrapped at spaces to `width` cells (nil: left whole), each line after the first
    /// indented by `hangingIndent` spaces; a word wider than a line is broken, never cut. A
    /// command in quotes (`'reader sync swapi'`) and an option with its value (`--page 4`) are
    /// kept on one line where they fit, so that what is copied is whole. A width under 10 cells
    /// is taken as 10.
    package static func wrapMessage(_ message: String, width: Int?, hangingIndent: Int = 0) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map { paragraph -> String in
            guard let width, TerminalText.width(paragraph) > width else { return String(paragraph) }
            let indent = min(max(0, hangingIndent), width / 2)
            // Every line fits under the indent, so the first (not indented) fits as well.
            let room = max(10, width - indent)
            let lines = TerminalText.wrap(bindingUnits(String(paragraph), room: room), toWidth: room, breakingLongWords: true)
                .map { $0.replacingOccurrences(of: unitSpace, with: " ") }
            return lines.enumerated().map { $0 == 0 ? $1 : String(repeating: " ", count: indent) + $1 }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Stands for a space that wrapping must not break at: one cell wide, like the space it
    /// replaces (a no-break space in the message itself becomes a plain space, which shows the same).
    private static let unitSpace = "\u{A0}"

    /// `text` with the spaces inside a quoted command or between an option and its value
    /// replaced by ``unitSpace``, where the unit fits in `room`.
    private static func bindingUnits(_ text: String, room: Int) -> String {
        let words = text.split(separator: " ").map(String.init)
        var units: [String] = []
        var index = 0
        while index < words.count {
            var end = index
            if words[index].hasPrefix("'"), !words[index].dropFirst().contains("'") {
                // Up to the word that closes the quote.
                while end + 1 < words.count, !words[end].dropFirst(end == index ? 1 : 0).contains("'") { end += 1 }
            } else if words[index].hasPrefix("--"), !words[index].hasSuffix(","), index + 1 < words.count,
                      !words[index + 1].hasPrefix("-") {
                end = index + 1
            }
            let unit = words[index...end].joined(separator: " ")
            if end > index, TerminalText.width(unit) <= room {
                units.append(words[index...end].joined(separator: unitSpace))
                index = end + 1
            } else {
                units.append(words[index])
                index += 1
            }
        }
        return units.joined(separator: " ")
    }

    /// Whether colour may be used on `descriptor`: it is a terminal, `NO_COLOR` is unset or
    /// empty (no-color.org), `TERM` is not `dumb`, and `--no-color` was not given.
    /// `noColorFlag` is asked only for a terminal: it may read the config file; so is `environment`.
    package static func allowsColour(on descriptor: Int32, noColorFlag: @autoclosure () -> Bool,
                                     environment: @autoclosure () -> [String: String]) -> Bool {
        guard isatty(descriptor) == 1, !noColorFlag() else { return false }
        let environment = environment()
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}
