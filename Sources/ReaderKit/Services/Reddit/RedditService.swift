import Foundation

/// Reddit as a ``Service``: its public JSON (`https://www.reddit.com`, `.json` paths) read
/// anonymously, or its OAuth host (`https://oauth.reddit.com`, the same paths without `.json`)
/// with an app's identity (``RedditCredentials``, turned into a bearer token by its
/// ``RedditAuthenticator``).
///
/// Its rules: the User-Agent Reddit asks of API clients; `X-Ratelimit-*` headers; a subreddit
/// that does not exist is a redirect to its search page, which means "not found"; its 403s and
/// 404s say more than their status (private, quarantined, banned); answers fresh for a minute at
/// least, whatever its `max-age=0` says, so that the same command twice costs one request.
public struct RedditService: BuiltInService {
    /// `reddit`: the name its cache entries are kept under.
    public static let name: ServiceName = "reddit"
    /// `https://www.reddit.com`.
    public static let defaultBaseURL = URL(string: "https://www.reddit.com")!
    /// `https://oauth.reddit.com`.
    public static let defaultOAuthBaseURL = URL(string: "https://oauth.reddit.com")!

    public var name: ServiceName { Self.name }
    /// Where Reddit is read anonymously, and where its token endpoint is.
    public var publicBaseURL: URL
    /// Where Reddit is read with a bearer token; used only with ``credentials``.
    public var oauthBaseURL: URL
    /// A Reddit app's identity; nil reads Reddit anonymously.
    public var credentials: RedditCredentials?
    /// Its freshness settings; ``defaultFreshness`` unless given.
    public var freshness: FreshnessPolicy.Rule
    /// Which way Reddit is read: its JSON API, its Atom feeds, or the API until it turns reader
    /// away (``Reddit/Source/auto``, the default).
    public var source: Reddit.Source
    /// A signed-in user's private feed key (reddit.com/prefs/feeds) and that user's name: every
    /// feed request carries them (to Reddit's origin only), which lifts the rate limit anonymous
    /// feed readers meet and makes the front page's feed that user's own. A secret.
    public var feedKey: RedditFeedKey?

    /// Reddit's freshness settings: a heuristic of a minute, and a floor of a minute
    /// (``FreshnessPolicy/Rule/minimumLifetime``) on the `max-age=0, must-revalidate` it sends on
    /// everything. The floor is a deliberate departure from RFC 9111 §4.2.4: Reddit rate-limits
    /// anonymous clients hard, and running the same command twice should not cost a request.
    /// A rule with no floor keeps to the RFC.
    public static let defaultFreshness = FreshnessPolicy.Rule(defaultLifetime: .seconds(60), minimumLifetime: .seconds(60))

    /// Reddit at its public addresses, read anonymously.
    public init() { self.init(publicBaseURL: Self.defaultBaseURL) }

    public init(publicBaseURL: URL = defaultBaseURL, oauthBaseURL: URL = defaultOAuthBaseURL, credentials: RedditCredentials? = nil,
                freshness: FreshnessPolicy.Rule = defaultFreshness, source: Reddit.Source = .auto, feedKey: RedditFeedKey? = nil) {
        self.publicBaseURL = publicBaseURL
        self.oauthBaseURL = oauthBaseURL
        self.credentials = credentials
        self.freshness = freshness
        self.source = source
        self.feedKey = feedKey
    }

    /// Whether requests go with the app's token: an identity is set, and the feeds are not chosen.
    var usesToken: Bool { credentials != nil && source != .feed }

    /// The OAuth host with credentials, the public site without (and for the feeds).
    public var baseURL: URL { usesToken ? oauthBaseURL : publicBaseURL }

    public func adapt(_ request: inout ServiceRequest) {
        request.headers.remove("User-Agent")
        request.headers.add("User-Agent", Reddit.userAgent)
        // The OAuth host serves the same listings without the `.json` the public site needs.
        if usesToken, request.path.hasSuffix(".json") { request.path.removeLast(5) }
        // A feed read with a key is that user's own (their front page): its copy is kept under a
        // key of its own, by the key's fingerprint, never served to another key or to none. Every
        // anonymous request is so kept, the API's too: in `auto` the feed's answer is stored
        // under the API request's key. With the app's token no request carries the feed key.
        if !usesToken, let feedKey { request.cacheKeyQuery = [URLQueryItem(name: RedditFeedKey.fingerprintName, value: feedKey.fingerprint)] }
        if source == .feed, let feed = RedditFeed.request(for: request, key: feedKey?.key, user: feedKey?.user) { request = feed }
    }

    /// The feed of the same listing, when Reddit's JSON API answers an anonymous reader with its
    /// block page (``Reddit/Source/auto`` without an app identity).
    public func detour(around request: ServiceRequest) -> ServiceRequest? {
        guard source == .auto, credentials == nil else { return nil }
        return RedditFeed.request(for: request, key: feedKey?.key, user: feedKey?.user)
    }

    public var detourNotice: String {
        "Reddit's JSON API turned this anonymous reader away (its block page): reading Reddit's Atom feeds instead, for the next 24 hours; they give no scores, no comment counts and no nesting of comments"
    }

    /// The feed key, as sent and as a server may echo it (percent-encoded).
    public var secrets: Set<String> {
        guard let key = feedKey?.key else { return [] }
        return [key, Endpoint<JSONValue>.percentEncode(key)]
    }

    public func rateLimit(in headers: HeaderFields) -> RateLimitAnnouncement? {
        RateLimitAnnouncement.xRatelimit(headers)
    }

    /// Reddit's window is ten minutes: a reset announced further away is a mistake.
    public var rateLimitWindow: Duration { .seconds(600) }

    /// Reddit's error bodies, with the explanation a quarantined subreddit's carries.
    public func errorBody(in body: Data, status: Int) -> APIErrorBody? {
        guard var answer = APIErrorBody.recognise(body) else { return nil }
        struct Quarantine: Decodable { var quarantine_message: String? }
        answer.explanation = (try? JSONDecoder().decode(Quarantine.self, from: body))?.quarantine_message
        return answer
    }

    /// "You've been blocked by network security" (earlier "Your request has been blocked due to a
    /// network policy"): what Reddit sends readers it does not let in anonymously.
    public func isBlockPage(_ body: Data, status: Int) -> Bool {
        let head = String(decoding: body, as: UTF8.self).lowercased()
        return head.contains("blocked by network security") || head.contains("blocked due to a network policy")
    }

    /// Reddit answers a subreddit that does not exist with a redirect to its search page: that is
    /// "not found", not a page to follow.
    public func failure(redirectedTo location: URL, from url: URL) -> StatusFailure? {
        let parts = location.path.split(separator: "/")
        guard parts.count == 2, parts[0] == "subreddits", parts[1] == "search" || parts[1] == "search.json" else { return nil }
        return StatusFailure(status: 404, url: url.absoluteString, apiError: APIErrorBody(
            reason: "not_found", message: "there is no subreddit by that name", statusInBody: 404))
    }

    public func explanation(of failure: StatusFailure) -> ServiceExplanation? {
        RedditAnswer(failure).map {
            ServiceExplanation(reason: $0.reason, message: $0.message, hint: $0.hint,
                               hintWithCredential: $0.hintWithAppIdentity,
                               summary: failure.isBlockPage
                                   ? "Reddit's network security blocked the requests" : nil)
        }
    }

    /// One post of the front page.
    public var probe: Endpoint<JSONValue> { Reddit.probe }

    public var authenticator: (any Authenticator)? {
        guard usesToken, let credentials, let origin = Origin(oauthBaseURL) else { return nil }
        return RedditAuthenticator(credentials: credentials, origin: origin, publicBaseURL: publicBaseURL)
    }
}
