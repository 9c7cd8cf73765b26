import ArgumentParser
import Foundation
import ReaderKit

/// Switches off swift-argument-parser's check for `--generate-completion-script` while a command
/// line that cannot ask for a completion script is parsed.
///
/// Why: before it looks at the arguments, ArgumentParser parses them as two hidden commands of its
/// own, building their argument sets by reflection; on a cold process that is most of the cost of
/// `reader --version` (BENCHMARKS.md, "Start-up"). Its one
/// documented way to skip the check is a root command with a
/// "super-command" name, which only the help and the man page otherwise show. So the name is set
/// for the parse alone, only when no argument could ask for a script, and is gone again before
/// anything is rendered: a parse error, help and the version are worded after ``skipping(unless:_:)``
/// returns, from the command types, with the standard configuration.
enum CompletionScriptCheck {
    /// Never shown: it is set only while nothing is rendered.
    static let placeholderSuperCommandName = "reader-parse"

    /// Task-local, and so local to the thread where no task runs (as for `Reader.parse()` on the
    /// main thread): a parse elsewhere at the same time (tests, fuzzers) never sees it. It starts
    /// no thread, and costs no lock.
    @TaskLocal private static var skipped = false

    /// Whether the root command's configuration is the one that skips the check.
    static var isSkipped: Bool { skipped }

    /// Whether `argument` may ask ArgumentParser for a completion script
    /// (`--generate-completion-script`, with its value or after `=`).
    static func mayAskForScript(_ argument: String) -> Bool {
        argument.hasPrefix("--generate-completion-script")
    }

    /// Runs `parse` with the check skipped, unless `mayAskForScript` (then as ArgumentParser does).
    static func skipping<T>(unless mayAskForScript: Bool, _ parse: () -> T) -> T {
        guard !mayAskForScript else { return parse() }
        return $skipped.withValue(true, operation: parse)
    }
}
