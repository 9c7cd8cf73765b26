import Foundation
import GRDB

/// A rate limit as a server announced it (``Service/rateLimit(in:)``), for one service at one origin.
///
/// Kept in the cache file so that a script running `reader` in a loop does not spend a limit
/// that an earlier run already used up: when nothing remains, the next request to that host waits
/// for the reset if that is within `--max-wait`, and otherwise is not sent at all. A lock-out is
/// per origin and API (Reddit's OAuth host and its public one count apart, and a gateway that
/// serves two APIs locks out only the one that was limited), never longer than
/// ``maximumWindow``, and `reader cache clear` forgets it.
public struct RateLimitState: Sendable, Equatable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "rateLimit"

    /// The longest lock-out, whatever a header or the cache file says: Reddit's window is ten
    /// minutes, so a reset announced further away is a server's (or a damaged file's) mistake.
    public static let maximumWindow: TimeInterval = 600

    /// The origin whose limit this is, as ``Origin`` writes it (`https://oauth.reddit.com`,
    /// `http://127.0.0.1:8080`).
    public var host: String
    /// The service whose limit this is.
    public var service: ServiceName
    /// Requests left in the current window.
    public var remaining: Double
    /// When the window resets.
    public var resetAt: Date
    /// When the server said so.
    public var observedAt: Date

    /// The column keeps its first name, `api`: files written before services were named keep their rows.
    enum CodingKeys: String, CodingKey {
        case host, service = "api", remaining, resetAt, observedAt
    }

    public init(host: String, service: ServiceName, remaining: Double, resetAt: Date, observedAt: Date) {
        self.host = host.lowercased()
        self.service = service
        self.remaining = remaining
        self.resetAt = resetAt
        self.observedAt = observedAt
    }

    /// What `announcement` says of `service` at `host` (an origin), received at `now`; nil when
    /// there is none. A reset further away than ``maximumWindow`` is read as that.
    public init?(host: String, service: ServiceName, announcement: RateLimitAnnouncement?, now: Date) {
        guard let announcement, OutsideNumbers.isPlausible(now) else { return nil }
        self.init(host: host, service: service, remaining: announcement.remaining,
                  resetAt: now.addingTimeInterval(min(announcement.secondsUntilReset, Self.maximumWindow)), observedAt: now)
    }

    /// How long to wait before the next request at `now`: nil when a request may go now. Never
    /// longer than ``maximumWindow``, whatever the stored reset.
    public func waitBeforeNextRequest(at now: Date) -> TimeInterval? {
        guard remaining < 1, resetAt > now else { return nil }
        let wait = resetAt.timeIntervalSince(now)
        guard wait.isFinite else { return Self.maximumWindow }
        return min(wait, Self.maximumWindow)
    }

    /// The wait `announcement` means when nothing remains (for `Retry-After`'s absence): nil when
    /// something remains or there is no announcement.
    public static func wait(announcedBy announcement: RateLimitAnnouncement?, now: Date) -> TimeInterval? {
        guard let announcement, announcement.remaining < 1, announcement.secondsUntilReset > 0, OutsideNumbers.isPlausible(now) else { return nil }
        return min(announcement.secondsUntilReset, maximumWindow)
    }

    /// Whether a row read back from the cache file can be right: instants a calendar can show and
    /// a count that is a number. Anything else is ignored as if it were not there.
    var isPlausible: Bool {
        remaining.isFinite && OutsideNumbers.isPlausible(resetAt) && OutsideNumbers.isPlausible(observedAt) && !host.isEmpty
    }

    /// When the lock-out ends, as it is enforced at `now`: the stored reset, but never further than
    /// ``maximumWindow`` from `now`. Nil when nothing is locked out.
    public func lockedOutUntil(at now: Date) -> Date? {
        waitBeforeNextRequest(at: now).map { now.addingTimeInterval($0) }
    }
}
