import ArgumentParser
import Foundation
import OpenLibraryKit
import ReaderKit

/// `openlibrary`: reads Open Library through ReaderKit, as `reader` reads Reddit and SWAPI.
///
/// It only parses, loads through a ``ReaderClient`` and renders; every failure ends with its
/// code, message and hint on stderr and the exit code ReaderKit gives it.
@main
struct OpenLibraryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openlibrary",
        abstract: "Read Open Library's works, authors and searches, online or from the cache.",
        discussion: """
            OPENLIBRARY_URL points it at another server; OPENLIBRARY_CONTACT (an email address or URL) \
            is sent in the User-Agent, as Open Library asks. The cache is reader's (READER_CACHE_PATH).
            """,
        version: ReaderKitVersion.string,
        subcommands: [Work.self, Author.self, Search.self])

    /// Parses and runs, and turns a failure into its message and exit code.
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            // Help and the version end here too, as the parser prints them.
            if exitCode(for: error) == .success { exit(withError: error) }
            // The parser's message quotes the argument, which may be anything: escape sequences, a megabyte.
            let error = ReaderError.invalidArgument(TerminalText.sanitise(message(for: error), maxLength: 300))
            end(with: error, suggestion: hint(for: error))
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let failure as LoadFailure {
            end(with: failure.error, suggestion: failure.suggestion)
        } catch let error as ReaderError {
            end(with: error, suggestion: hint(for: error))
        } catch {
            exit(withError: error)
        }
    }

    /// What to do about a failure found before any request: this command's words for an
    /// argument (ReaderKit's name no command), ReaderKit's for the rest.
    static func hint(for error: ReaderError) -> String {
        guard case .invalidArgument = error else { return error.suggestion }
        return "see 'openlibrary help' for the arguments each command takes; 'openlibrary search TEXT' shows works' ids"
    }

    /// `error CODE: message` and `  hint: suggestion` on stderr, then the error's exit code.
    static func end(with error: ReaderError, suggestion: String) -> Never {
        Console.error("error \(error.code): \(error.message)\n  hint: \(suggestion)")
        Foundation.exit(error.exitCode.rawValue)
    }
}
