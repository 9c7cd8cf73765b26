import Foundation

/// Where a loaded value came from and how old it is.
public struct LoadMetadata: Sendable, Equatable, Codable {
    public enum Source: String, Sendable, Codable {
        /// A new body from the network.
        case network
        /// The cached copy, without the network.
        case cache
        /// The cached copy, confirmed unchanged by the network with a `304 Not Modified`.
        case revalidated
    }

    /// How a cached copy answered without the network (``Source/cache``).
    public enum CachedAnswer: String, Sendable, Codable {
        /// The HTTP cache: the copy is fresh (RFC 9111 §4.2).
        case fresh
        /// The HTTP cache: stale within the server's `stale-while-revalidate`; it is revalidated
        /// behind the answer (RFC 5861).
        case staleWhileRevalidate = "stale-while-revalidate"
        /// The HTTP cache: stale within the server's `stale-if-error`, in place of a failure (RFC 5861).
        case staleIfError = "stale-if-error"
        /// The history (RFC 9111 §6): what was read before, shown offline or in place of a failure,
        /// with its age; never a fresh answer.
        case history
    }

    /// What the HTTP cache judged of the stored response: its current age and freshness lifetime
    /// (RFC 9111 §4.2), and the header fields they come from.
    public struct HTTPCacheState: Sendable, Equatable, Codable {
        /// The copy's current age in seconds (§4.2.3), counting `Age` and `Date`.
        public var currentAgeSeconds: Int
        /// How long it is fresh, in seconds (§4.2.1).
        public var freshnessLifetimeSeconds: Int
        /// What gave the lifetime.
        public var lifetimeFrom: FreshnessPolicy.LifetimeBasis
        /// The stored header fields that matter: validators, `Cache-Control`, `Expires`, `Date`,
        /// `Last-Modified`, `Age` and `Vary`, by their lowercased names; absent ones are left out.
        public var headers: [String: String]

        enum CodingKeys: String, CodingKey {
            case currentAgeSeconds = "current_age_seconds"
            case freshnessLifetimeSeconds = "freshness_lifetime_seconds"
            case lifetimeFrom = "lifetime_from"
            case headers
        }

        /// What `policy` judges of `entry` at `now`, under its service's `rule`; text from the
        /// server kept as it came (the renderer sanitises it before a terminal).
        public init(_ entry: CacheEntry, policy: FreshnessPolicy, rule: FreshnessPolicy.Rule, at now: Date) {
            let lifetime = policy.freshnessLifetime(of: entry, rule: rule)
            currentAgeSeconds = OutsideNumbers.wholeSeconds(FreshnessPolicy.currentAge(of: entry, at: now))
            freshnessLifetimeSeconds = OutsideNumbers.wholeSeconds(lifetime.seconds)
            lifetimeFrom = lifetime.basis
            headers = entry.storedHeaders
        }
    }

    public var source: Source
    /// Whether the data is older than its freshness lifetime.
    public var stale: Bool
    public var fetchedAt: Date
    public var ageSeconds: Int
    /// The code of the error that made a stale copy be served, if one did.
    public var errorCode: ErrorCode?
    public var url: String
    /// How a cached copy answered (``Source/cache`` only): fresh, within `stale-while-revalidate`
    /// or `stale-if-error`, or as history.
    public var servedAs: CachedAnswer? = nil
    /// What the HTTP cache judged of the copy that answered; nil for several pages together.
    public var httpCache: HTTPCacheState? = nil

    enum CodingKeys: String, CodingKey {
        case source, stale, url
        case fetchedAt = "fetched_at"
        case ageSeconds = "age_seconds"
        case errorCode = "error_code"
        case servedAs = "served_as"
        case httpCache = "http_cache"
    }

    /// Fills ``httpCache`` from `entry`, as `policy` judges it at `now`.
    mutating func describe(_ entry: CacheEntry, policy: FreshnessPolicy, rule: FreshnessPolicy.Rule, at now: Date) {
        httpCache = HTTPCacheState(entry, policy: policy, rule: rule, at: now)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(stale, forKey: .stale)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(errorCode, forKey: .errorCode)  // null when none, so scripts can rely on the key
        try container.encode(url, forKey: .url)
        // null when they do not apply, so scripts can rely on the keys.
        try container.encode(servedAs, forKey: .servedAs)
        try container.encode(httpCache, forKey: .httpCache)
    }
}
