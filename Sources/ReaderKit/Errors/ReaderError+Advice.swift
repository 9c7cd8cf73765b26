extension ReaderError {
    /// What can be done next, given what is known about the request, in ReaderKit's words: every
    /// part of it holds in that situation (``advice(in:)`` gives the same as values).
    ///
    /// | situation | the advice |
    /// |---|---|
    /// | network failure, nothing cached | not the offline mode: it says nothing is cached yet |
    /// | network failure, a copy older than `maximumStale` | not the offline mode (it refuses that copy too): a larger `maximumStale` |
    /// | network failure, a copy the offline mode would show | the offline mode |
    /// | a page past the end of a list | how many pages there are, and the last |
    /// | Reddit's block page or a 403, without an app identity | how to set one |
    /// | the same, with an app identity | try later or from another network |
    ///
    /// - Parameter context: what the client knew when the request failed.
    /// - Returns: one sentence, without the error's code.
    public func suggestion(in context: ErrorContext) -> String {
        advice(in: context).text
    }

    /// What can be done next, given what is known about the request, as values a front end
    /// words its own way (``Advice``); ``suggestion(in:)`` is ReaderKit's wording of them.
    /// - Parameter context: what the client knew when the request failed.
    public func advice(in context: ErrorContext) -> [Advice] {
        if let range = context.pageRange, isPageMissing {
            return [.lastPage(pages: range.pages, items: range.items)]
        }
        if case .status(let failure) = self, let explanation = failure.explanation, let text = explanation.suggestionWithCredential,
           failure.retryAt == nil, context.usesToken {
            return [.service(failure.service, reason: explanation.reason, withCredential: true, text: text)]
        }
        if case .status(let failure) = self, failure.asksToComeBackLater, let seconds = failure.retryAfterSeconds {
            // Why the wait the server asked for was not taken: the time left, the longest wait, or
            // neither (a status not retried, the retries spent), when the situation says.
            // In the retry policy's order: its longest wait first, then the deadline.
            let wait = Duration.clamping(seconds: seconds)
            if let longest = context.longestWait, wait > longest { return [.tryAgainThenOrAllowLongerWait] }
            if let remaining = context.remaining, wait >= remaining { return [.tryAgainThenOrAllowMoreTime] }
            if context.longestWait != nil { return [.tryAgainThen] }
        }
        let unreachable = failureClass == .unreachable
        switch (self, context.cachedCopy) {
        case (.transport(let failure), .none) where unreachable:
            return [networkAdvice(failure), .nothingCachedForOffline]
        case (.transport(let failure), .servable) where unreachable:
            return [networkAdvice(failure), .offlineShowsCachedCopy]
        case (_, .olderThanMaxStale) where failureClass.leavesCachedCopyServable:
            let base = if case .transport(let failure) = self, unreachable { [networkAdvice(failure)] }
                else { advice }
            return base + [.allowOlderCopy]
        default:
            return advice
        }
    }

    /// What to do about the network itself, without a word about the cache.
    private func networkAdvice(_ failure: TransportFailure) -> Advice {
        switch failure.reason {
        case .cannotFindHost: .plain("check the address and your DNS")
        case .timedOut: .allowMoreTime
        case .cannotConnectToHost: .checkConnectionAndServiceAddress
        case .proxyUnreachable: failure.proxyAdvice
        default: .plain("check your connection and try again")
        }
    }

    /// A page that is not there: the API's not-found, or nothing cached for it offline.
    var isPageMissing: Bool {
        switch self {
        case .status(let failure): failure.failureClass == .notFound
        case .cache(let failure): failure.reason == .notCached
        default: false
        }
    }
}

extension ReaderError {
    /// What the code means, for many errors of it at once (a sync's summary), without the
    /// details of one: `not found (404)` rather than "post 2xmo63 does not exist".
    public var messageForMany: String {
        switch self {
        case .status(let failure):
            if let summary = failure.explanation?.summary { return summary }
            if failure.isBlockPage { return "the site's firewall blocked the requests" }
            if failure.failureClass == .notFound { return "not found (\(failure.status))" }
            return "the server answered \(failure.status) \(HTTPStatusName.phrase(for: failure.status))"
        case .cache(let failure) where failure.reason == .damagedEntry:
            return "a cached copy was damaged (dropped, and read from the network next time)"
        default:
            return message
        }
    }

    /// What to do about requests of a sync that failed with this error: run it again only where
    /// that can help. A 404 is not fixed by running the sync again.
    public var suggestionAfterSync: String { adviceAfterSync.text }

    /// ``suggestionAfterSync`` as values a front end words its own way (``Advice``).
    public var adviceAfterSync: [Advice] {
        if case .status(let failure) = self, failure.failureClass == .notFound {
            return [.plain("they are gone or never existed: running the sync again will not bring them back")]
        }
        guard isWorthRetryingLater else { return advice }
        switch self {
        case .transport(let failure) where failure.reason == .cannotFindHost:
            return [.plain("check the address and your DNS, then run the sync again")]
        case .status(let failure) where (500...599).contains(failure.status):
            return [.plain("the service has a problem; run the sync again later to fill these gaps")]
        case .status(let failure) where failure.status == 429:
            return [.plain("the service asked for fewer requests; run the sync again later to fill these gaps")]
        case .rateLimited:
            return [.plain("the rate limit is used up; run the sync again after it resets to fill these gaps")]
        default:
            return [.plain("run the sync again to fill these gaps")]
        }
    }
}
