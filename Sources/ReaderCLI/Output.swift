import Foundation
import ReaderKit

/// Writes data to stdout and messages to stderr, as text for people or JSON for scripts.
struct Output {
    var json: Bool
    var verbose = false
    /// Colour for stderr's labels; plain unless stderr is a terminal that takes colour.
    var errorStyle = Style.plain

    /// Renders a failure: `error CODE: message` with what to do next, or one JSON object on stderr.
    func error(_ error: ReaderError, decision: Decision, usage: String = "") {
        if json {
            var object: [String: JSONValue] = [
                "code": .string(error.code.description),
                "domain": .string(error.code.domain.rawValue),
                "decision": .string(decision.name),
                "message": .string(error.message),
                "suggestion": .string(error.suggestion),
                "exit_code": .integer(Int64(error.exitCode.rawValue)),
            ]
            object["reason"] = error.reason.map(JSONValue.string) ?? .null
            if verbose { object["detail"] = .string(error.technicalDetail) }
            writeJSON(JSONValue.object(["error": .object(object)]), to: .standardError)
            return
        }
        var lines = ["\(errorStyle.red("error \(error.code)")): \(error.message)", "  hint: \(error.suggestion)"]
        if verbose { lines.append("  detail: \(TerminalText.sanitise(error.technicalDetail, maxLength: 2000))") }
        if !usage.isEmpty { lines.append(""); lines.append(usage.trimmingCharacters(in: .whitespacesAndNewlines)) }
        writeLine(lines.joined(separator: "\n"), to: .standardError)
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
        writeLine("\(errorStyle.yellow("\(label) \(notice.code)")): \(notice.message)\(times)", to: .standardError)
    }

    /// Writes `value` as one line of JSON, with reader's key order and dates.
    func writeJSON(_ value: some Encodable, to stream: Stream = .standardOutput) {
        let data = (try? ReaderJSON.makeEncoder().encode(value)) ?? Data("{}".utf8)
        write(data + Data("\n".utf8), to: stream)
    }

    func writeLine(_ text: String, to stream: Stream) {
        write(Data((text + "\n").utf8), to: stream)
    }

    enum Stream { case standardOutput, standardError }

    private func write(_ data: Data, to stream: Stream) {
        let handle = stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
        try? handle.write(contentsOf: data)
    }
}
