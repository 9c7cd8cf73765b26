import ReaderKit
import ReaderTerminal

/// What `reader browse` shows of a service: its first screen for a target, run on the borrowed
/// terminal. The screens are the service's (beside its commands); the terminal, the client
/// and the command are `reader`'s.
public struct BrowseCapability: Sendable {
    /// Whether the service takes targets without its name before them (`python`, `r/python`,
    /// and no target at all, for Reddit); a target `NAME` or `NAME/REST` goes to the service so
    /// named whatever this says.
    public var takesUnnamedTargets: Bool
    /// Checks `target` (nil: none given; without the service's name) against `settings`, and
    /// returns the program that browses it: called before the terminal is borrowed, so that a
    /// wrong target is an error on the main screen.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a target the service cannot show.
    public var prepare: @Sendable (_ target: String?, _ settings: ServiceSettings) throws(ReaderError) -> BrowseProgram

    public init(takesUnnamedTargets: Bool,
                prepare: @escaping @Sendable (_ target: String?, _ settings: ServiceSettings) throws(ReaderError) -> BrowseProgram) {
        self.takesUnnamedTargets = takesUnnamedTargets
        self.prepare = prepare
    }
}

/// A service's browsing, ready to run: given the client, the load options and the runner for
/// the borrowed terminal, it runs its screens until they quit.
public struct BrowseProgram: Sendable {
    /// Runs the screens; returns how they ended.
    public var run: @Sendable (BrowseContext) async -> ProgramEnd

    public init(run: @escaping @Sendable (BrowseContext) async -> ProgramEnd) {
        self.run = run
    }
}

/// What a service's screens run with.
public struct BrowseContext: Sendable {
    /// The client the screens load through (the cache, `--offline`, the settings apply).
    public var client: ReaderClient
    /// The options of every load: `--offline`, `--refresh`, `--wait`, the timeout.
    public var loadOptions: @Sendable () -> LoadOptions
    /// The borrowed terminal.
    public var session: TerminalSession
    /// Whether colours may be written (`NO_COLOR`, `--no-color`, the config file).
    public var colour: Bool

    /// Runs `model` on the terminal until it quits, with a tick every 30 seconds (ages on
    /// screen grow older).
    public func run<Screens: Model>(_ model: Screens) async -> ProgramEnd {
        await ProgramRunner<Screens>(session: session, colour: colour, tickInterval: .seconds(30)).run(model).end
    }
}
