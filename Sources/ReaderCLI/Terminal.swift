import Foundation
import ReaderKit

/// The process's environment, read once: Foundation builds the whole dictionary on every read of
/// `ProcessInfo.processInfo.environment`.
enum ProcessEnvironment {
    static let current: [String: String] = ProcessInfo.processInfo.environment
}

/// Facts about the terminal that decide how output looks.
enum Terminal {
    /// The width to fit stdout to: the terminal's when stdout is one, else `$COLUMNS` when the
    /// user set it, else nil: no limit, so that piped output is whole.
    static func outputWidth(environment: [String: String] = ProcessEnvironment.current) -> Int? {
        width(of: STDOUT_FILENO, environment: environment)
    }

    /// The width to fit messages on stderr to, in the same way as ``outputWidth(environment:)``.
    static func errorWidth(environment: [String: String] = ProcessEnvironment.current) -> Int? {
        width(of: STDERR_FILENO, environment: environment)
    }

    /// The width of the terminal on `descriptor`, else `$COLUMNS`, else nil; bounded to
    /// 1…``Table/widestTerminal``, as `$COLUMNS` is anyone's to set.
    static func width(of descriptor: Int32, environment: [String: String]) -> Int? {
        let isTerminal = isatty(descriptor) == 1
        if isTerminal {
            var size = winsize()
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return min(Int(size.ws_col), Table.widestTerminal) }
        }
        if let columns = environment["COLUMNS"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), columns > 0 {
            return min(columns, Table.widestTerminal)
        }
        return isTerminal ? 80 : nil
    }

    /// `message` wrapped at spaces to `width` cells (nil: left whole), each line after the first
    /// indented by `hangingIndent` spaces; a word wider than a line is broken, never cut. A
    /// command in quotes (`'reader sync swapi'`) and an option with its value (`--page 4`) are
    /// kept on one line where they fit, so that what is copied is whole. A width under 10 cells
    /// is taken as 10.
    static func wrapMessage(_ message: String, width: Int?, hangingIndent: Int = 0) -> String {
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
    /// `noColorFlag` is asked only for a terminal: it may read the config file.
    static func allowsColour(on descriptor: Int32, noColorFlag: @autoclosure () -> Bool,
                             environment: @autoclosure () -> [String: String] = ProcessEnvironment.current) -> Bool {
        guard isatty(descriptor) == 1, !noColorFlag() else { return false }
        let environment = environment()
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}

/// SGR styling that is a no-op when colour is off. It only ever wraps text that has already been
/// sanitised and measured, so it cannot be fooled by, or misalign, what came from the network.
struct Style: Sendable {
    var enabled: Bool

    static let plain = Style(enabled: false)

    /// The style for stdout (`descriptor` 1) or stderr (2), per ``Terminal/allowsColour(on:noColorFlag:environment:)``;
    /// `noColor` is asked only for a terminal.
    static func forDescriptor(_ descriptor: Int32, noColor: @autoclosure () -> Bool) -> Style {
        Style(enabled: Terminal.allowsColour(on: descriptor, noColorFlag: noColor()))
    }

    func bold(_ text: String) -> String { wrap(text, "1") }
    func dim(_ text: String) -> String { wrap(text, "2") }
    func red(_ text: String) -> String { wrap(text, "31") }
    func green(_ text: String) -> String { wrap(text, "32") }
    func yellow(_ text: String) -> String { wrap(text, "33") }
    func cyan(_ text: String) -> String { wrap(text, "36") }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled && !text.isEmpty ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// One line of progress on stderr, redrawn in place, for work of more than a moment. It writes
/// nothing unless stderr is a terminal, so scripts and logs never see it.
final class ProgressLine: @unchecked Sendable {
    private let label: String
    private let enabled: Bool
    private let lock = NSLock()
    private var lastDrawn = ContinuousClock.now.advanced(by: .seconds(-1))
    private var drawn = false

    /// - Parameter label: what is being done, such as `fetching people`.
    init(_ label: String, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label
        self.enabled = enabled
    }

    /// Redraws the line, at most about 20 times a second, and always for the last step.
    func update(_ progress: LoadProgress) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = ContinuousClock.now
        guard progress.completed >= progress.total || lastDrawn.duration(to: now) >= .milliseconds(50) else { return }
        lastDrawn = now
        drawn = true
        let total = max(progress.total, progress.completed)
        // Work in phases names the phase: `syncing swapi, resources: 12/252`.
        let what = progress.phase.map { "\(label) \($0)" } ?? label
        write("\r\u{1B}[K\(what): \(progress.completed)/\(total)")
    }

    /// Clears the line, so that what follows starts on a clean one.
    func finish() {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        if drawn { write("\r\u{1B}[K") }
        drawn = false
    }

    var handler: ProgressHandler { { [self] in update($0) } }

    private func write(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
