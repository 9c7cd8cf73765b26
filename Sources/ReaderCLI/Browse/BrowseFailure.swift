import Foundation
import ReaderKit

/// A failed load as the screen shows it: the CLI's words, its code and hint.
struct BrowseFailure: Sendable, Equatable {
    var message: String
    var code: String
    var hint: String?
    /// Whether the service could not be reached (T1001, T1003, T1004, T1005, T1009): the
    /// browser is then offline and probes until it answers.
    var unreachable: Bool
    /// Whether the cache had nothing for an `--offline` or cache-first load (C1001).
    var notCached: Bool
    /// When a rate limit resets, for a rate-limited load.
    var rateLimitedUntil: Date?

    init(message: String, code: String, hint: String? = nil, unreachable: Bool = false, notCached: Bool = false,
         rateLimitedUntil: Date? = nil) {
        self.message = message
        self.code = code
        self.hint = hint
        self.unreachable = unreachable
        self.notCached = notCached
        self.rateLimitedUntil = rateLimitedUntil
    }

    init(_ failure: LoadFailure) {
        let error = failure.error
        var until: Date?
        if case .rateLimited(let limit) = error { until = limit.resetAt }
        var notCached = false
        if case .cache(let cache) = error, cache.reason == .notCached { notCached = true }
        // In the commands' words, as their `hint:` line says it.
        let hint = CLIWording.hint(failure.advice)
        self.init(message: CLIWording.message(of: error), code: error.code.description, hint: hint.isEmpty ? nil : hint,
                  unreachable: error.failureClass == .unreachable, notCached: notCached, rateLimitedUntil: until)
    }
}
