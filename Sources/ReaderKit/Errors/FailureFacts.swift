/// What was known about a failed request besides its error, so that the advice given with it
/// holds: the offline cache mode is suggested only when it would show something, a larger
/// ``FreshnessPolicy/maximumStale`` only when an older copy exists, setting an app identity only
/// when none was used.
///
/// ``ReaderClient`` fills it in where a load fails (``LoadFailure/facts``); an error met
/// elsewhere has the defaults, which claim nothing (``CachedCopy/unknown``).
///
/// ## Topics
/// - ``ReaderError/suggestion(given:)``
public struct FailureFacts: Sendable, Equatable {
    /// What the cache held for the request when it failed.
    public enum CachedCopy: Sendable, Equatable {
        /// Not known: the hint says nothing it cannot know.
        case unknown
        /// Nothing is cached for the request: `--offline` would fail too.
        case none
        /// A copy `--offline` would show.
        case servable
        /// A copy older than `--max-stale` allows: `--offline` would refuse it too (C1005).
        case olderThanMaxStale
    }

    /// The list a page was asked for, when the page was past its end.
    public struct PageRange: Sendable, Equatable {
        /// How many pages the list has, from 1.
        public var pages: Int
        /// How many items the list holds in all.
        public var items: Int

        public init(pages: Int, items: Int) {
            self.pages = pages
            self.items = items
        }
    }

    public var cachedCopy: CachedCopy
    /// Whether the request was made with Reddit's app identity (`READER_REDDIT_CLIENT_ID`).
    public var usedAppIdentity: Bool
    /// The pages the list has, when the page asked for is not one of them; nil otherwise.
    public var pageRange: PageRange?

    public init(cachedCopy: CachedCopy = .unknown, usedAppIdentity: Bool = false, pageRange: PageRange? = nil) {
        self.cachedCopy = cachedCopy
        self.usedAppIdentity = usedAppIdentity
        self.pageRange = pageRange
    }
}

extension ReaderError {
    /// What can be done next, given what is known about the request, in ReaderKit's words: every
    /// part of it holds in that situation (``advice(given:)`` gives the same as values).
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
    /// - Parameter facts: what the client knew when the request failed.
    /// - Returns: one sentence, without the error's code.
    public func suggestion(given facts: FailureFacts) -> String {
        advice(given: facts).text
    }

    /// What can be done next, given what is known about the request, as values a front end
    /// words its own way (``Advice``); ``suggestion(given:)`` is ReaderKit's wording of them.
    /// - Parameter facts: what the client knew when the request failed.
    public func advice(given facts: FailureFacts) -> [Advice] {
        if let range = facts.pageRange, isPageMissing {
            return [.lastPage(pages: range.pages, items: range.items)]
        }
        if case .status(let failure) = self, let explanation = failure.explanation, let text = explanation.suggestionWithCredential,
           failure.retryAt == nil, facts.usedAppIdentity {
            return [.service(failure.service, reason: explanation.reason, withCredential: true, text: text)]
        }
        switch (self, facts.cachedCopy) {
        case (.transport(let failure), .none) where Self.networkReasons.contains(failure.reason):
            return [networkAdvice(failure), .nothingCachedForOffline]
        case (.transport(let failure), .servable) where Self.networkReasons.contains(failure.reason):
            return [networkAdvice(failure), .offlineShowsCachedCopy]
        case (_, .olderThanMaxStale) where ErrorHandler.mayServeStale(self):
            let base = if case .transport(let failure) = self, Self.networkReasons.contains(failure.reason) { [networkAdvice(failure)] }
                else { advice }
            return base + [.allowOlderCopy]
        default:
            return advice
        }
    }

    /// Failures to reach a service at all: the ones a cached copy stands in for.
    static let networkReasons: Set<TransportFailure.Reason> = [.timedOut, .cannotFindHost, .cannotConnectToHost, .connectionLost, .notConnected, .unknown]

    /// What to do about the network itself, without a word about the cache.
    private func networkAdvice(_ failure: TransportFailure) -> Advice {
        switch failure.reason {
        case .cannotFindHost: .plain("check the address and your DNS")
        case .timedOut: .allowMoreTime
        case .cannotConnectToHost: .checkConnectionAndServiceAddress
        default: .plain("check your connection and try again")
        }
    }

    /// A page that is not there: the API's not-found, or nothing cached for it offline.
    var isPageMissing: Bool {
        switch self {
        case .status(let failure): failure.isNotFound || failure.apiError?.saysNotFound == true
        case .cache(let failure): failure.reason == .notCached
        default: false
        }
    }

    /// Whether running the same requests again later may succeed: the network, a busy or broken
    /// server, a rate limit. Not a resource that is gone, forbidden, or answers in another shape.
    public var isWorthRetryingLater: Bool {
        switch self {
        // A broken answer is the service's to fix, and may be fixed by then. An expired certificate
        // is the service's to renew, like the other refused certificates: its own hint says so.
        case .transport(let failure):
            Self.networkReasons.contains(failure.reason) || failure.reason == .badServerResponse
        case .status(let failure):
            !failure.isBlockPage && (failure.status == 408 || failure.status == 429 || (500...599).contains(failure.status))
        case .rateLimited: true
        case .cache(let failure): failure.reason == .damagedEntry
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
            if failure.isNotFound || failure.apiError?.saysNotFound == true { return "not found (\(failure.status))" }
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
        if case .status(let failure) = self, failure.isNotFound || failure.apiError?.saysNotFound == true {
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
