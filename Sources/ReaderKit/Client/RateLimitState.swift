import Foundation
import GRDB

/// A rate limit as the server announced it: Reddit's `X-Ratelimit-Remaining` and
/// `X-Ratelimit-Reset` (seconds until the window resets).
///
/// Kept in the cache file so that a script running `reader` in a loop does not spend a limit
/// that an earlier run already used up: when nothing remains, the next request waits for the
/// reset if that is within `--max-wait`, and otherwise is not sent at all.
public struct RateLimitState: Sendable, Equatable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "rateLimit"

    public var api: API
    /// Requests left in the current window.
    public var remaining: Double
    /// When the window resets.
    public var resetAt: Date
    /// When the server said so.
    public var observedAt: Date

    public init(api: API, remaining: Double, resetAt: Date, observedAt: Date) {
        self.api = api
        self.remaining = remaining
        self.resetAt = resetAt
        self.observedAt = observedAt
    }

    /// Reads the headers of a response received at `now`; nil when they are absent or unreadable.
    public init?(api: API, headers: HeaderFields, now: Date) {
        guard let remainingText = headers["X-Ratelimit-Remaining"], let remaining = Double(remainingText.trimmingCharacters(in: .whitespaces)),
              let resetText = headers["X-Ratelimit-Reset"], let reset = Double(resetText.trimmingCharacters(in: .whitespaces)),
              remaining.isFinite, reset.isFinite, reset >= 0, reset <= 86_400 else { return nil }
        self.init(api: api, remaining: remaining, resetAt: now.addingTimeInterval(reset), observedAt: now)
    }

    /// How long to wait before the next request at `now`: nil when a request may go now.
    public func waitBeforeNextRequest(at now: Date) -> TimeInterval? {
        guard remaining < 1, resetAt > now else { return nil }
        return resetAt.timeIntervalSince(now)
    }
}
