import Foundation

extension ReaderError {
    /// What can be done next about this error, as values each front end says its own way
    /// (``Hint``): every hint holds in `context`, the situation the error was met in.
    ///
    /// | situation | the hints |
    /// |---|---|
    /// | nothing known (the default) | those that hold whatever the situation |
    /// | network failure, nothing cached | not the offline mode: it says nothing is cached yet |
    /// | network failure, a copy older than `maximumStale` | not the offline mode (it refuses that copy too): a larger `maximumStale` |
    /// | network failure, a copy the offline mode would show | the offline mode |
    /// | a page past the end of a list | how many pages there are, and the last |
    /// | a status the service explained, with its credential | the service's hint for that case |
    /// | a wait the service asked for that was not taken | why: the longest wait, or the time left |
    /// | a sync's summary (``ErrorContext/isSyncSummary``) | whether running the sync again can help |
    /// | an answer stored and given again (``ErrorContext/storedAnswerAge``) | the above, then its age and how to ask again |
    ///
    /// ``Swift/Array/text`` says them in ReaderKit's words.
    /// - Parameter context: what was known when the request failed; by default nothing.
    public func hints(in context: ErrorContext = ErrorContext()) -> [Hint] {
        guard let age = context.storedAnswerAge else { return hintsInSituation(context) }
        return hintsInSituation(context) + [.storedAnswer(ageSeconds: age)]
    }

    /// The hints that hold in `context`, stored answer or not.
    private func hintsInSituation(_ context: ErrorContext) -> [Hint] {
        if context.isSyncSummary { return hintsAfterSync }
        if let range = context.pageRange, isPageMissing {
            return [.lastPage(pages: range.pages, items: range.items)]
        }
        if case .status(let failure) = self, let explanation = failure.explanation, let text = explanation.hintWithCredential,
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
            return [networkHint(failure), .nothingCachedForOffline]
        case (.transport(let failure), .servable) where unreachable:
            return [networkHint(failure), .offlineShowsCachedCopy]
        case (_, .olderThanMaxStale) where failureClass.leavesCachedCopyServable:
            let base = if case .transport(let failure) = self, unreachable { [networkHint(failure)] }
                else { hintsKnowingNothing }
            return base + [.allowOlderCopy]
        default:
            return hintsKnowingNothing
        }
    }

    /// What to do about the network itself, without a word about the cache.
    private func networkHint(_ failure: TransportFailure) -> Hint {
        switch failure.reason {
        case .cannotFindHost: .plain("check the address and your DNS")
        case .timedOut: .allowMoreTime
        case .cannotConnectToHost: .checkConnectionAndServiceAddress
        case .proxyUnreachable: failure.proxyHint
        default: .plain("check your connection and try again")
        }
    }

    /// What to do about requests of a sync that failed with this error: run it again only where
    /// that can help. A 404 is not fixed by running the sync again.
    private var hintsAfterSync: [Hint] {
        if case .status(let failure) = self, failure.failureClass == .notFound {
            return [.plain("they are gone or never existed: running the sync again will not bring them back")]
        }
        guard isWorthRetryingLater else { return hintsKnowingNothing }
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

    /// A page that is not there: the API's not-found, or nothing cached for it offline.
    var isPageMissing: Bool {
        switch self {
        case .status(let failure): failure.failureClass == .notFound
        case .cache(let failure): failure.reason == .notCached
        default: false
        }
    }

    /// The hints that hold whatever the situation.
    private var hintsKnowingNothing: [Hint] {
        switch self {
        case .invalidArgument: return [.checkArguments]
        case .invalidConfiguration: return [.fixConfiguration]
        case .transport(let failure):
            switch failure.reason {
            case .cannotFindHost: return [.plain("check the address and your DNS"), .tryAgainOffline]
            case .timedOut: return [.allowMoreTime]
            case .responseTooLarge, .tooManyRedirects: return [.checkServiceAddress]
            case .badServerResponse: return [.serviceAnsweredWrongly]
            case .secureConnectionFailed:
                return [.plain("the service may not speak TLS (https) on that port, or only a version reader refuses"), .checkServiceAddress]
            case .certificateExpired: return [.plain("only the service can renew its certificate; try again later")]
            case .certificateNotYetValid:
                return [.plain("check this computer's date and time; if they are right, the service must fix its certificate")]
            case .certificateWrongName:
                return [.checkServiceAddress, .plain("a network that intercepts secure connections may also be in the way")]
            case .certificateUntrusted:
                return [.plain("a network that intercepts secure connections (a company proxy, a captive portal) may be in the way; otherwise the service must use a certificate from a trusted authority")]
            case .redirectRefused: return [.checkServiceAddressRedirected]
            case .proxyUnreachable: return [failure.proxyHint, .readCachedDataOffline]
            case .proxyAuthenticationRequired, .proxyRefused: return [failure.proxyHint]
            default: return [.plain("check your connection and try again"), .readCachedDataOffline]
            }
        case .status(let failure):
            // A time to come back means something only from a server that may answer then: a
            // 400 or a block page with a Retry-After is still a 400 or a block page.
            let comeBackLater = failure.asksToComeBackLater
            if let explanation = failure.explanation, let text = explanation.hint, !comeBackLater {
                return [.service(failure.service, reason: explanation.reason, withCredential: false, text: text)]
            }
            if comeBackLater { return [.tryAgainThenOrAllowLongerWait] }
            switch failure.status {
            // The API's own not-found (SWAPI's `{"detail": "Not found"}`) is about the name or
            // id; one without its error body (a web server's page) comes from an address where
            // the API is not, as a collection or the root of a wrong base URL answers.
            case 404, 410: return failure.apiError == nil ? [.checkServiceAddressNotFound] : [.plain("check the name or id")]
            case 401, 403: return [.notReadable]
            case 451: return [.plain("the service says it may not show this here, for legal reasons; the arguments are not at fault")]
            // The captive portal's own status: the network asks for a login before anything else.
            case 511: return [.plain("a network login page (captive portal) is in the way; open a browser and sign in, or try another network")]
            case 408, 429: return [.plain("wait a moment and try again")]
            case 500...599: return [.plain("the service has a problem; try again later")]
            // A 304 with nothing to confirm, a redirect without a Location that can be read, a
            // token endpoint that redirects: the server broke HTTP, the arguments are not at fault.
            case 300...399: return [.serviceAnsweredWrongly]
            // Another client error, or the API's own error envelope in a 2xx answer: about the request.
            case _ where (400...499).contains(failure.status) || ((200...299).contains(failure.status) && failure.apiError != nil):
                return [.plain(failure.apiError?.saysNotFound == true ? "check the name or id" : "check the arguments")]
            // A status that is no client error (101, 999): the server's, whatever was asked.
            default: return [.serviceAnsweredWrongly]
            }
        case .contentType:
            return [.plain("a network login page (captive portal) or a block page may be in the way; open a browser or try another network")]
        case .decoding:
            return [.updateTheModels]
        case .cache(let failure):
            switch failure.reason {
            case .notCached: return [.loadOnceConnected]
            case .tooOld: return [.allowOlderDataOrConnect]
            case .damagedEntry: return [.plain("nothing to do: the damaged copy was dropped and is read again from the network next time")]
            // Another process's lock is no fault of the file's: nothing to make writable.
            case .unwritable where failure.isBusy: return [.cacheBusy]
            case .unwritable, .unavailable, .corrupt: return [.useAnotherCacheFile(failure.reason)]
            }
        case .rateLimited(let failure) where failure.keptInReserve:
            return [.plain("nothing to do: what you ask for yourself may still spend the rest")]
        case .rateLimited:
            return [.tryAgainAfterResetOrAllowLongerWait]
        case .authentication(let failure):
            return [.checkCredentials(failure.service, withoutSecret: failure.withoutSecret)]
        case .output(let failure) where failure.destination == .temporaryFile:
            switch failure.errorNumber {
            case ENOSPC, EDQUOT: return [.plain("free some space in the temporary folder (/tmp), or read fewer pages")]
            case EFBIG: return [.plain("the system's file size limit (ulimit -f) is below what it needs: raise it, or read fewer pages")]
            default: return [.plain("make the temporary folder (/tmp) writable, or read fewer pages")]
            }
        case .output(let failure):
            return [.plain(failure.errorNumber == ENOSPC || failure.errorNumber == EDQUOT
                ? "free some space, or send the output elsewhere" : "send the output somewhere it can be written")]
        case .bug:
            return [.plain("this is a bug; please report it with code \(code)")]
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
}
