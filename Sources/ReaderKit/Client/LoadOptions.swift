import Foundation

/// How one load may use the cache and the network.
public struct LoadOptions: Sendable, Equatable {
    public enum CacheMode: String, Sendable {
        /// Serve a fresh cached copy; otherwise ask the network, falling back to a stale copy.
        case normal
        /// Ask the network even when a fresh copy exists; still fall back to it on failure.
        case refresh
        /// Never touch the network; serve any cached copy, however old.
        case offline
    }

    public var cacheMode: CacheMode
    public var mode: ErrorContext.Mode
    /// The command's deadline, shared by all its loads so that retries never outlive `--timeout`;
    /// when nil, each load gets the configuration's `timeout` from its start.
    public var deadline: ContinuousClock.Instant?
    /// Whether to wait, within the deadline, for a service that cannot be reached (`--wait`).
    public var waitForConnectivity: Bool
    /// The share of a rate limit the server announced (with the requests it counts as used) that
    /// this load may not spend, from 0 to 1: work in the background, such as prefetching, passes
    /// 0.1 to leave the last tenth for what the user asks for. A load that would spend it is not
    /// sent (``RateLimitFailure/keptInReserve``); the requests to the same origin still in flight
    /// count as spent, since the last announcement does not count them yet. 0, the default, spends all.
    public var rateLimitReserve: Double
    /// Whether a stored error answer (``FreshnessPolicy/mayStoreFailure(_:)``) is asked of the
    /// network again even while fresh: ``CacheMode/refresh`` for error answers only, while fresh
    /// copies of data still answer without it. A sync sets it: it is asked to fill the gaps, and a
    /// stored error is a gap that only the server can fill.
    public var refreshesStoredFailures = false

    public init(cacheMode: CacheMode = .normal, mode: ErrorContext.Mode = .interactive, deadline: ContinuousClock.Instant? = nil,
                waitForConnectivity: Bool = false, rateLimitReserve: Double = 0) {
        self.waitForConnectivity = waitForConnectivity
        self.rateLimitReserve = rateLimitReserve.isFinite ? min(max(rateLimitReserve, 0), 1) : 0
        self.cacheMode = cacheMode
        self.mode = mode
        self.deadline = deadline
    }
}
