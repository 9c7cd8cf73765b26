import ArgumentParser
import Foundation
import ReaderKit

/// The entry point of the `reader` executable (`Sources/ReaderMain`): ``prepareProcess()``,
/// then ``parse()`` on the main thread, then ``run(_:)`` in a task.
public enum ReaderCommandLine {
    /// A command line parsed into the command to run, with how its output is to look.
    /// Made by ``parse()`` and consumed once by ``run(_:)``.
    public struct Parsed: @unchecked Sendable {
        // Not Sendable by type (a command is a plain struct of its options), but handed from the
        // main thread to the one task that runs it, and never touched again by the main thread.
        let command: any ParsableCommand
        let output: Output
    }

    /// Prepares signals and the standard descriptors, and chooses the services offered; call it
    /// first, before anything opens a file or parses.
    /// - Parameter services: the services `reader` offers: its built-in ones, or a registry that
    ///   adds others (``ServiceRegistry/adding(_:)``).
    public static func prepareProcess(services: ServiceRegistry = .builtIn) {
        ServiceRegistry.choose(services)
        ProcessSetup.prepareSignalsAndDescriptors()
    }

    /// Parses the process's arguments synchronously; help, the version and usage errors end the
    /// process here, before any thread is started.
    public static func parse() -> Parsed {
        Reader.parse()
    }

    /// Runs the parsed command; a failure exits with its exit code.
    public static func run(_ parsed: Parsed) async {
        await Reader.run(parsed)
    }

    /// Ends the process with exit 0 once ``run(_:)`` has returned (it exits itself otherwise).
    public static func exitSucceeding() -> Never {
        Foundation.exit(0)
    }
}
