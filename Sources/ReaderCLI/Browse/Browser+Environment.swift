import Foundation
import ReaderKit

extension Browser {
    /// What the browser runs with.
    struct Environment: Sendable {
        /// The options of every load (a fresh deadline each time): `--offline`, `--refresh`,
        /// `--max-stale`, `--timeout` as the command line and settings give them.
        var loadOptions: @Sendable () -> LoadOptions
        /// The screen for a target typed after `s` (`python`, `r/a+b`, `swapi/people`).
        var resolve: @Sendable (String) throws(ReaderError) -> any BrowseScreen
        /// What `s` goes to, as the prompt and the help name it (``BrowseCapability/goTo``):
        /// `subreddit, r/a+b`, `swapi`.
        var places: [String] = []
        /// The commands' words for failures, notices and hints, given the services registered.
        var wording: CLIWording
        /// `$BROWSER`, when it is set and not empty.
        var browserCommand: String?
        /// Starts `$BROWSER URL`, detached; the reason when it cannot.
        var openURL: @Sendable (String) async -> String?
        /// What the client noticed since it was last asked (``NoticeBoard/drain()``).
        var notices: @Sendable () async -> [Notice] = { [] }
        /// When the service's rate limit resets, when it is used up now (``ReaderClient/rateLimitLockouts()``).
        var rateLimitedUntil: @Sendable (ServiceName) async -> Date? = { _ in nil }
    }
}
