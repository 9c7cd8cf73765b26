import Foundation

extension ServiceConfiguration {
    /// SWAPI and Reddit at their public addresses, Reddit read anonymously.
    public static let builtIn = ServiceConfiguration([SWAPIService(), RedditService()])

    /// SWAPI and Reddit, where the environment says: `READER_SWAPI_URL`, `READER_REDDIT_URL`,
    /// `READER_REDDIT_OAUTH_URL`, a Reddit app's `READER_REDDIT_CLIENT_ID` and
    /// `READER_REDDIT_CLIENT_SECRET`, `READER_REDDIT_SOURCE` (`api`, `feed` or `auto`) and a
    /// private feed key's `READER_REDDIT_FEED_KEY` and `READER_REDDIT_FEED_USER`.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when a URL is not http(s) with a host,
    ///   holds a user name or password, or has a port outside 1…65535, or a credential cannot be
    ///   one (the message names the variable, never its value if secret).
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> ServiceConfiguration {
        ServiceConfiguration([
            SWAPIService(baseURL: try baseURL(in: environment, variable: "READER_SWAPI_URL", default: SWAPIService.defaultBaseURL)),
            RedditService(
                publicBaseURL: try baseURL(in: environment, variable: "READER_REDDIT_URL", default: RedditService.defaultBaseURL),
                oauthBaseURL: try baseURL(in: environment, variable: "READER_REDDIT_OAUTH_URL", default: RedditService.defaultOAuthBaseURL),
                credentials: try RedditCredentials.fromEnvironment(environment),
                source: try Reddit.Source.fromEnvironment(environment),
                feedKey: try RedditFeedKey.fromEnvironment(environment)),
        ])
    }
}

extension Reddit.Source {
    /// Reads `READER_REDDIT_SOURCE`; ``auto`` when it is not set.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for another word.
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> Reddit.Source {
        guard let text = environment["READER_REDDIT_SOURCE"], !text.isEmpty else { return .auto }
        guard let source = Reddit.Source(rawValue: text) else {
            throw .invalidConfiguration("READER_REDDIT_SOURCE must be one of api, feed, auto, got \"\(TerminalText.sanitise(text, maxLength: 40))\"")
        }
        return source
    }
}
