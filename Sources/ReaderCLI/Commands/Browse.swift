import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

extension Reader {
    /// `reader browse [TARGET]`: a full-screen reader on the terminal, the screens a service's
    /// (``ServicePlugin/browse``), the terminal borrowed and given back here.
    package struct Browse: AsyncParsableCommand, HelpExamples {
        // As visible as the type, for ArgumentParser (the implicit one is internal).
        package init() {}

        package static let configuration = CommandConfiguration(
            commandName: "browse",
            abstract: "Read in a full-screen reader: move with j/k or the arrows, q to quit.",
            discussion: """
                Needs a terminal (stdin and stdout); 'reader posts' is for scripts. The bottom line \
                says where you are, and how old what is shown is when it is not fresh.
                """)

        /// Each service's examples (``BrowseCapability/examples``).
        static var examples: [String] { browsable.flatMap(\.browse.examples).map { "reader browse \($0)" } }

        @Argument(help: ArgumentHelp(Browse.targetHelp))
        var target: String?

        /// The services with screens, the one that takes unnamed targets first (its targets are
        /// written without its name), then in the registry's order.
        static var browsable: [(plugin: any ServicePlugin, browse: BrowseCapability)] {
            let all = ServiceRegistry.current.plugins.compactMap { plugin in plugin.browse.map { (plugin: plugin, browse: $0) } }
            return all.filter { $0.browse.takesUnnamedTargets } + all.filter { !$0.browse.takesUnnamedTargets }
        }

        /// "What to read: " and each service's targets, and what is shown without one.
        static var targetHelp: String {
            let targets = browsable.map(\.browse.targets)
            let listed = targets.count > 1 ? targets.dropLast().joined(separator: ", ") + ", or " + (targets.last ?? "") : targets.first ?? ""
            let withoutTarget = browsable.lazy.compactMap(\.browse.withoutTarget).first.map { " When left out: \($0)." } ?? ""
            return "What to read: \(listed).\(withoutTarget)"
        }

        @OptionGroup var options: FetchOptions<BrowseFlags>

        package func validate() throws {
            if options.output.json {
                throw ValidationError("browse draws on the terminal and writes no JSON; 'reader posts --json' and the other commands do")
            }
            do { _ = try Self.program(for: target, settings: nil) } catch { throw ValidationError(CLIWording.message(of: error)) }
        }

        /// The service `target` names (`swapi`, `swapi/people`) and the rest of it, else the
        /// service that takes unnamed targets with the whole of it, and that service's program.
        /// - Parameter settings: nil checks the target alone (at parse time, before the config file is read).
        /// - Throws: ``ReaderError/invalidArgument(_:)`` (R1001) for a target no service shows.
        static func program(for target: String?, settings: ReaderSettings?) throws(ReaderError) -> BrowseProgram {
            guard let (plugin, rest) = service(of: target) else { throw .invalidArgument("browse has no screens to show") }
            guard let browse = plugin.browse else {
                throw .invalidArgument("browse has no screens for \(plugin.name.rawValue) yet; 'reader \(plugin.name.rawValue) --help' lists its commands")
            }
            return try browse.prepare(rest, settings?.of(plugin.name) ?? ServiceSettings())
        }

        /// The service `target` names (`swapi`, `swapi/people`) and the rest of it, else the
        /// service that takes unnamed targets with the whole of it; nil when there is neither.
        static func service(of target: String?) -> (plugin: any ServicePlugin, target: String?)? {
            let registry = ServiceRegistry.current
            if let target {
                let head = target.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
                if let name = ServiceName(rawValue: head[0].lowercased()), let plugin = registry[name] {
                    return (plugin, head.count > 1 ? String(head[1]) : nil)
                }
            }
            return registry.plugins.first(where: { $0.browse?.takesUnnamedTargets == true }).map { ($0, target) }
        }

        package func run() async throws {
            let settings = try options.settings()
            let program = try Self.program(for: target, settings: settings)
            let session: TerminalSession
            do {
                session = try TerminalSession(environment: ProcessEnvironment.current)
            } catch {
                throw ReaderError.invalidArgument(Self.refusal(error, service: Self.service(of: target)?.plugin))
            }
            let colour = Terminal.allowsColour(on: STDOUT_FILENO, noColorFlag: options.output.colourOff)
            let configuration = try options.clientConfiguration(environment: ProcessEnvironment.current)
            // Nothing may write to the screen but the program: no log lines, and the notices
            // are the bottom line's to say.
            let client = ReaderClient(configuration: configuration, logger: CommandLogging.logger(verbose: false))
            let context = BrowseContext(client: client)
            // Each load has the whole timeout from when it starts, not from when browse started.
            let template = options.loadOptions
            let timeout = settings.timeout.value
            let browserCommand = ProcessEnvironment.current["BROWSER"].flatMap { $0.isEmpty ? nil : $0 }
            let environment = Browser.Environment(
                loadOptions: {
                    var loadOptions = template
                    loadOptions.deadline = ContinuousClock.now.advanced(by: timeout)
                    return loadOptions
                },
                resolve: { (target) throws(ReaderError) in try Self.program(for: target, settings: settings).firstScreen(context) },
                places: Self.browsable.map(\.browse.goTo),
                wording: CLIWording(registry: .current),
                browserCommand: browserCommand,
                openURL: { url in LinkOpener.open(url, with: browserCommand) },
                // Asked each tick: a cache file deleted meanwhile is noticed (C1003) and opened anew.
                notices: {
                    await client.reopenCacheIfMoved()
                    return await client.notices.drain().map(\.notice)
                },
                rateLimitedUntil: { service in
                    await client.rateLimitLockouts().filter { $0.service == service }.map(\.resetAt).max()
                })
            let browser = Browser(first: program.firstScreen(context), environment: environment, size: session.size, now: Date())
            let end = await CommandRunner.using(client) { _ in
                await ProgramRunner<Browser>(session: session, colour: colour, tickInterval: Browser.tickInterval).run(browser).end
            }.get()
            session.restore()
            if end == .interrupted {
                // Ctrl-c came as a key in raw mode: end as SIGINT ends a program (a shell shows
                // 130, and a script around it stops). The signal goes to the process, as this
                // thread may block it; exiting with 130 is for when it is ignored.
                signal(SIGINT, SIG_DFL)
                kill(getpid(), SIGINT)
                Foundation.exit(128 + SIGINT)
            }
        }

        /// Why the terminal cannot be borrowed, as a user reads it.
        /// - Parameter service: the service browse was to show: its first command is the one for scripts.
        static func refusal(_ reason: TerminalUnavailable, service: (any ServicePlugin)?) -> Wording {
            let why = switch reason {
            case .inputIsNotATerminal: "its input is not a terminal"
            case .outputIsNotATerminal: "its output is not a terminal"
            case .dumbTerminal: "TERM is dumb, a terminal that cannot place the cursor"
            case .attributes(let number): "the terminal's modes cannot be set (errno \(number))"
            }
            let forScripts = service?.commands.first.map { "; 'reader \($0.configuration.commandName ?? service?.name.rawValue ?? "")' is for scripts" } ?? ""
            return Wording("browse needs a terminal, and \(why)\(forScripts)")
        }
    }
}
