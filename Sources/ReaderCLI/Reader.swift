import ArgumentParser
import Foundation
import ReaderKit

struct Reader: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reader",
        abstract: "Read Reddit posts and the Star Wars API from the terminal, online or off.",
        discussion: """
            Every failure is shown with a stable code (such as T1003) and ends with a documented \
            exit code. What was read before stays readable from a local cache when the network is gone.
            """,
        version: ReaderKitVersion.string,
        subcommands: [Posts.self, Comments.self, Films.self, People.self, Planets.self, Species.self, Starships.self, Vehicles.self,
                      Sync.self, Status.self, Cache.self, Completions.self, Manual.self])

    /// Parses, runs, and turns every failure into a message with its code and an exit code.
    /// `ReaderMain` calls it (``ReaderCommandLine/main()``).
    static func main() async {
        // Known before parsing, so that even a parse error is rendered as asked.
        let arguments = CommandLine.arguments.dropFirst()
        var output = Output(json: arguments.contains("--json"))
        output.verbose = arguments.contains("--verbose") || arguments.contains("-v")
        output.errorStyle = Style.forDescriptor(STDERR_FILENO, noColor: arguments.contains("--no-color"))
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            // Help is requested by mistake as often as on purpose: keep the usage with the error.
            let usage = message(for: error)
            output.error(.invalidArgument(usage), decision: .alert, usage: usageString(for: error))
            Foundation.exit(ReaderKit.ExitCode.usage.rawValue)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = command
                try syncCommand.run()
            }
        } catch let failure as LoadFailure {
            output.error(failure.error, decision: failure.decision)
            Foundation.exit(failure.error.exitCode.rawValue)
        } catch let error as ReaderError {
            output.error(error, decision: .alert)
            Foundation.exit(error.exitCode.rawValue)
        } catch {
            exit(withError: error)
        }
    }

    private static func usageString(for error: any Error) -> String {
        let full = fullMessage(for: error)
        guard let range = full.range(of: "Usage:") else { return "" }
        return String(full[range.lowerBound...])
    }
}

/// The entry point of the `reader` executable (`Sources/ReaderMain`).
public enum ReaderCommandLine {
    /// Runs `reader` with the process's arguments, and exits with its exit code.
    public static func main() async {
        await Reader.main()
    }
}
