import Foundation

/// The user's history (RFC 9111 §6): what was read before, shown again when the network or the
/// server fails, and with ``LoadOptions/CacheMode/offline`` — labelled with its age (a notice, and
/// ``LoadMetadata/CachedAnswer/history``), never presented as a fresh answer.
///
/// A path of its own beside the HTTP cache (``FreshnessPolicy``): the cache decides by RFC 9111
/// what may answer without asking the server; the history decides only what may still be shown
/// when asking fails or is not wanted. It holds what the cache file holds: a `no-store` response
/// is in neither. A copy the server marked `must-revalidate` or `no-cache` is shown too, as
/// history: RFC 9111 §4.2.4 forbids a cache to serve it stale, and §6 lets a history mechanism
/// show it; this is reader's one deliberate departure from the cache's MUSTs, and
/// ``maximumStale`` (`--max-stale`) is the user's bound on it.
public struct History: Sendable, Equatable {
    /// `--max-stale`: a copy fetched longer ago than this is never shown.
    public var maximumStale: Duration?

    public init(maximumStale: Duration? = nil) {
        self.maximumStale = maximumStale
    }

    /// Whether `entry` may be shown at `now`: it was fetched no longer than ``maximumStale`` ago,
    /// when that is set.
    public func mayShow(_ entry: CacheEntry, at now: Date) -> Bool {
        guard let maximumStale else { return true }
        return now.timeIntervalSince(entry.fetchedAt) <= maximumStale.inSeconds
    }
}

extension FreshnessPolicy {
    /// The history under this policy's ``maximumStale``.
    public var history: History { History(maximumStale: maximumStale) }
}
