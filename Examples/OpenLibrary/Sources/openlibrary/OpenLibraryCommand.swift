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
            let error = ReaderError.invalidArgument(Wording(TerminalText.sanitise(message(for: error), maxLength: 300)))
            end(with: error, hint: OpenLibraryWording().text(of: error.hints()))
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let failure as LoadFailure {
            end(with: failure.error, hint: OpenLibraryWording().text(of: failure.hints))
        } catch let error as ReaderError {
            end(with: error, hint: OpenLibraryWording().text(of: error.hints()))
        } catch {
            exit(withError: error)
        }
    }

    /// `error CODE: message` and `  hint: …` on stderr, in this command's words, then the
    /// error's exit code.
    static func end(with error: ReaderError, hint: String) -> Never {
        Console.error("error \(error.code): \(OpenLibraryWording().message(of: error))\n  hint: \(hint)")
        Foundation.exit(error.exitCode.rawValue)
    }
}
