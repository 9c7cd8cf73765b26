import Foundation

/// A JSON API that ReaderKit reads: everything the pipeline needs to know about it, and nothing
/// the pipeline assumes.
///
/// ``ReaderClient``, ``ResponseValidator``, ``ErrorHandler`` and ``ResponseCache`` name no
/// service. Each API is a value of a type conforming to `Service`, registered in a
/// ``ServiceConfiguration``; its endpoints (``Endpoint``) name it by ``name``. Only ``name``,
/// ``baseURL`` and ``freshness`` must be given: every other requirement has a default that suits
/// a plain JSON API.
///
/// ```swift
/// struct HackerNews: Service {
///     var name: ServiceName = "hackernews"
///     var baseURL = URL(string: "https://hacker-news.firebaseio.com/v0")!
///     var freshness = FreshnessPolicy.Rule(defaultLifetime: .seconds(300))
///     func errorBody(in body: Data, status: Int) -> APIErrorBody? { … }  // {"error": "…"}
/// }
/// ```
///
/// The pipeline asks a service, in the order a request lives:
/// 1. ``adapt(_:)`` — its User-Agent, a path suffix, fixed query items — before the cache key is
///    made, so that the key is the URL actually asked for;
/// 2. ``authenticator`` — a credential added for its origin only, renewed once on a refusal;
/// 3. ``failure(redirectedTo:from:)`` — a redirect that is an answer (Reddit's "not found");
/// 4. ``rateLimit(in:)`` — how many requests remain and when the window resets, within
///    ``rateLimitWindow``;
/// 5. ``errorBody(in:status:)`` — what its error bodies say (the `A` of a failure's message), and
///    ``isBlockPage(_:status:)`` — a page its firewall sends in place of any answer;
/// 6. ``explanation(of:)`` — what a failure means in the service's own words.
public protocol Service: Sendable {
    /// The name its cache entries, statistics and rate limits are kept under, and that
    /// ``Endpoint/service`` names. Entries stored under another name are not found: keep it.
    var name: ServiceName { get }
    /// Where its endpoints' paths are resolved, such as `https://swapi.dev/api`.
    var baseURL: URL { get }
    /// Its freshness settings: its heuristic lifetime, and any floor under `max-age` (a departure
    /// from RFC 9111); ``FreshnessPolicy`` applies them where the RFC allows.
    var freshness: FreshnessPolicy.Rule { get }

    /// Adapts a request before its URL is made and it is sent: headers such as the User-Agent,
    /// a path suffix, fixed query items. By default, nothing.
    func adapt(_ request: inout ServiceRequest)

    /// What an error body says: the server's reason, message and the status it claims, or nil
    /// when `body` is not one of the service's error shapes. Called for every answer outside
    /// 2xx and for a 2xx answer that does not decode (an error envelope). By default,
    /// ``APIErrorBody/recognise(_:)``, which reads the common shapes.
    func errorBody(in body: Data, status: Int) -> APIErrorBody?

    /// The rate limit an answer's headers announce, or nil when they announce none. By default
    /// nil; ``RateLimitAnnouncement/xRatelimit(_:)`` reads the `X-Ratelimit-Remaining` and
    /// `X-Ratelimit-Reset` (seconds) headers Reddit sends.
    func rateLimit(in headers: HeaderFields) -> RateLimitAnnouncement?

    /// The longest a rate limit's window lasts: a reset announced (or stored) further away is a
    /// mistake, and is read as this far. By default an hour.
    var rateLimitWindow: Duration { get }

    /// Whether a failed answer's body (its first 64 KB), which is none of its error bodies, is a
    /// page of the site's firewall refusing this client rather than an answer. A refusal of the
    /// client is never retried, and its hint is the service's. By default false.
    func isBlockPage(_ body: Data, status: Int) -> Bool

    /// The failure a redirect means, when the service answers with a redirect (Reddit sends a
    /// subreddit that does not exist to its search page): nil follows it, within the rules of
    /// ``Origin/redirect(from:to:)``. By default nil.
    func failure(redirectedTo location: URL, from url: URL) -> StatusFailure?

    /// What a status failure means in the service's own words (a 403 that is a private
    /// subreddit), or nil for the generic wording. By default nil.
    func explanation(of failure: StatusFailure) -> ServiceExplanation?

    /// Who adds a credential to the service's requests, or nil for none. By default nil.
    var authenticator: (any Authenticator)? { get }

    /// A cheap request that says whether the service answers (``ReaderClient/checkConnectivity(of:timeout:)``).
    /// By default its base URL.
    var probe: Endpoint<JSONValue> { get }

    /// Another route to what `request` asks for, taken when the service answers `request` with
    /// its block page (``isBlockPage(_:status:)``): the same data in another format, read by a
    /// ``ResponseTranslation`` into the JSON the endpoint decodes (Reddit's Atom feeds for its
    /// JSON listings). The load goes that way at once, in the same run, and every load of the
    /// service at that origin goes that way for ``detourMemory``. Nil when there is none, or the
    /// service would not take it (by default).
    func detour(around request: ServiceRequest) -> ServiceRequest?

    /// How long an origin that answered with its block page is read by ``detour(around:)`` at
    /// once, without asking the first route again. By default a day.
    var detourMemory: Duration { get }

    /// What a person is told, once, when the service's block page turns a load to its other
    /// route: what that route lacks. By default a generic sentence.
    var detourNotice: String { get }

    /// Secrets the service's requests carry besides its authenticator's (a key in the query,
    /// ``ServiceRequest/secretQuery``), in every form a server might echo them: never shown in a
    /// message or a log. By default none.
    var secrets: Set<String> { get }
}

extension Service {
    public func adapt(_ request: inout ServiceRequest) {}

    public func errorBody(in body: Data, status: Int) -> APIErrorBody? { APIErrorBody.recognise(body) }

    public func rateLimit(in headers: HeaderFields) -> RateLimitAnnouncement? { nil }

    public var rateLimitWindow: Duration { .seconds(3600) }

    public func isBlockPage(_ body: Data, status: Int) -> Bool { false }

    public func failure(redirectedTo location: URL, from url: URL) -> StatusFailure? { nil }

    public func explanation(of failure: StatusFailure) -> ServiceExplanation? { nil }

    public var authenticator: (any Authenticator)? { nil }

    public var probe: Endpoint<JSONValue> { Endpoint(service: name, path: "") }

    public func detour(around request: ServiceRequest) -> ServiceRequest? { nil }

    public var detourMemory: Duration { .seconds(24 * 3600) }

    public var secrets: Set<String> { [] }

    public var detourNotice: String { "\(name) answered with its block page: reading it by its other route instead" }
}

/// A service's name: lowercase ASCII letters, digits and `-`, starting with a letter, at most 32
/// characters (`swapi`, `reddit`, `hackernews`).
///
/// It keys the cache and is shown in messages and in `--json`, so it is checked where it is made:
/// a name read from a cache file or a command line that is not one is nil, never an error later.
public struct ServiceName: RawRepresentable, Hashable, Comparable, Sendable, Codable, CustomStringConvertible,
                           ExpressibleByStringLiteral {
    public let rawValue: String

    /// The name, or nil when `rawValue` is not one.
    public init?(rawValue: String) {
        guard Self.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A name written in the program. A literal that is not a valid name is a programming error.
    public init(stringLiteral value: String) {
        precondition(Self.isValid(value), "\"\(value)\" is not a service name: lowercase letters, digits and -, from a letter, at most 32")
        rawValue = value
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let name = ServiceName(rawValue: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a service name"))
        }
        self = name
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func < (lhs: ServiceName, rhs: ServiceName) -> Bool { lhs.rawValue < rhs.rawValue }

    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), bytes.count <= 32 else { return false }
        return bytes.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }
}

/// A request as a service adapts it (``Service/adapt(_:)``), before its URL is made.
public struct ServiceRequest: Sendable, Equatable {
    /// The path below the base URL, such as `r/swift/hot.json`.
    public var path: String
    /// The query, in order.
    public var query: [URLQueryItem]
    /// The headers sent; `Accept: application/json` and ReaderKit's User-Agent are already there.
    public var headers: HeaderFields
    /// Query items that are a secret (an API key, a private feed's key): sent only to the
    /// request's own origin (never after a redirect elsewhere), and never part of the cache's
    /// key, the stored URL, a log line or a message.
    public var secretQuery: [URLQueryItem]
    /// Query items added to the cache's key only, never sent: what keeps apart the answers of
    /// requests whose URLs are the same but whose ``secretQuery`` makes them differ (a private
    /// feed is its user's own), by a fingerprint of the secret that does not reveal it. Another
    /// secret, or none, is another key: a copy is never served to a request it was not read for.
    public var cacheKeyQuery: [URLQueryItem]
    /// How the answer is read when it is not JSON (``ResponseTranslation``); nil for JSON.
    public var translation: ResponseTranslation?

    public init(path: String, query: [URLQueryItem], headers: HeaderFields, secretQuery: [URLQueryItem] = [],
                cacheKeyQuery: [URLQueryItem] = [], translation: ResponseTranslation? = nil) {
        self.path = path
        self.query = query
        self.headers = headers
        self.secretQuery = secretQuery
        self.cacheKeyQuery = cacheKeyQuery
        self.translation = translation
    }

    /// The values of ``secretQuery``: what is redacted wherever the request's URL is shown.
    var secrets: [String] { secretQuery.compactMap(\.value).filter { !$0.isEmpty } }
}

/// What an answer's headers say of a rate limit.
public struct RateLimitAnnouncement: Sendable, Equatable {
    /// Requests left in the current window.
    public var remaining: Double
    /// Seconds until the window resets.
    public var secondsUntilReset: Double
    /// Requests used in the current window, when the server says; with ``remaining``, the
    /// window's whole limit (``limit``).
    public var used: Double?

    /// An announcement; nil when a number is not finite or the reset is negative. A `used` that
    /// is not a finite count is left out.
    public init?(remaining: Double, secondsUntilReset: Double, used: Double? = nil) {
        guard remaining.isFinite, secondsUntilReset.isFinite, secondsUntilReset >= 0 else { return nil }
        self.remaining = remaining
        self.secondsUntilReset = secondsUntilReset
        self.used = used.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }

    /// The window's whole limit, used and remaining, when the server says how many were used.
    public var limit: Double? {
        guard let used, remaining >= 0 else { return nil }
        let limit = used + remaining
        return limit.isFinite && limit > 0 ? limit : nil
    }

    /// Reads `X-Ratelimit-Remaining`, `X-Ratelimit-Reset` (seconds until the reset) and
    /// `X-Ratelimit-Used`, as Reddit sends them; nil when the first two are absent or unreadable.
    public static func xRatelimit(_ headers: HeaderFields) -> RateLimitAnnouncement? {
        guard let remaining = headers["X-Ratelimit-Remaining"].flatMap(OutsideNumbers.decimal),
              let reset = headers["X-Ratelimit-Reset"].flatMap(OutsideNumbers.decimal) else { return nil }
        return RateLimitAnnouncement(remaining: remaining, secondsUntilReset: reset,
                                     used: headers["X-Ratelimit-Used"].flatMap(OutsideNumbers.decimal))
    }
}

/// What a status failure means, in the service's words (``Service/explanation(of:)``).
public struct ServiceExplanation: Sendable, Equatable {
    /// A stable name for scripts, such as `private` or `banned` (`--json`'s `reason`).
    public var reason: String
    /// What happened, such as "r/secret is private: only its approved members can read it".
    public var message: String
    /// What can be done about it (a ``Hint/service(_:reason:withCredential:text:)``); nil for
    /// the hint the status has without the service's words.
    public var hint: String?
    /// What can be done about it when the request carried the service's credential (then
    /// "get a credential" is no hint); nil for ``hint``.
    public var hintWithCredential: String?
    /// What the failure means for many requests at once (a sync's summary), without the details
    /// of one; nil for the generic wording.
    public var summary: String?

    public init(reason: String, message: String, hint: String? = nil, hintWithCredential: String? = nil,
                summary: String? = nil) {
        self.reason = reason
        self.message = message
        self.hint = hint
        self.hintWithCredential = hintWithCredential
        self.summary = summary
    }
}
