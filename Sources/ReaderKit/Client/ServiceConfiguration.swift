import Foundation

/// Where the services are: their base URLs, read from the environment.
public struct ServiceConfiguration: Sendable, Equatable {
    /// The SWAPI base, `https://swapi.dev/api` unless `READER_SWAPI_URL` says otherwise.
    public var swapiBaseURL: URL
    /// The Reddit base, `https://www.reddit.com` unless `READER_REDDIT_URL` says otherwise.
    public var redditBaseURL: URL

    public static let defaultSWAPIURL = URL(string: "https://swapi.dev/api")!
    public static let defaultRedditURL = URL(string: "https://www.reddit.com")!

    public init(swapiBaseURL: URL = defaultSWAPIURL, redditBaseURL: URL = defaultRedditURL) {
        self.swapiBaseURL = swapiBaseURL
        self.redditBaseURL = redditBaseURL
    }

    /// Reads `READER_SWAPI_URL` and `READER_REDDIT_URL`.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when a value is not an http(s) URL with a host.
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> ServiceConfiguration {
        ServiceConfiguration(
            swapiBaseURL: try baseURL(environment["READER_SWAPI_URL"], variable: "READER_SWAPI_URL", default: defaultSWAPIURL),
            redditBaseURL: try baseURL(environment["READER_REDDIT_URL"], variable: "READER_REDDIT_URL", default: defaultRedditURL))
    }

    /// The base URL for `api`.
    public func baseURL(for api: API) -> URL {
        switch api {
        case .swapi: swapiBaseURL
        case .reddit: redditBaseURL
        }
    }

    static func baseURL(_ value: String?, variable: String, default fallback: URL) throws(ReaderError) -> URL {
        guard let value, !value.isEmpty else { return fallback }
        let shown = TerminalText.sanitise(value, maxLength: 200)
        guard let components = URLComponents(string: value),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil, components.user == nil,
              !value.contains(where: { $0.isWhitespace })
        else {
            throw .invalidConfiguration("\(variable) is not an http or https URL with a host: \"\(shown)\"")
        }
        var text = value
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text) else {
            throw .invalidConfiguration("\(variable) is not a valid URL: \"\(shown)\"")
        }
        return url
    }
}
