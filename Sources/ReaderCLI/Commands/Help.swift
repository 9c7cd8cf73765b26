import ArgumentParser
import Foundation
import ReaderKit

/// A command whose `--help` (and man page section) ends with examples.
///
/// They are printed as written, after what the argument parser renders, because the parser
/// re-wraps discussion text to the terminal's width: it would break a command in the middle
/// (`reader completions bash >` / `~/.local/…`), which is unsafe to copy. A line wider than the
/// terminal is wrapped by the terminal alone, and copies whole.
protocol HelpExamples {
    /// Whole command lines, each one a user can copy and run.
    static var examples: [String] { get }
}

/// Help beyond what the argument parser renders: examples, and the command a user meant.
enum Help {
    /// `items` as a sentence lists them: "A", "A and B", "A, B and C" (or with `conjunction`, "A, B or C").
    static func list(_ items: [String], conjunction: String = "and") -> String {
        guard let last = items.last else { return "" }
        return items.count == 1 ? last : joined(Array(items.dropLast()), separator: ", ") + " \(conjunction) " + last
    }

    /// `parts` with `separator` between them, as `joined(separator:)` gives. The commands'
    /// configurations are built at every start, and there the standard library's `joined` (not
    /// specialised for arrays) and its `append(contentsOf:)` each cost the runtime a scan of every
    /// conformance in the binary, about 0.4 M instructions, where this loop costs none.
    static func joined(_ parts: [String], separator: String) -> String {
        var text = ""
        for (index, part) in parts.enumerated() {
            if index > 0 { text += separator }
            text += part
        }
        return text
    }

    /// `text`, a help screen of the argument parser, followed by its command's examples.
    static func withExamples(_ text: String) -> String {
        guard let command = command(ofHelp: text), let examples = (command as? any HelpExamples.Type)?.examples,
              !examples.isEmpty else { return text }
        let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
        return trimmed + "\n\nEXAMPLES:\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    }

    /// The command a help screen is about, from its `USAGE: reader …` line: the parser writes
    /// that line from the command stack, and never wraps it.
    static func command(ofHelp text: String) -> (any ParsableCommand.Type)? {
        guard let usage = text.split(separator: "\n").first(where: { $0.hasPrefix("USAGE: ") }) else { return nil }
        let words = usage.dropFirst("USAGE: ".count).split(separator: " ").map(String.init)
        guard words.first == Reader.configuration.commandName else { return nil }
        return command(atPath: Array(words.dropFirst()))
    }

    /// The command named by the leading words of `path` (`["cache", "clear"]`), from the root.
    static func command(atPath path: [String]) -> any ParsableCommand.Type {
        var current: any ParsableCommand.Type = Reader.self
        for word in path {
            guard let next = current.configuration.subcommands.first(where: { $0.configuration.commandName == word }) else { break }
            current = next
        }
        return current
    }

    /// The examples of the command at `path` below `reader` (for the man page).
    static func examples(atPath path: [String]) -> [String] {
        (command(atPath: path) as? any HelpExamples.Type)?.examples ?? []
    }

    /// The subcommand a user most likely meant by `word`, for "did you mean …?": one whose
    /// name `word` starts (`star` → `starships`, when only one does), or one within a typing
    /// slip of it (`film` → `films`, `peple` → `people`, `stauts` → `status`).
    static func nearest(to word: String, among names: [String]) -> String? {
        let typed = word.lowercased()
        guard !typed.isEmpty, typed.count <= 64 else { return nil }
        let starting = names.filter { $0.hasPrefix(typed) }
        if starting.count == 1 { return starting[0] }
        // A slip of one character in a short word, two in a longer one; more is another word.
        let allowed = typed.count <= 4 ? 1 : 2
        let scored = names.map { ($0, editDistance(typed, $0)) }.filter { $0.1 <= allowed }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// The command that `arguments` reach before `word`, as its path of names from `reader`
    /// (`["reader", "cache"]`), and the names of its visible subcommands.
    static func subcommands(before word: String, in arguments: [String]) -> (path: [String], names: [String]) {
        var current: any ParsableCommand.Type = Reader.self
        var path = [Reader.configuration.commandName ?? "reader"]
        for argument in arguments {
            if argument == word { break }
            if let next = current.configuration.subcommands.first(where: { $0.configuration.commandName == argument }) {
                current = next
                path.append(argument)
            }
        }
        let names = current.configuration.subcommands.compactMap { command in
            command.configuration.shouldDisplay ? command.configuration.commandName : nil
        }
        return (path, names)
    }

    /// The parser's "The value 'hto' is invalid for '--sort <sort>'. Please provide one of the
    /// following: - hot - new …", said in one line with the value meant:
    /// `"hto" is not a value of --sort: did you mean "hot"?`, or the values when none is near.
    /// Nil for any other message.
    static func choiceSlip(for message: String) -> String? {
        let (start, middle, listStart) = ("The value '", "' is invalid for '", "Please provide one of the following:")
        guard message.hasPrefix(start), let invalidFor = message.range(of: middle),
              let list = message.range(of: listStart, range: invalidFor.upperBound..<message.endIndex) else { return nil }
        let value = String(message[message.index(message.startIndex, offsetBy: start.count)..<invalidFor.lowerBound])
        let named = message[invalidFor.upperBound..<list.lowerBound].prefix { $0 != "'" }
        let option = named.split(separator: " ").first.map(String.init) ?? String(named)
        let choices = message[list.upperBound...].split(separator: "\n").compactMap { line -> String? in
            let trimmed = line.drop { $0 == " " }
            return trimmed.hasPrefix("- ") ? String(trimmed.dropFirst(2)) : nil
        }
        guard !choices.isEmpty else { return nil }
        let quoted = "\"\(TerminalText.sanitise(value, maxLength: 40))\""
        let what = "\(quoted) is not a value of \(TerminalText.sanitise(option, maxLength: 40))"
        guard let nearest = nearest(to: value, among: choices) else { return "\(what): the values are \(Help.list(choices, conjunction: "or"))" }
        return "\(what): did you mean \"\(nearest)\"?"
    }

    /// Levenshtein distance, with a transposition counted as one edit (`stauts` → `status`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var distances = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { distances[i][0] = i }
        for j in 0...b.count { distances[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                distances[i][j] = min(distances[i - 1][j] + 1, distances[i][j - 1] + 1, distances[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    distances[i][j] = min(distances[i][j], distances[i - 2][j - 2] + 1)
                }
            }
        }
        return distances[a.count][b.count]
    }
}
