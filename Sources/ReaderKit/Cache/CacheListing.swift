import Foundation

/// One entry of the cache as `reader cache list` shows it: where it came from, how old it is by
/// RFC 9111, how long it is fresh, its validators and size, and which path may still use it.
public struct CacheListing: Sendable, Equatable, Encodable {
    /// What the entry is good for now.
    public enum State: String, Sendable, Equatable, Encodable {
        /// The HTTP cache answers with it without asking.
        case fresh
        /// The HTTP cache asks the server first (a conditional request with its validators, or
        /// within `stale-while-revalidate`); the history still shows it (unless it is a stored
        /// error answer, ``CacheListing/isStoredError``, which is never history).
        case stale
        /// The HTTP cache will not use it again (stale with nothing to revalidate with, or a
        /// response RFC 9111 does not let a cache reuse): only the history shows it.
        case historyOnly = "history-only"
    }

    /// The URL as requested (from the file: sanitise it before a terminal).
    public var url: String
    /// The service that answered.
    public var service: ServiceName
    /// The status of the stored answer.
    public var status: Int
    /// The body's size in bytes.
    public var bytes: Int
    /// When it arrived, or was last confirmed by a `304`.
    public var fetchedAt: Date
    /// What the HTTP cache judged of it: its current age, lifetime and stored header fields.
    public var httpCache: LoadMetadata.HTTPCacheState
    public var state: State
    /// Whether the entry is a stored error answer (``FreshnessPolicy/isStoredFailure(_:)``), not a
    /// copy of a resource: while ``State/fresh`` it answers as that failure; it is never history,
    /// so it is never ``State/historyOnly``, and its lifetime is
    /// ``FreshnessPolicy/lifetimeOfStoredFailure(_:under:)``.
    public var isStoredError: Bool

    enum CodingKeys: String, CodingKey {
        case url, service, status, bytes, state
        case fetchedAt = "fetched_at"
        case httpCache = "http_cache"
        case isStoredError = "stored_error"
    }

    /// `entry` as `policy` judges it at `now`, under its service's `rule`; `bytes`: its body's size.
    public init(_ entry: CacheEntry, bytes: Int, policy: FreshnessPolicy, rule: FreshnessPolicy.Rule, at now: Date) {
        url = entry.url
        service = entry.service
        status = entry.status
        self.bytes = bytes
        fetchedAt = entry.fetchedAt
        httpCache = LoadMetadata.HTTPCacheState(entry, policy: policy, rule: rule, at: now)
        // Judged as for a request whose headers match what the stored one sent: a listing is no request.
        var judged = entry
        if judged.varyRequest != nil, !Vary.names(judged.vary).contains("*") { judged.vary = nil }
        isStoredError = FreshnessPolicy.isStoredFailure(entry)
        if isStoredError {
            // Judged as a load judges it: by the server's word, briefly; stale, the next load asks.
            let lifetime = FreshnessPolicy.lifetimeOfStoredFailure(entry, under: policy)
            httpCache.freshnessLifetimeSeconds = OutsideNumbers.wholeSeconds(lifetime.seconds)
            httpCache.lifetimeFrom = lifetime.basis
            state = FreshnessPolicy.storedFailureAnswers(judged, under: policy, requestHeaders: [:], at: now) ? .fresh : .stale
            return
        }
        switch policy.reuse(of: judged, rule: rule, requestHeaders: [:], at: now) {
        case .fresh: state = .fresh
        case .staleWhileRevalidate: state = .stale
        case .validate: state = FreshnessPolicy.isReusable(entry) && entry.canRevalidate ? .stale : .historyOnly
        }
    }
}
