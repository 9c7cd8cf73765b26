/// The one place that decides what each classified error becomes: ignore, alert, retry or reset.
///
/// `decide(_:in:)` is a pure function of the error and its context, so every row of the contract
/// in the README is a unit test. The CLI only renders what it decides; a library user who calls
/// ``ReaderClient`` gets the same behaviour.
///
/// | failure | decision | with a cached copy |
/// |---|---|---|
/// | T1003 cannot find host | no retry | serve stale |
/// | T1009 offline, T1004 refused | no retry | serve stale |
/// | T1306 the proxy unreachable; T1307 it asks for credentials, T1308 it refuses the tunnel | no retry | serve stale |
/// | T1005 lost, T1001 timed out | retry | serve stale after retries |
/// | T1010 a redirect not followed (another origin, https → http, userinfo, bad port) | no retry | serve stale |
/// | 408, 429, 502, 503, 504; 500 with Retry-After | retry, honouring Retry-After up to `--max-wait` | serve stale after retries |
/// | R1003 rate limit used up past `--max-wait` | no retry | serve stale |
/// | 500 without Retry-After | no retry | serve stale |
/// | T1011 an answer outside HTTP; T1200–T1204 TLS and certificates | no retry | serve stale |
/// | a 3xx that cannot be followed, a 304 with nothing to confirm | no retry | serve stale |
/// | 404, 410, API says not found | alert | reset: delete the cached copy |
/// | 401, 403 | alert | reset: delete the cached copy |
/// | other 4xx | alert | never served |
/// | any failure above whose copy is older than `--max-stale` | as without a copy | not served |
/// | HTML where JSON was expected | alert | serve stale |
/// | JSON that does not decode | alert | serve stale |
/// | C1005 copy older than `--max-stale` (offline) | alert | — |
/// | cache corrupt | reset: replace the cache file, carry on | — |
/// | C1006 one cached entry cannot be right | reset: delete it, carry on as if uncached | — |
/// | cache unwritable | ignore: carry on without storing | — |
///
/// ## Topics
/// - ``decide(_:in:)``
/// - ``announcement(of:on:in:)``
/// - ``FailureClass``
/// - ``RetryPolicy``
public struct ErrorHandler: Sendable {
    /// When and how long to wait before trying again.
    public var retryPolicy: RetryPolicy

    /// Creates a handler.
    /// - Parameter retryPolicy: the retry rules; ``RetryPolicy/default`` unless a test or a
    ///   command-line option says otherwise.
    public init(retryPolicy: RetryPolicy = .default) {
        self.retryPolicy = retryPolicy
    }

    /// Decides what `error` becomes.
    /// - Parameters:
    ///   - error: an error classified by the pipeline.
    ///   - context: who waits, whether a cached copy exists, the attempt, the time left.
    /// - Returns: the decision; ``Decision/retry(after:)`` only while the retry policy allows.
    public func decide(_ error: ReaderError, in context: ErrorContext) -> Decision {
        switch error {
        case .invalidArgument, .invalidConfiguration, .authentication, .output, .bug:
            return .alert
        case .cache(let failure):
            switch failure.reason {
            case .notCached, .tooOld: return .alert
            case .corrupt: return .reset(.replaceCacheFile, then: .ignore(.cacheReplaced))
            case .unwritable, .unavailable: return .ignore(.continueWithoutCache)
            case .damagedEntry: return .reset(.deleteCachedCopy, then: .ignore(.droppedDamagedEntry))
            }
        case .transport, .status, .contentType, .decoding, .rateLimited:
            break
        }

        // A credential the service no longer takes is state, not an error: discard it, get a new one, and
        // try once more. A second refusal is the app's credentials, and is shown.
        if context.credentialRefused, !context.tokenWasRenewed {
            return .reset(.renewToken, then: .retry(after: .zero))
        }

        if let delay = retryPolicy.delay(before: error, in: context) {
            return .retry(after: delay)
        }
        let failureClass = error.failureClass
        if failureClass.meansTheCopyIsGone {
            // A refusal of this client — its credential, still refused after a renewal, or a
            // block page of the site's network security — says nothing of the resource: the copy
            // stays, to be read offline.
            let refusesTheClient = error.isBlockPage || context.credentialRefused
            return context.cachedCopy.exists && !refusesTheClient ? .reset(.deleteCachedCopy, then: .alert) : .alert
        }
        if failureClass.leavesCachedCopyServable {
            if context.cachedCopy == .servable { return .ignore(.servedStale) }
            if context.mode == .background, failureClass.isAboutTheConnection { return .ignore(.summarised) }
        }
        return .alert
    }

    /// What must be told about a decision besides the error itself, if anything.
    public enum Announcement: Sendable, Equatable {
        /// The retry waits for the service to become reachable (``ErrorContext/waitsForConnectivity``):
        /// told on the first wait of a load, while the waiting goes on.
        case waitingForConnectivity
        /// A cached copy would have been served in place of the error, but it is older than the
        /// staleness limit allows (``ErrorContext/CachedCopy/olderThanMaxStale``): it was not shown.
        case copyTooOldToServe
    }

    /// What must be told about `decision`, the handler's decision on `error` (``decide(_:in:)``):
    /// that a retry waits for the service to come back, or that a cached copy was too old to be served.
    /// - Parameters:
    ///   - decision: what ``decide(_:in:)`` decided about `error` in `context`.
    ///   - error: an error classified by the pipeline.
    ///   - context: who waits, what is cached, the attempt, the time left.
    /// - Returns: the announcement, or nil when the decision says it all.
    public func announcement(of decision: Decision, on error: ReaderError, in context: ErrorContext) -> Announcement? {
        var outcome = decision
        while case .reset(_, let then) = outcome { outcome = then }
        switch outcome {
        case .retry:
            let waits = context.attempt == 1 && retryPolicy.waitsForConnectivity(after: error, in: context)
            return waits ? .waitingForConnectivity : nil
        case .ignore(.servedStale):
            return nil
        case .alert, .ignore, .reset:
            // What a copy young enough would have answered, had there been one.
            let tooOld = context.cachedCopy == .olderThanMaxStale && error.failureClass.leavesCachedCopyServable
            return tooOld ? .copyTooOldToServe : nil
        }
    }
}
