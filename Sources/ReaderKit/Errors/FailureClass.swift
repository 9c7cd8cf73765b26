/// What a failure says about the service, the resource and trying again: the one classification
/// that the retry policy, the serving of a stale copy, the hints and a sync's summary read.
///
/// Each error has exactly one class (``ReaderError/failureClass``), decided here and nowhere
/// else. The ``ErrorHandler`` reads it to decide; ``RetryPolicy`` retries only the classes that
/// are ``isTransient``, and within them what its own sets name; the hints about the network, the
/// offline mode and a sync's "run it again" read it too.
///
/// Which failures fall in which class, and what a cached copy and a later run make of each, is
/// in <doc:FailureContract>.
public enum FailureClass: String, Sendable, CaseIterable {
    /// No answer came: no network, a name that does not resolve, nothing listening, a connection
    /// lost or timed out, the proxy not reachable. Says nothing of the resource; the service (or
    /// the proxy) may be back in a moment.
    case unreachable
    /// The service answered that it is too busy, or asks to be asked later: 408, 429, 502, 503,
    /// 504, or a rate limit already used up (R1003).
    case busy
    /// The service failed in a way only it can fix, and may have fixed by the next run: another
    /// 5xx, an answer outside HTTP (T1011), a redirect that cannot be followed.
    case serviceFault
    /// reader refused the connection for the user's safety or its own limits: TLS and certificates,
    /// a redirect to another origin, too many redirects, an answer larger than it reads.
    case refusedByReader
    /// The user's proxy (``ProxySettings``) would not carry the request: it asks for credentials
    /// (407), or refused to open a tunnel to the service. Says nothing of the resource; asking
    /// again the same way gets the same answer until the proxy setting or the proxy changes.
    case refusedByProxy
    /// An answer came, but not one the models read: HTML where JSON was expected, JSON of
    /// another shape.
    case unexpectedAnswer
    /// The resource does not exist, or no longer does: 404, 410, the API's own "not found".
    case notFound
    /// This client may not read it: 401, 403, the site's block page, the app's credentials refused.
    case refusedByService
    /// The request is wrong: another 4xx, an invalid argument or configuration. Asking again
    /// the same way gets the same answer.
    case badRequest
    /// Not the service's: the local cache, the output, a bug.
    case local

    /// Whether a cached copy answers in place of this failure: it says nothing about the resource,
    /// only about reaching it or reading this answer now.
    public var leavesCachedCopyServable: Bool {
        switch self {
        case .unreachable, .busy, .serviceFault, .refusedByReader, .refusedByProxy, .unexpectedAnswer: true
        case .notFound, .refusedByService, .badRequest, .local: false
        }
    }

    /// Whether the failure says the cached copy of the resource must go: it is gone, or not
    /// readable by the credential sent.
    public var meansTheCopyIsGone: Bool {
        self == .notFound || self == .refusedByService
    }

    /// Whether trying the same request again, soon or later, may succeed: what ``RetryPolicy``
    /// may retry at all (its sets say which of them it does).
    public var isTransient: Bool {
        self == .unreachable || self == .busy || self == .serviceFault
    }

    /// Whether the failure is about the connection rather than any answer: each request of a run
    /// meets it alike, so background work counts it in its summary rather than stopping.
    public var isAboutTheConnection: Bool {
        self == .unreachable || self == .refusedByReader || self == .refusedByProxy
    }
}

extension ReaderError {
    /// This error's class: what it says about the service, the resource and trying again.
    public var failureClass: FailureClass {
        switch self {
        case .transport(let failure):
            switch failure.reason {
            case .timedOut, .cannotFindHost, .cannotConnectToHost, .connectionLost, .notConnected, .unknown, .proxyUnreachable:
                .unreachable
            case .proxyAuthenticationRequired, .proxyRefused: .refusedByProxy
            case .badServerResponse: .serviceFault
            case .tooManyRedirects, .redirectRefused, .responseTooLarge, .secureConnectionFailed, .certificateExpired,
                 .certificateWrongName, .certificateUntrusted, .certificateNotYetValid:
                .refusedByReader
            }
        case .status(let failure): failure.failureClass
        case .rateLimited: .busy
        case .contentType, .decoding: .unexpectedAnswer
        case .authentication: .refusedByService
        case .invalidArgument, .invalidConfiguration: .badRequest
        case .cache, .output, .bug: .local
        }
    }

    /// Whether running the same requests again later may succeed (a sync's "run it again"): the
    /// network, a busy or broken server, a rate limit, a damaged cached copy dropped. Not a
    /// resource that is gone, forbidden, or answers in another shape.
    public var isWorthRetryingLater: Bool {
        if case .cache(let failure) = self { return failure.reason == .damagedEntry }
        return failureClass.isTransient
    }

    /// Whether the answer was a page of the site's firewall refusing this client.
    var isBlockPage: Bool {
        if case .status(let failure) = self { failure.isBlockPage } else { false }
    }
}

extension StatusFailure {
    /// Whether the server asks to be asked again at a moment still to come, and is one that may
    /// answer then (``FailureClass/isTransient``): a 400 or a block page with a `Retry-After` is
    /// a 400 or a block page all the same.
    public var asksToComeBackLater: Bool {
        failureClass.isTransient && retryAt != nil && (retryAfterSeconds ?? 0) > 0
    }

    /// The status's class (``FailureClass``): a block page refuses this client whatever its status.
    public var failureClass: FailureClass {
        if isBlockPage { return .refusedByService }
        if isNotFound || apiError?.saysNotFound == true { return .notFound }
        switch status {
        case 401, 403: return .refusedByService
        case 408, 429, 502, 503, 504: return .busy
        case 400...499: return .badRequest
        // A 2xx fails only with the API's own error envelope in it, or as a 204 where a body is
        // needed: about the request.
        case 200...299: return .badRequest
        default: return .serviceFault
        }
    }
}
