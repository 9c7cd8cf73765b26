import Foundation
import ReaderKit

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

    /// Whether colour may be used on `descriptor`: it is a terminal, `NO_COLOR` is unset or
    /// empty (no-color.org), `TERM` is not `dumb`, and `--no-color` was not given.
    static func allowsColour(on descriptor: Int32, noColorFlag: Bool,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard !noColorFlag, isatty(descriptor) == 1 else { return false }
        if let value = environment["NO_COLOR"], !value.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }
}

/// SGR styling that is a no-op when colour is off. It only ever wraps text that has already been
/// sanitised and measured, so it cannot be fooled by, or misalign, what came from the network.
struct Style: Sendable {
    var enabled: Bool

    static let plain = Style(enabled: false)

    /// The style for stdout (`descriptor` 1) or stderr (2), per ``Terminal/allowsColour(on:noColorFlag:environment:)``.
    static func forDescriptor(_ descriptor: Int32, noColor: Bool) -> Style {
        Style(enabled: Terminal.allowsColour(on: descriptor, noColorFlag: noColor))
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
