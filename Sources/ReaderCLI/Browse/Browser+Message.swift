import Foundation
import ReaderKit

extension Browser {
    /// What reaches the browser besides keys, resizes and ticks: the answers of the work it ran.
    enum Message: Sendable {
        /// The answer of a screen's work.
        case answer(screen: Int, id: String, Pass, ScreenAnswer)
        /// `$BROWSER` was started for `url`, or could not be (its reason).
        case opened(url: String, failure: String?)
        /// Time to probe again, after ``BrowseScheduler/probePause``.
        case probeAgain
        /// What the client noticed since the last time it was asked (the cache cannot be written).
        case notices([Notice])
        /// When the rate limit a copy was shown for resets (nil: it is not used up now).
        case rateLimited(until: Date?)
        /// A rate limit's reset came: what is on screen is asked for again.
        case rateLimitEnded
    }

    /// Which run of a screen's work an answer comes from.
    enum Pass: Sendable {
        /// The cache-only pass of a ``LoadKind/cacheFirst`` load; the network pass follows.
        case cached(@Sendable (LoadOptions) async -> ScreenAnswer)
        /// A load in the foreground (a probe's too).
        case foreground(probe: Bool)
        case background
        /// A ``ScreenEffect/run(id:_:)``.
        case other
    }
}
