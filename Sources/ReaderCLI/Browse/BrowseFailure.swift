import Foundation
import ReaderKit

/// A failed load as a screen shows it: the error itself, as ReaderKit classified it, and what
/// can be done next; the words, the code and the hint are the CLI's for them.
public struct BrowseFailure: Sendable {
    /// The error the load failed with.
    public let error: ReaderError
    /// What can be done next, in the situation the load met the error.
    public let advice: [Advice]
    /// The error in the commands' words.
    public let message: String
    /// The hint, as the commands' `hint:` line says it; nil when there is none.
    public let hint: String?

    /// A load's failure: its error, advised on in its situation.
    public init(_ failure: LoadFailure) {
        self.init(failure.error, advice: failure.advice)
    }

    /// An error met outside a load (a target refused before any request is sent).
    /// - Parameter advice: what can be done next; by default what ReaderKit advises with no
    ///   situation known.
    public init(_ error: ReaderError, advice: [Advice]? = nil) {
        self.error = error
        self.advice = advice ?? error.advice(in: ErrorContext())
        message = CLIWording.message(of: error)
        let hint = CLIWording.hint(self.advice)
        self.hint = hint.isEmpty ? nil : hint
    }

    /// The error's code, such as `T1003`.
    public var code: String { error.code.description }

    /// Whether the service could not be reached (the class ``FailureClass/unreachable``): the
    /// browser is then offline and probes until it answers.
    public var unreachable: Bool { error.failureClass == .unreachable }

    /// Whether the cache had nothing for an `--offline` or cache-first load (C1001).
    public var notCached: Bool {
        if case .cache(let cache) = error { cache.reason == .notCached } else { false }
    }

    /// When the rate limit resets, for a request not sent because it is used up (R1003).
    public var rateLimitedUntil: Date? {
        if case .rateLimited(let limit) = error { limit.resetAt } else { nil }
    }
}

extension BrowseFailure: Equatable {
    /// The same failure on screen: the same code, words and hint.
    public static func == (left: BrowseFailure, right: BrowseFailure) -> Bool {
        left.code == right.code && left.message == right.message && left.hint == right.hint
    }
}

extension ReaderError {
    /// Whether this says the rate limit is used up: a 429, or a request not sent for it (R1003).
    var meansRateLimited: Bool {
        switch self {
        case .rateLimited: true
        case .status(let failure): failure.status == 429
        default: false
        }
    }
}
