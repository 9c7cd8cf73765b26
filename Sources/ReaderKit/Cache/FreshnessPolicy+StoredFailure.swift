import Foundation

/// Error answers kept to answer later loads (RFC 9111 §3): which are stored, and how long one answers.
extension FreshnessPolicy {
    /// The statuses whose answer is never stored to answer a later load, whatever its freshness:
    /// a refusal of credentials (401, 403, 407) or the rate limit (429) says nothing of the
    /// resource, and the next request, with a renewed credential or after the wait, may differ.
    static let neverReusedFailureStatuses: Set<Int> = [401, 403, 407, 429]

    /// How long a stored error answer without freshness of its own (a heuristically cacheable
    /// `404`) answers: minutes, not the service's heuristic for its data (SWAPI's day).
    public static let storedFailureLifetime = FreshnessPolicy.Rule(defaultLifetime: .seconds(600))

    /// The longest a stored error answer answers, whatever its `max-age` or `Expires` says: a
    /// server that marks every answer fresh for a year (a CDN's default) must not hold a command
    /// to its `500` for a year.
    public static let storedFailureLongestLife: Duration = .seconds(3_600)

    /// The largest error body stored: an error answer is kept only to be read again as the same
    /// failure, and reader reads no more of an error body than this
    /// (``APIErrorBody/maximumBodySize``, 64 KiB). A larger one (a web server's error page) is
    /// not stored, so that it never evicts data.
    public static let storedFailureLargestBody = APIErrorBody.maximumBodySize

    /// Whether the stored error answer `entry` answers a load now (``mayStoreFailure(_:)``): by the
    /// server's own word only (its `max-age`, `Expires`, `no-cache`, else
    /// ``storedFailureLifetime``), never beyond ``storedFailureLongestLife``; the user's
    /// ``maximumAge``, meant for data, can only shorten it (`--max-age 0` asks again), and the
    /// service's floor (``Rule/minimumLifetime``) does not apply.
    ///
    /// One rule whatever gave the lifetime: the server's lifetime (from `max-age`, or `Expires`
    /// minus `Date`), the hour and the user's maximum, the least of them, against the answer's
    /// current age (RFC 9111 §4.2.3, its `Age` and `Date` included), as any copy is judged.
    public static func storedFailureAnswers(_ entry: CacheEntry, under policy: FreshnessPolicy, requestHeaders: HeaderFields,
                                            at now: Date) -> Bool {
        // A 304 stored by an earlier reader is no answer (``mayStoreFailure(_:)``).
        guard entry.status != 304,
              FreshnessPolicy().reuse(of: entry, rule: storedFailureLifetime, requestHeaders: requestHeaders, at: now) == .fresh else { return false }
        return currentAge(of: entry, at: now) < lifetimeOfStoredFailure(entry, under: policy).seconds
    }

    /// How long the stored error answer `entry` answers, in seconds, and what gave it
    /// (``storedFailureAnswers(_:under:requestHeaders:at:)``): the least of the server's
    /// lifetime, ``storedFailureLongestLife`` and `policy`'s ``maximumAge``.
    public static func lifetimeOfStoredFailure(_ entry: CacheEntry, under policy: FreshnessPolicy) -> (seconds: Double, basis: LifetimeBasis) {
        let server = FreshnessPolicy().freshnessLifetime(of: entry, rule: storedFailureLifetime)
        var lifetime = (seconds: min(server.seconds, storedFailureLongestLife.inSeconds), basis: server.basis)
        if let maximumAge = policy.maximumAge, maximumAge.inSeconds < lifetime.seconds { lifetime = (maximumAge.inSeconds, .userMaximumAge) }
        return lifetime
    }

    /// Whether `response`, an answer reader reads as a failure (an error status, or a `204` where
    /// the endpoint needs a body), may be stored to answer later loads while it is fresh
    /// (RFC 9111 §3): without `no-store`, with a heuristically cacheable status (404, 405, 410,
    /// 414, 501, 204…) or explicit freshness (`max-age`, `Expires`, `public`), and not one of
    /// 401, 403, 407 or 429 (a refusal of credentials or the rate limit), nor a `304` (which only
    /// confirms a copy: RFC 9111 §4.3.4), nor a 2xx other than `204` (an API's error in a `200`,
    /// which stored would read as a copy of the resource), nor one whose body is larger than
    /// ``storedFailureLargestBody``. Such an entry is never history: it answers only while fresh
    /// (``isStoredFailure(_:)``), and a failure of the network never shows it.
    public static func mayStoreFailure(_ response: HTTPResponse) -> Bool {
        let control = CacheControl(response.headers)
        // A 304 is no answer of its own: it confirms a copy (§4.3.4), and without one it says nothing.
        guard !control.noStore, !neverReusedFailureStatuses.contains(response.status), (200...599).contains(response.status),
              response.status != 304 else { return false }
        // A success status that fails (the API's error envelope in a 200) would be stored as the
        // copy of a resource, and read back as a damaged one: only a 204 reads back as its failure.
        guard !(200...299).contains(response.status) || response.status == 204 else { return false }
        guard response.body.count <= storedFailureLargestBody else { return false }
        return heuristicallyCacheable.contains(response.status) || control.maxAge != nil
            || HeaderList.combined("Expires", in: response.headers) != nil || control.isPublic
    }

    /// Whether `entry` holds an error answer (``mayStoreFailure(_:)``), not a copy of a resource:
    /// a status outside 2xx. It answers a load only while fresh, with the failure it was; it is
    /// never shown as history, nor served on `stale-if-error`. (A stored `204` is a failure only
    /// for an endpoint that needs a body, which its load knows.)
    public static func isStoredFailure(_ entry: CacheEntry) -> Bool {
        !(200...299).contains(entry.status)
    }
}
