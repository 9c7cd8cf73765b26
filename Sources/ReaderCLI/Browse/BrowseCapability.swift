import ReaderKit
import ReaderTerminal

/// What `reader browse` shows of a service: its first screen for a target, and how the help
/// and the `s` prompt speak of its targets. The screens are the service's (beside its commands,
/// ``BrowseScreen``); the terminal, the client, the stack and the bottom line are `reader`'s.
public struct BrowseCapability: Sendable {
    /// Whether the service takes targets without its name before them (`python`, `r/python`,
    /// and no target at all, for Reddit); a target `NAME` or `NAME/REST` goes to the service so
    /// named whatever this says. The help and the prompt name its targets first.
    public var takesUnnamedTargets: Bool
    /// Its targets, for `reader browse --help`'s sentence "What to read: …":
    /// "swapi, swapi/COLLECTION (swapi/people), swapi/COLLECTION/ID".
    public var targets: String
    /// Its targets in a word or two, for the `s` prompt and the help, "go to (…)": "swapi".
    public var goTo: String
    /// Targets for `reader browse --help`'s examples, each after `reader browse `: "swapi/people".
    public var examples: [String]
    /// What is shown without a target, for the service that takes unnamed targets ("the config
    /// file's first subreddit, else the front page"); nil when a target is needed.
    public var withoutTarget: String?
    /// Checks `target` (nil: none given; without the service's name) against `settings`, and
    /// returns the first screen for it: called before the terminal is borrowed, so that a
    /// wrong target is an error on the main screen, and again for a target typed after `s`.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a target the service cannot show.
    public var prepare: @Sendable (_ target: String?, _ settings: ServiceSettings) throws(ReaderError) -> BrowseProgram

    public init(takesUnnamedTargets: Bool = false, targets: String, goTo: String, examples: [String], withoutTarget: String? = nil,
                prepare: @escaping @Sendable (_ target: String?, _ settings: ServiceSettings) throws(ReaderError) -> BrowseProgram) {
        self.takesUnnamedTargets = takesUnnamedTargets
        self.targets = targets
        self.goTo = goTo
        self.examples = examples
        self.withoutTarget = withoutTarget
        self.prepare = prepare
    }
}
