import Foundation
import ReaderKit
import ReaderTerminal

/// Writes data to stdout and messages to stderr, as text for people or JSON for scripts.
struct Output {
    var json: Bool
    var verbose = false
    /// Colour for stderr's labels; plain unless stderr is a terminal that takes colour.
    var errorStyle = Style.plain

    /// Renders a failure: `error CODE: message` with its hint, or one JSON object on stderr,
    /// in `wording`.
    /// - Parameter hints: what to do next when the situation is known (``LoadFailure/hints``);
    ///   the error's own, which claim nothing about the situation, otherwise.
    func error(_ error: ReaderError, decision: Decision, hints: [Hint]? = nil, wording: CLIWording, usage: String = "") {
        let hint = wording.text(of: hints ?? error.hints())
        let message = wording.message(of: error)
        if json {
            var object: [String: JSONValue] = [
                "code": .string(error.code.description),
                "domain": .string(error.code.domain.rawValue),
                "decision": .string(decision.name),
                "message": .string(message),
                "hint": .string(hint),
                "exit_code": .integer(Int64(error.exitCode.rawValue)),
            ]
            object["reason"] = error.reason.map(JSONValue.string) ?? .null
            if verbose { object["detail"] = .string(error.technicalDetail) }
            try? writeJSON(JSONValue.object(["error": .object(object)]), to: .standardError)
            return
        }
        let width = Terminal.errorWidth()
        var lines = [labelled("error \(error.code)", message, width: width, colour: errorStyle.red),
                     Terminal.wrapMessage("  hint: \(hint)", width: width, hangingIndent: 8)]
        if verbose {
            lines.append(Terminal.wrapMessage("  detail: \(TerminalText.sanitise(error.technicalDetail, maxLength: 2000))",
                                              width: width, hangingIndent: 10))
        }
        if !usage.isEmpty { lines.append(""); lines.append(usage.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try? writeLine(lines.joined(separator: "\n"), to: .standardError)
    }

    /// Renders the notices of a run, each once, with a count when it recurred.
    func notices(_ notices: [(notice: Notice, count: Int)]) {
        for (notice, count) in notices where notice.kind != .waiting {
            self.notice(notice, count: count)
        }
    }

    /// Renders one notice: `notice CODE: message`, or `warning CODE: …` for cache trouble.
    func notice(_ notice: Notice, count: Int = 1) {
        let label = notice.kind == .staleData || notice.kind == .waiting ? "notice" : "warning"
        let times = count > 1 ? " (\(count) times)" : ""
        try? writeLine(labelled("\(label) \(notice.code)", CLIWording.message(of: notice) + times, width: Terminal.errorWidth(), colour: errorStyle.yellow),
                       to: .standardError)
    }

    /// `LABEL: text`, wrapped to `width` (a terminal's; nil leaves it whole, for a pipe) under a
    /// two-space indent, the label coloured after the text was measured so that colour never
    /// moves a break.
    private func labelled(_ label: String, _ text: String, width: Int?, colour: (String) -> String) -> String {
        let wrapped = Terminal.wrapMessage("\(label): \(text)", width: width, hangingIndent: 2)
        // On a terminal narrower than the label itself the label is broken too: then it goes plain.
        guard wrapped.hasPrefix(label + ":") else { return wrapped }
        return colour(label) + wrapped.dropFirst(label.count)
    }

    /// Writes `value` as one line of JSON, with reader's key order and dates.
    /// - Throws: ``ReaderError/output(_:)`` when stdout cannot be written.
    func writeJSON(_ value: some Encodable, to stream: Stream = .standardOutput) throws(ReaderError) {
        if let value = value as? JSONValue { return try writeJSON(value, to: stream) }
        do {
            // Through JSONValue's writer, which escapes what JSONEncoder leaves raw (DEL, the C1
            // controls, bidi and zero-width characters): a cache entry's URL or ETag came from a server.
            try writeJSON(try JSONValue(encoding: value), to: stream)
        } catch let error as ReaderError {
            throw error
        } catch {
            throw .bug("a value reader made does not encode as JSON: \(error)")
        }
    }

    /// Writes `value` as one line of JSON: every number as it was sent, at any depth.
    func writeJSON(_ value: JSONValue, to stream: Stream = .standardOutput) throws(ReaderError) {
        try write(Data(value.serialized() + [UInt8(ascii: "\n")]), to: stream)
    }

    /// Writes `text` and a newline.
    /// - Throws: ``ReaderError/output(_:)`` when stdout cannot be written; stderr's failures are
    ///   ignored, as there is nowhere left to report them.
    func writeLine(_ text: String, to stream: Stream) throws(ReaderError) {
        try write(Data((text + "\n").utf8), to: stream)
    }

    enum Stream { case standardOutput, standardError }

    private func write(_ data: Data, to stream: Stream) throws(ReaderError) {
        switch stream {
        case .standardOutput: try StandardOutput.write(data)
        case .standardError: writeAll(data, to: STDERR_FILENO)
        }
    }
}

/// Writes that are checked: stdout's failures (a full disk, a closed descriptor, a closed pipe)
/// are errors, never lost output.
enum StandardOutput {
    /// Writes all of `data` to stdout.
    /// - Throws: ``ReaderError/output(_:)`` with the `errno` of the write that failed.
    static func write(_ data: Data) throws(ReaderError) {
        if let errorNumber = writeAll(data, to: STDOUT_FILENO) { throw .output(OutputFailure(errorNumber: errorNumber)) }
    }

    /// Flushes C's buffered streams, in case anything wrote through them (`print`): reader's own
    /// output goes through ``write(_:)``, unbuffered.
    /// - Throws: ``ReaderError/output(_:)``.
    static func flushStandardIO() throws(ReaderError) {
        errno = 0
        if fflush(nil) != 0 {
            throw .output(OutputFailure(errorNumber: errno == 0 ? EIO : errno))
        }
    }
}

/// Writes all of `data` to `descriptor` with write(2), going on after a partial write or a
/// signal; returns the `errno` of a failed write, or nil.
@discardableResult
func writeAll(_ data: Data, to descriptor: Int32) -> Int32? {
    data.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) -> Int32? in
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}
