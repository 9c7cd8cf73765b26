/// The one place that decides what each classified error becomes: ignore, alert, retry or reset.
///
/// `decide(_:in:)` is a pure function of the error and its context, so every row of the failure
/// contract is a unit test. The CLI only renders what it decides; a library user who calls
/// ``ReaderClient`` gets the same behaviour. Every failure, its class, the decision in each
/// situation and the exit code are written once, in <doc:FailureContract>.
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
