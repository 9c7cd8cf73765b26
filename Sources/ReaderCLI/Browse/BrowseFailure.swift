import Foundation
import ReaderKit

/// A failed load as a screen shows it: the error itself, as ReaderKit classified it, and the
/// hints that hold in the situation the load met it; the browser says them in the commands' words.
public struct BrowseFailure: Sendable {
    /// The error the load failed with.
    public let error: ReaderError
    /// What can be done next, in the situation the load met the error.
    public let hints: [Hint]

    /// A load's failure: its error, with the hints of its situation.
    public init(_ failure: LoadFailure) {
        self.init(failure.error, hints: failure.hints)
    }

    /// An error met outside a load (a target refused before any request is sent).
    /// - Parameter hints: what can be done next; by default the error's hints with no situation known.
    public init(_ error: ReaderError, hints: [Hint]? = nil) {
        self.error = error
        self.hints = hints ?? error.hints()
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
    /// The same failure on screen: the same code, words and hints.
    public static func == (left: BrowseFailure, right: BrowseFailure) -> Bool {
        left.code == right.code && left.error.wording == right.error.wording && left.hints == right.hints
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
