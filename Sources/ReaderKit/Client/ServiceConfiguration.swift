import Foundation

/// Where the services are: their base URLs, read from the environment (``fromEnvironment(_:)``),
/// or from the config file and the environment as `reader` does (``resolve(environment:)``).
public struct ServiceConfiguration: Sendable, Equatable {
    /// The SWAPI base, `https://swapi.dev/api` unless `READER_SWAPI_URL` says otherwise.
    public var swapiBaseURL: URL
    /// The Reddit base, `https://www.reddit.com` unless `READER_REDDIT_URL` says otherwise.
    public var redditBaseURL: URL

    /// Where Reddit is read with a bearer token, `https://oauth.reddit.com` unless
    /// `READER_REDDIT_OAUTH_URL` says otherwise; used only with ``redditCredentials``.
    public var redditOAuthBaseURL: URL
    /// A Reddit app's identity; nil reads Reddit anonymously.
    public var redditCredentials: RedditCredentials?

    public static let defaultSWAPIURL = URL(string: "https://swapi.dev/api")!
    public static let defaultRedditURL = URL(string: "https://www.reddit.com")!
    public static let defaultRedditOAuthURL = URL(string: "https://oauth.reddit.com")!

    public init(swapiBaseURL: URL = defaultSWAPIURL, redditBaseURL: URL = defaultRedditURL,
                redditOAuthBaseURL: URL = defaultRedditOAuthURL, redditCredentials: RedditCredentials? = nil) {
        self.swapiBaseURL = swapiBaseURL
        self.redditBaseURL = redditBaseURL
        self.redditOAuthBaseURL = redditOAuthBaseURL
        self.redditCredentials = redditCredentials
    }

    /// Reads `READER_SWAPI_URL`, `READER_REDDIT_URL`, `READER_REDDIT_OAUTH_URL`,
    /// `READER_REDDIT_CLIENT_ID` and `READER_REDDIT_CLIENT_SECRET`.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when a URL is not http(s) with a host,
    ///   holds a user name or password, or has a port outside 1…65535, or a credential cannot be
    ///   one (the message names the variable, never its value if secret).
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> ServiceConfiguration {
        ServiceConfiguration(
            swapiBaseURL: try baseURL(environment["READER_SWAPI_URL"], variable: "READER_SWAPI_URL", default: defaultSWAPIURL),
            redditBaseURL: try baseURL(environment["READER_REDDIT_URL"], variable: "READER_REDDIT_URL", default: defaultRedditURL),
            redditOAuthBaseURL: try baseURL(environment["READER_REDDIT_OAUTH_URL"], variable: "READER_REDDIT_OAUTH_URL",
                                            default: defaultRedditOAuthURL),
            redditCredentials: try RedditCredentials.fromEnvironment(environment))
    }

    /// What `reader` uses: the config file's `[swapi]` and `[reddit]` values, with the environment
    /// variables of ``fromEnvironment(_:)`` over them (see ``ReaderSettings/load(environment:)``).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a broken config file, or as
    ///   ``fromEnvironment(_:)``.
    public static func resolve(environment: [String: String]) throws(ReaderError) -> ServiceConfiguration {
        try ReaderSettings.load(environment: environment).services
    }

    /// The base URL for `api`: for Reddit with credentials, the OAuth host.
    public func baseURL(for api: API) -> URL {
        switch api {
        case .swapi: swapiBaseURL
        case .reddit: redditCredentials == nil ? redditBaseURL : redditOAuthBaseURL
        }
    }

    static func baseURL(_ value: String?, variable: String, default fallback: URL) throws(ReaderError) -> URL {
        guard let value, !value.isEmpty else { return fallback }
        // A password in the variable is a secret: never shown, whatever else is wrong.
        let shown = TerminalText.sanitise(Origin.removingUserInfo(value), maxLength: 200)
        if let components = URLComponents(string: value), components.user != nil || components.password != nil {
            throw .invalidConfiguration("\(variable) holds a user name or password, which reader never sends: \"\(shown)\"")
        }
        guard let components = URLComponents(string: value),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil,
              !value.contains(where: { $0.isWhitespace })
        else {
            throw .invalidConfiguration("\(variable) is not an http or https URL with a host: \"\(shown)\"")
        }
        // Checked here, before SwiftNIO, which traps on a port that does not fit 16 bits.
        if case .outOfRange = Origin.port(of: components) {
            throw .invalidConfiguration("\(variable) has a port outside 1…65535: \"\(shown)\"")
        }
        var text = value
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text) else {
            throw .invalidConfiguration("\(variable) is not a valid URL: \"\(shown)\"")
        }
        return url
    }
}
