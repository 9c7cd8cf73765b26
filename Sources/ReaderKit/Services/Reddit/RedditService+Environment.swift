import Foundation

extension RedditService {
    /// `READER_REDDIT_URL`: where Reddit is read anonymously.
    public static let baseURLVariable = "READER_REDDIT_URL"
    /// `READER_REDDIT_OAUTH_URL`: where Reddit is read with an app's token.
    public static let oauthURLVariable = "READER_REDDIT_OAUTH_URL"
    /// `READER_REDDIT_CLIENT_ID`: a Reddit app's client id.
    public static let clientIDVariable = "READER_REDDIT_CLIENT_ID"
    /// `READER_REDDIT_CLIENT_SECRET`: the app's secret.
    public static let clientSecretVariable = "READER_REDDIT_CLIENT_SECRET"
    /// `READER_REDDIT_SOURCE`: `api`, `feed` or `auto` (``Reddit/Source``).
    public static let sourceVariable = "READER_REDDIT_SOURCE"
    /// `READER_REDDIT_FEED_USER`: the user whose private feed key is ``feedKeyVariable``'s.
    public static let feedUserVariable = "READER_REDDIT_FEED_USER"
    /// `READER_REDDIT_FEED_KEY`: a private feed key.
    public static let feedKeyVariable = "READER_REDDIT_FEED_KEY"

    public static var environmentVariables: [String] {
        [baseURLVariable, oauthURLVariable, clientIDVariable, clientSecretVariable, sourceVariable, feedUserVariable, feedKeyVariable]
    }

    /// Reddit where the environment says: its two addresses, a Reddit app's identity
    /// (``RedditCredentials/fromEnvironment(_:)``), the way it is read
    /// (``Reddit/Source/fromEnvironment(_:)``) and a private feed key
    /// (``RedditFeedKey/fromEnvironment(_:)``).
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> RedditService {
        RedditService(
            publicBaseURL: try ServiceConfiguration.baseURL(in: environment, variable: baseURLVariable, default: defaultBaseURL),
            oauthBaseURL: try ServiceConfiguration.baseURL(in: environment, variable: oauthURLVariable, default: defaultOAuthBaseURL),
            credentials: try RedditCredentials.fromEnvironment(environment),
            source: try Reddit.Source.fromEnvironment(environment),
            feedKey: try RedditFeedKey.fromEnvironment(environment))
    }
}

extension Reddit.Source {
    /// Reads `READER_REDDIT_SOURCE`; ``auto`` when it is not set.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for another word.
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> Reddit.Source {
        let variable = RedditService.sourceVariable
        guard let text = environment[variable], !text.isEmpty else { return .auto }
        guard let source = Reddit.Source(rawValue: text) else {
            throw .invalidConfiguration("\(variable) must be one of api, feed, auto, got \"\(TerminalText.sanitise(text, maxLength: 40))\"")
        }
        return source
    }
}
