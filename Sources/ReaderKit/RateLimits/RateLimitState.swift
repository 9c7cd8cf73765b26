import Foundation
import GRDB

/// A rate limit as a server announced it (``Service/rateLimit(in:)``), for one service at one origin.
///
/// Kept in the cache file so that a script running `reader` in a loop does not spend a limit
/// that an earlier run already used up: when nothing remains, the next request to that host waits
/// for the reset if that is within `--max-wait`, and otherwise is not sent at all. A lock-out is
/// per origin and service (Reddit's OAuth host and its public one count apart, and a gateway that
/// serves two APIs locks out only the one that was limited), never longer than the service's
/// ``Service/rateLimitWindow``, and `reader cache clear` forgets it.
public struct RateLimitState: Sendable, Equatable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "rateLimit"

    /// The origin whose limit this is, as ``Origin`` writes it (`https://oauth.reddit.com`,
    /// `http://127.0.0.1:8080`).
    public var origin: String
    /// The service whose limit this is.
    public var service: ServiceName
    /// Requests left in the current window.
    public var remaining: Double
    /// When the window resets.
    public var resetAt: Date
    /// When the server said so.
    public var observedAt: Date
    /// The window's whole limit, when the server said how many were used
    /// (``RateLimitAnnouncement/limit``). Known for this run only: the cache file keeps what a
    /// lock-out needs, and a share kept in reserve is a long-running program's own concern.
    public var limit: Double? = nil

    /// The columns keep their first names, `host` and `api`: files written before origins and
    /// services were named so keep their rows.
    enum CodingKeys: String, CodingKey {
        case origin = "host", service = "api", remaining, resetAt, observedAt
    }

    public init(origin: String, service: ServiceName, remaining: Double, resetAt: Date, observedAt: Date) {
        self.origin = origin.lowercased()
        self.service = service
        self.remaining = remaining
        self.resetAt = resetAt
        self.observedAt = observedAt
    }

    /// What `announcement` says of `service` at `origin`, received at `now`; nil when
    /// there is none. A reset further away than `window` (the service's
    /// ``Service/rateLimitWindow``) is read as that: a server's mistake.
    public init?(origin: String, service: ServiceName, announcement: RateLimitAnnouncement?, now: Date, window: Duration) {
        guard let announcement, OutsideNumbers.isPlausible(now) else { return nil }
        self.init(origin: origin, service: service, remaining: announcement.remaining,
                  resetAt: now.addingTimeInterval(min(announcement.secondsUntilReset, window.inSeconds)), observedAt: now)
        limit = announcement.limit
    }

    /// Whether a request at `now` would spend into the share of the limit kept in reserve
    /// (`reserve`, from 0 to 1, of ``limit``): after it, and the `inFlight` requests sent since
    /// this was announced, fewer would remain than that share. False when the limit is not
    /// known or the window has reset.
    public func spendsReserve(_ reserve: Double, inFlight: Int = 0, at now: Date) -> Bool {
        guard reserve > 0, let limit, resetAt > now else { return false }
        return remaining - Double(max(0, inFlight)) - 1 < limit * min(reserve, 1)
    }

    /// How long to wait before the next request at `now`: nil when a request may go now. Never
    /// longer than `window` (the service's ``Service/rateLimitWindow``), whatever the stored reset.
    public func waitBeforeNextRequest(at now: Date, window: Duration) -> TimeInterval? {
        guard remaining < 1, resetAt > now else { return nil }
        let wait = resetAt.timeIntervalSince(now)
        guard wait.isFinite else { return window.inSeconds }
        return min(wait, window.inSeconds)
    }

    /// The wait `announcement` means when nothing remains (for `Retry-After`'s absence), at most
    /// `window`: nil when something remains or there is no announcement.
    public static func wait(announcedBy announcement: RateLimitAnnouncement?, now: Date, window: Duration) -> TimeInterval? {
        guard let announcement, announcement.remaining < 1, announcement.secondsUntilReset > 0, OutsideNumbers.isPlausible(now) else { return nil }
        return min(announcement.secondsUntilReset, window.inSeconds)
    }

    /// Whether a row read back from the cache file can be right: instants a calendar can show and
    /// a count that is a number. Anything else is ignored as if it were not there.
    var isPlausible: Bool {
        remaining.isFinite && OutsideNumbers.isPlausible(resetAt) && OutsideNumbers.isPlausible(observedAt) && !origin.isEmpty
    }

    /// When the lock-out ends, as it is enforced at `now`: the stored reset, but never further than
    /// `window` from `now`. Nil when nothing is locked out.
    public func lockedOutUntil(at now: Date, window: Duration) -> Date? {
        waitBeforeNextRequest(at: now, window: window).map { now.addingTimeInterval($0) }
    }
}
