import ArgumentParser
import Foundation
import ReaderKit

/// A service as `reader` offers it: what the app needs of it besides the ``Service`` the engine
/// reads. `reader`'s settings, config file, `status`, `sync`, `config`, hints, help, man page and
/// completions iterate over the services of a ``ServiceRegistry``; none names a service.
///
/// Only ``name``, ``settings`` and ``service(from:)`` must be given.
public protocol ServicePlugin: Sendable {
    /// The service's name, as its ``Service`` has it.
    var name: ServiceName { get }

    /// The settings it reads from the config file and the environment, in the order
    /// `reader config` lists them.
    var settings: [ServiceSetting] { get }

    /// The service the engine reads, as the settings' values make it.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when the values cannot make one.
    func service(from settings: ServiceSettings) throws(ReaderError) -> any Service

    /// What `reader` reads of it, for its abstract ("Read the Star Wars API and Reddit posts from
    /// the terminal"): "the Star Wars API". By default its name.
    var summary: String { get }

    /// Its commands under `reader`. By default none.
    var commands: [any ParsableCommand.Type] { get }

    /// Whole command lines that show it, for `reader --help`: "reader films 1". By default none.
    var examples: [String] { get }

    /// Its table of the config file, as `reader config --help` shows an example of the file
    /// (`[swapi]` and its lines); nil when it has no setting there. By default nil.
    var configExample: String? { get }

    /// What `reader sync` can do for it; nil when it has no sync. By default nil.
    var sync: SyncCapability? { get }

    /// How `reader status` and the hints speak of its credential; nil when it has none. By default nil.
    var credential: CredentialWording? { get }

    /// What its explanation of a failure (``ServiceExplanation/reason``) advises, in `reader`'s
    /// words; nil for the engine's. By default nil.
    func hint(reason: String, withCredential: Bool) -> String?

    /// What `reader browse` shows of it; nil when it has no screens. By default nil.
    var browse: BrowseCapability? { get }

    /// The kinds of answer its commands read, each with how `reader` shows it: the fuzz
    /// harnesses send every input through each. By default none.
    var answers: [ServiceAnswer] { get }

    /// How `reader status` says the service is read since its block page turned reader to its
    /// other route (``Service/detour(around:)``): "read through its Atom feeds". Nil for a generic sentence.
    var detourDescription: String? { get }
}

extension ServicePlugin {
    public var summary: String { name.rawValue }
    public var commands: [any ParsableCommand.Type] { [] }
    public var examples: [String] { [] }
    public var configExample: String? { nil }
    public var sync: SyncCapability? { nil }
    public var credential: CredentialWording? { nil }
    public func hint(reason: String, withCredential: Bool) -> String? { nil }
    public var browse: BrowseCapability? { nil }
    public var detourDescription: String? { nil }
    public var answers: [ServiceAnswer] { [] }
}

/// What `reader sync NAME [ARGUMENTS…]` does for a service.
public struct SyncCapability: Sendable {
    /// How the usage shows it: `swapi`, `reddit SUBREDDIT…`.
    public var usage: String
    /// How a sentence says it: `swapi`, `reddit followed by subreddit names`.
    public var description: String
    /// What it syncs, for the command's abstract: "all of SWAPI".
    public var summary: String
    /// What it does, for the command's help: "'swapi' reads every page and …".
    public var explanation: String
    /// What a sync without arguments syncs of it, for the help: "SWAPI when [sync] swapi = true".
    public var configuredHelp: String
    /// A command line's arguments that sync it: `swapi`, `reddit swift rust`.
    public var example: String
    /// What to say when it takes arguments and none was given ("reddit needs at least one
    /// subreddit name, such as 'reddit swift'"); nil when it takes none.
    public var argumentsNeeded: String?
    /// Checks one argument and makes it canonical.
    public var argument: @Sendable (String) throws(ReaderError) -> String
    /// The most arguments one sync takes, and what to say beyond them; nil for no limit.
    public var maximumArguments: (count: Int, refusal: String)?
    /// What a sync without arguments syncs, from the settings: nil when they name nothing.
    public var configured: @Sendable (ServiceSettings) -> [String]?
    /// The config file's lines that name something to sync: `[sync] swapi = true`.
    public var configExample: String
    /// Syncs it.
    public var run: @Sendable (ReaderClient, [String], LoadOptions, ProgressHandler?) async throws(ReaderError) -> SyncReport

    public init(usage: String, description: String, summary: String, explanation: String, configuredHelp: String, example: String,
                argumentsNeeded: String? = nil,
                argument: @escaping @Sendable (String) throws(ReaderError) -> String = { $0 },
                maximumArguments: (count: Int, refusal: String)? = nil,
                configured: @escaping @Sendable (ServiceSettings) -> [String]?, configExample: String,
                run: @escaping @Sendable (ReaderClient, [String], LoadOptions, ProgressHandler?) async throws(ReaderError) -> SyncReport) {
        self.usage = usage
        self.description = description
        self.summary = summary
        self.explanation = explanation
        self.configuredHelp = configuredHelp
        self.example = example
        self.argumentsNeeded = argumentsNeeded
        self.argument = argument
        self.maximumArguments = maximumArguments
        self.configured = configured
        self.configExample = configExample
        self.run = run
    }
}

/// How `reader status` and the hints speak of a service's credential.
public struct CredentialWording: Sendable {
    /// Without a credential: "read anonymously (no READER_REDDIT_CLIENT_ID)".
    public var anonymous: String
    /// With one, before a token is held: "app identity set; no token held yet (…)".
    public var notYetHeld: String
    /// What to check when the credential is refused; `withoutSecret` says whether it has no secret.
    public var check: @Sendable (_ withoutSecret: Bool) -> String

    public init(anonymous: String, notYetHeld: String, check: @escaping @Sendable (_ withoutSecret: Bool) -> String) {
        self.anonymous = anonymous
        self.notYetHeld = notYetHeld
        self.check = check
    }
}
