import Foundation
import ReaderKit

/// What reader runs with, each value with where it came from: a flag over the environment over
/// the config file over the built-in default.
///
/// ``load(environment:)`` layers the built-in defaults, the ``ConfigFile`` and the environment;
/// the command line lays its flags over the result (``Setting/override(_:from:)``). A library
/// user who calls `load` gets what `reader` would run with, without flags.
///
/// ## Topics
/// - ``load(environment:)``
/// - ``builtIn``
/// - ``services``
/// - ``postFilter``
public struct ReaderSettings: Sendable, Equatable {
    /// Where a value came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case builtIn
        /// The config file at this path, the value set on this line (when known).
        case configFile(path: String, line: Int?)
        /// This environment variable.
        case environment(variable: String)
        /// This command-line flag, such as `--timeout`.
        case flag(String)

        /// `default`, `file`, `environment` or `flag`: for `--json`.
        public var kind: String {
            switch self {
            case .builtIn: "default"
            case .configFile: "file"
            case .environment: "environment"
            case .flag: "flag"
            }
        }

        /// `built-in`, `config file line 3`, `$READER_REDDIT_URL`, `--timeout`.
        public var description: String {
            switch self {
            case .builtIn: "built-in"
            case .configFile(_, let line?): "config file line \(line)"
            case .configFile: "config file"
            case .environment(let variable): "$" + variable
            case .flag(let name): name
            }
        }
    }

    /// One value and its source.
    public struct Setting<Value: Sendable & Equatable>: Sendable, Equatable {
        public var value: Value
        public var source: Source

        public init(_ value: Value, from source: Source) {
            self.value = value
            self.source = source
        }

        /// Replaces the value, from a layer that wins over the current one.
        public mutating func override(_ value: Value, from source: Source) {
            self.value = value
            self.source = source
        }
    }

    /// The deadline of a whole command (built-in: 20 s).
    public var timeout: Setting<Duration>
    /// At most this many more attempts of a retryable failure (built-in: 3).
    public var retries: Setting<Int>
    /// Cached data younger than this is fresh (built-in: none, the server's word).
    public var maximumAge: Setting<Duration?>
    /// Cached data older than this is never shown (built-in: none, any age).
    public var maximumStale: Setting<Duration?>
    /// Whether colour may be used where the terminal allows it (built-in: true).
    public var color: Setting<Bool>
    public var swapiURL: Setting<URL>
    public var redditURL: Setting<URL>
    public var redditOAuthURL: Setting<URL>
    /// The Reddit app; nil reads anonymously. The id and the secret always come from one layer.
    public var redditCredentials: Setting<RedditCredentials?>
    /// Where the secret of ``redditCredentials`` was taken from, or looked for when there is none:
    /// the same layer as the id, but its own variable or line (built-in: ``Source/builtIn``).
    public var redditClientSecretSource: Source = .builtIn
    /// What `reader posts` reads without a subreddit (joined with `+`), and what `reader sync`
    /// syncs without arguments.
    public var subreddits: Setting<[String]>
    /// Whether `reader sync` without arguments syncs SWAPI.
    public var syncSWAPI: Setting<Bool>
    public var hiddenSubreddits: Setting<[String]>
    public var hiddenWords: Setting<[String]>
    /// Where the config file is looked for; nil without `$XDG_CONFIG_HOME` or `$HOME`.
    public var configFilePath: String?
    /// Whether a config file was found there.
    public var configFileFound = false

    /// The built-in defaults.
    public static let builtIn = ReaderSettings(
        timeout: Setting(.seconds(20), from: .builtIn), retries: Setting(RetryPolicy.default.maximumRetries, from: .builtIn),
        maximumAge: Setting(nil, from: .builtIn), maximumStale: Setting(nil, from: .builtIn), color: Setting(true, from: .builtIn),
        swapiURL: Setting(SWAPIService.defaultBaseURL, from: .builtIn),
        redditURL: Setting(RedditService.defaultBaseURL, from: .builtIn),
        redditOAuthURL: Setting(RedditService.defaultOAuthBaseURL, from: .builtIn),
        redditCredentials: Setting(nil, from: .builtIn), subreddits: Setting([], from: .builtIn),
        syncSWAPI: Setting(false, from: .builtIn), hiddenSubreddits: Setting([], from: .builtIn),
        hiddenWords: Setting([], from: .builtIn))

    /// The built-in defaults, then the config file (``ConfigFile/path(environment:)``), then
    /// the environment (`READER_SWAPI_URL`, `READER_REDDIT_URL`, `READER_REDDIT_OAUTH_URL`,
    /// `READER_REDDIT_CLIENT_ID` with `READER_REDDIT_CLIENT_SECRET`, `NO_COLOR`, `TERM=dumb`).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a config file that cannot be read
    ///   or is wrong (see ``ConfigFile/read(atPath:)``), or an environment variable that is.
    public static func load(environment: [String: String]) throws(ReaderError) -> ReaderSettings {
        var settings = builtIn
        settings.configFilePath = ConfigFile.path(environment: environment)
        if let path = settings.configFilePath, let file = try ConfigFile.read(atPath: path) {
            settings.configFileFound = true
            settings.apply(file)
        }
        try settings.apply(environment: environment)
        return settings
    }

    /// Lays the file's values over these.
    public mutating func apply(_ file: ConfigFile) {
        func source(_ key: String) -> Source { .configFile(path: file.path, line: file.lines[key]) }
        if let value = file.timeout { timeout.override(value, from: source("timeout")) }
        if let value = file.retries { retries.override(value, from: source("retries")) }
        if let value = file.maximumAge { maximumAge.override(value, from: source("max-age")) }
        if let value = file.maximumStale { maximumStale.override(value, from: source("max-stale")) }
        if let value = file.color { color.override(value, from: source("color")) }
        if let value = file.swapiURL { swapiURL.override(value, from: source("swapi.url")) }
        if let value = file.redditURL { redditURL.override(value, from: source("reddit.url")) }
        if let value = file.redditOAuthURL { redditOAuthURL.override(value, from: source("reddit.oauth-url")) }
        if let value = file.redditCredentials {
            redditCredentials.override(value, from: source("reddit.client-id"))
            redditClientSecretSource = source("reddit.client-secret")
        }
        if let value = file.subreddits { subreddits.override(value, from: source("reddit.subreddits")) }
        if let value = file.syncSWAPI { syncSWAPI.override(value, from: source("sync.swapi")) }
        if let value = file.hiddenSubreddits { hiddenSubreddits.override(value, from: source("reddit.hide-subreddits")) }
        if let value = file.hiddenWords { hiddenWords.override(value, from: source("reddit.hide-words")) }
    }

    /// Lays the environment's values over these. An empty variable is as good as unset.
    public mutating func apply(environment: [String: String]) throws(ReaderError) {
        let urls: [(String, WritableKeyPath<ReaderSettings, Setting<URL>>)] = [
            ("READER_SWAPI_URL", \.swapiURL), ("READER_REDDIT_URL", \.redditURL), ("READER_REDDIT_OAUTH_URL", \.redditOAuthURL)]
        for (variable, keyPath) in urls {
            guard let text = environment[variable], !text.isEmpty else { continue }
            let url = try ServiceConfiguration.baseURL(text, variable: variable, default: self[keyPath: keyPath].value)
            self[keyPath: keyPath].override(url, from: .environment(variable: variable))
        }
        // A secret belongs to its id: the two are never taken from two layers.
        let idSet = !(environment["READER_REDDIT_CLIENT_ID"] ?? "").isEmpty
        let secretSet = !(environment["READER_REDDIT_CLIENT_SECRET"] ?? "").isEmpty
        if idSet || secretSet {
            redditCredentials.override(try RedditCredentials.fromEnvironment(environment),
                                       from: .environment(variable: idSet ? "READER_REDDIT_CLIENT_ID" : "READER_REDDIT_CLIENT_SECRET"))
            redditClientSecretSource = .environment(variable: "READER_REDDIT_CLIENT_SECRET")
        }
        if let value = environment["NO_COLOR"], !value.isEmpty {
            color.override(false, from: .environment(variable: "NO_COLOR"))
        } else if environment["TERM"] == "dumb" {
            color.override(false, from: .environment(variable: "TERM"))
        }
    }

    /// The services' addresses and the Reddit app, for ``ReaderClient/Configuration``.
    public var services: ServiceConfiguration {
        ServiceConfiguration([
            SWAPIService(baseURL: swapiURL.value),
            RedditService(publicBaseURL: redditURL.value, oauthBaseURL: redditOAuthURL.value, credentials: redditCredentials.value),
        ])
    }

    /// The posts the config file hides.
    public var postFilter: PostFilter {
        PostFilter(hiddenSubreddits: hiddenSubreddits.value, hiddenWords: hiddenWords.value)
    }
}
