import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

package struct Reader: AsyncParsableCommand, HelpExamples {
    // As visible as the type, for ArgumentParser (the implicit one is internal).
    package init() {}

    /// The root command's configuration, as help, completions and the man page show it; while
    /// ``parse()`` parses a command line that asks for no completion script, the same with the
    /// check for one switched off (``CompletionScriptCheck``).
    package static var configuration: CommandConfiguration {
        CompletionScriptCheck.isSkipped ? configurationSkippingCompletionCheck : standardConfiguration
    }

    private static let configurationSkippingCompletionCheck: CommandConfiguration = {
        var configuration = standardConfiguration
        configuration._superCommandName = CompletionScriptCheck.placeholderSuperCommandName
        return configuration
    }()

    private static let standardConfiguration = CommandConfiguration(
        commandName: "reader",
        abstract: "Read \(Help.list(ServiceRegistry.current.plugins.map(\.summary))) from the terminal, online or off.",
        discussion: """
            Every failure is shown with a stable code (such as T1003) and ends with a documented \
            exit code. What was read before stays readable from a local cache when the network is gone.
            """ + "\n\nThe services' settings come from the config file or the environment ("
            + Help.joined(ServiceRegistry.current.settings.compactMap(\.variable), separator: ", ")
            + "): 'reader config' shows what is used and where it comes from; 'reader manual' lists them all.",
        version: ReaderKitVersion.string,
        subcommands: ServiceRegistry.current.commands
            + [Browse.self, Sync.self, Status.self, Cache.self, Config.self, Completions.self, Manual.self])

    static var examples: [String] { ServiceRegistry.current.plugins.flatMap(\.examples) + ["reader status"] }

    /// Parses the process's arguments, on the calling thread and before any task or thread is
    /// started: help, the version and a usage error end the process here (with their message and
    /// exit code), so that they never pay for the concurrency runtime's threads.
    /// `ReaderMain` calls it (``ReaderCommandLine/parse()``).
    static func parse() -> ReaderCommandLine.Parsed {
        // Known before parsing, so that even a parse error is rendered as asked.
        let given = Array(CommandLine.arguments.dropFirst())
        // `reader --offline films` is `reader films --offline`.
        let arguments = given.first?.hasPrefix("-") == true ? LeadingOptions.movedAfterCommand(in: given) ?? given : given
        var output = Output(json: arguments.contains("--json"))
        output.verbose = arguments.contains("--verbose") || arguments.contains("-v")
        // The config file's `color = false` too, for the errors of the parse and of the run alike.
        output.errorStyle = Style.forDescriptor(STDERR_FILENO, noColor: arguments.contains("--no-color") || OutputChoice.settingsTurnColourOff)
        // `reader help flims` is a slip as `reader flims` is, not a request for reader's whole help.
        if arguments.first == "help", arguments.count == 2, let word = arguments.last, !word.hasPrefix("-"), word != "help", !isCommand(word),
           let text = commandSuggestion(for: "Unexpected argument '\(word)'", arguments: [word]) {
            output.error(.invalidArgument(Wording(text)), decision: .alert, hints: [.plain("see 'reader help' for the commands")],
                         wording: CLIWording(registry: .current))
            Foundation.exit(ReaderKit.ExitCode.usage.rawValue)
        }
        let mayAskForScript = arguments.contains(where: CompletionScriptCheck.mayAskForScript)
        var parsed: Result<any ParsableCommand, any Error> = CompletionScriptCheck.skipping(unless: mayAskForScript) {
            Result { try parseAsRoot(arguments) }
        }
        // A negative number the parser took for an option: parsed again as the value it is, once for each.
        var meant = arguments
        for _ in arguments {
            guard case .failure(let error) = parsed,
                  let rewritten = NegativeNumber.asValue(in: meant, refusedWith: message(for: error)) else { break }
            meant = rewritten
            parsed = CompletionScriptCheck.skipping(unless: mayAskForScript) { Result { try parseAsRoot(meant) } }
        }
        do {
            return ReaderCommandLine.Parsed(command: try parsed.get(), output: output)
        } catch {
            if exitCode(for: error) == .success { endWithMessage(of: error, output: output) }
            // Help is requested by mistake as often as on purpose: keep the usage with the error.
            // The message quotes the argument, which may be anything: a megabyte, escape sequences.
            // One hint, about the command at hand: the parser's "See 'reader films --help' for more
            // information." becomes it, rather than following reader's general one.
            var (usage, help) = usageAndHelp(for: error)
            var text = message(for: error)
            if let slip = commandSlip(for: text, arguments: arguments) {
                text = slip.text
                // `reader cache foo`: the usage and help are of `reader cache`, not of the
                // subcommand it runs by default, which the parser was reading.
                if slip.path.count > 1 {
                    usage = "Usage: " + usageString(for: Help.command(atPath: Array(slip.path.dropFirst())))
                    help = slip.path.joined(separator: " ") + " --help"
                }
            } else if let choice = Help.choiceSlip(for: text) {
                text = choice
            }
            output.error(.invalidArgument(Wording(shortened(TerminalText.sanitise(text, maxLength: Int.max)))),
                         decision: .alert,
                         hints: help.map { [.plain("see '\(TerminalText.sanitise($0, maxLength: 200))' for the arguments it takes")] },
                         wording: CLIWording(registry: .current),
                         usage: TerminalText.sanitiseParagraphs(usage, maxLength: 4000).joined(separator: "\n"))
            Foundation.exit(ReaderKit.ExitCode.usage.rawValue)
        }
    }

    /// Runs a parsed command, and turns every failure into a message with its code and an exit code.
    static func run(_ parsed: ReaderCommandLine.Parsed) async {
        let output = parsed.output
        // The hints speak of the services registered, and of the command's own alone when it has one.
        let registry = ServiceRegistry.current
        let wording = CLIWording(registry: registry, service: registry.service(of: type(of: parsed.command)))
        do {
            if var asyncCommand = parsed.command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                var syncCommand = parsed.command
                try syncCommand.run()
            }
            try StandardOutput.flushStandardIO()
            await DeferredShutdowns.shared.finish()
        } catch let failure as LoadFailure {
            let hints = (parsed.command as? any HintingOnFailure)?.hints(for: failure) ?? failure.hints
            end(with: failure.error, decision: failure.decision, hints: hints, wording: wording, output: output)
        } catch let error as ReaderError {
            // An argument refused as the command runs: the hint is about that command's arguments.
            var hints: [Hint]?
            if case .invalidArgument = error, let name = topLevelName(of: type(of: parsed.command)) {
                hints = [.plain("see 'reader \(name) --help' for the arguments it takes")]
            }
            end(with: error, decision: .alert, hints: hints, wording: wording, output: output)
        } catch {
            // `reader --help` reaches here, from the root command's run().
            if exitCode(for: error) == .success { endWithMessage(of: error, output: output) }
            exit(withError: error)
        }
    }

    /// Writes what a clean exit says (help, the version) to stdout, checked, and exits.
    private static func endWithMessage(of cleanExit: any Error, output: Output) -> Never {
        let message = Help.withExamples(fullMessage(for: cleanExit))
        do {
            if !message.isEmpty { try StandardOutput.write(Data((message + "\n").utf8)) }
        } catch {
            end(with: error, decision: .alert, wording: CLIWording(registry: .current), output: output)
        }
        Foundation.exit(0)
    }

    /// Reports `error` and exits with its code; a closed pipe ends quietly, as `cat` does.
    /// - Parameter hints: the hints for the situation, when it is known (``LoadFailure/hints``).
    /// - Parameter wording: reader's words for the services of the command that failed.
    private static func end(with error: ReaderError, decision: Decision, hints: [Hint]? = nil, wording: CLIWording,
                            output: Output) -> Never {
        if case .output(let failure) = error, failure.isClosedPipe { ProcessSetup.endByClosedPipe() }
        output.error(error, decision: decision, hints: hints, wording: wording)
        Foundation.exit(error.exitCode.rawValue)
    }

    /// The parser's "Unexpected argument 'film'" where a command was expected, said as reader
    /// says it, with the command meant: `"film" is not a command of reader: did you mean "films"?`.
    /// Nil for any other message, or where the command takes no subcommands.
    static func commandSuggestion(for message: String, arguments: [String]) -> String? {
        commandSlip(for: message, arguments: arguments)?.text
    }

    /// ``commandSuggestion(for:arguments:)``'s text, and the path of the command whose
    /// subcommand was expected (`["reader", "cache"]`).
    static func commandSlip(for message: String, arguments: [String]) -> (text: String, path: [String])? {
        let word: String
        if message.hasPrefix("Unexpected argument '"), message.hasSuffix("'") {
            word = String(message.dropFirst("Unexpected argument '".count).dropLast())
        } else if message.hasPrefix("Unknown option '"), let first = arguments.first, !isCommand(first) {
            // `reader flim --json`: the option is refused because no command took it, and the
            // word meant for one is what to say.
            word = first
        } else {
            return nil
        }
        guard !word.hasPrefix("-") else { return nil }
        let (path, names) = Help.subcommands(before: word, in: arguments)
        guard !names.isEmpty else { return nil }
        let owner = path.joined(separator: " ")
        let quoted = "\"\(TerminalText.sanitise(word, maxLength: 40))\""
        guard let nearest = Help.nearest(to: word, among: names) else {
            return ("\(quoted) is not a command of \(owner): the commands are \(names.joined(separator: ", "))", path)
        }
        return ("\(quoted) is not a command of \(owner): did you mean \"\(nearest)\"?", path)
    }

    /// Whether `word` names one of reader's commands, shown or hidden.
    static func isCommand(_ word: String) -> Bool {
        configuration.subcommands.contains { $0.configuration.commandName == word }
    }

    /// `text`, or its start and end around an ellipsis when it is longer than `maxLength`
    /// characters: an error message stays short, and still names the option at its end.
    static func shortened(_ text: String, maxLength: Int = 300) -> String {
        guard text.count > maxLength else { return text }
        return String(text.prefix(maxLength / 2)) + "…" + String(text.suffix(maxLength / 2))
    }

    /// The name of `command` when it is one of reader's own (`browse`, `films`), not a subcommand's.
    static func topLevelName(of command: any ParsableCommand.Type) -> String? {
        guard configuration.subcommands.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(command) }) else { return nil }
        return command.configuration.commandName
    }

    /// The usage the parser shows with `error`, without its closing "See 'reader films --help'
    /// for more information.", and the help command that line names.
    static func usageAndHelp(for error: any Error) -> (usage: String, help: String?) {
        let full = fullMessage(for: error)
        guard let range = full.range(of: "Usage:") else { return ("", nil) }
        var help: String?
        let lines = full[range.lowerBound...].split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let (start, end) = ("See '", "' for more information.")
            guard help == nil, trimmed.hasPrefix(start), trimmed.hasSuffix(end), trimmed.count > start.count + end.count else { return true }
            help = String(trimmed.dropFirst(start.count).dropLast(end.count))
            return false
        }
        return (lines.joined(separator: "\n"), help)
    }
}
