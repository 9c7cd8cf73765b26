/// The situation of a failed request, besides its error: what the ``ErrorHandler`` decides with,
/// and what the hints given with the error are made to hold for (``ReaderError/hints(in:)``).
///
/// ``ReaderClient`` fills it in where a load fails (``LoadFailure/context``): whether a cached copy
/// exists and may be served, whether the request carried a credential, the attempt and the time
/// left. An error met elsewhere has the defaults, which claim nothing (``CachedCopy/unknown``):
/// the hints then say nothing they cannot know, and the decision is the one without a copy.
///
/// ## Topics
/// - ``CachedCopy``
/// - ``PageRange``
public struct ErrorContext: Sendable, Equatable {
    /// Who is waiting for the answer.
    public enum Mode: String, Sendable {
        /// A person or a script waiting for this one request.
        case interactive
        /// Bulk work (sync) that sums failures up at the end.
        case background
    }

    /// What the cache held for the request when it failed.
    public enum CachedCopy: Sendable, Equatable {
        /// Not known: the hints say nothing they cannot know; the decision is the one without a copy.
        case unknown
        /// Nothing is cached for the request: `--offline` would fail too.
        case none
        /// A copy young enough to be served in place of an error (within ``FreshnessPolicy/maximumStale``),
        /// which `--offline` would show too.
        case servable
        /// A copy older than ``FreshnessPolicy/maximumStale`` allows: neither served in place of
        /// an error nor by `--offline` (C1005).
        case olderThanMaxStale

        /// Whether a copy is cached, of any age.
        public var exists: Bool { self == .servable || self == .olderThanMaxStale }
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

    public var mode: Mode
    /// What the cache holds for the request.
    public var cachedCopy: CachedCopy
    /// How many attempts have been made so far, counting the one that failed (1 after the first).
    public var attempt: Int
    /// The time left before the command's deadline, when it has one.
    public var remaining: Duration?
    /// The longest wait a retry of this load may take (``RetryPolicy/maximumDelay``), when known.
    public var longestWait: Duration?
    /// Whether the request may be sent again safely (GET).
    public var isIdempotent: Bool
    /// Whether the user asked to wait for the service to become reachable (`--wait`): then a
    /// failure to reach it is retried for as long as the deadline allows.
    public var waitsForConnectivity: Bool
    /// Whether the request carried a credential of the service's ``Authenticator`` (Reddit's
    /// bearer token, with an app identity).
    public var usesToken: Bool
    /// Whether the token was already renewed for this request: a renewal is tried once.
    public var tokenWasRenewed: Bool
    /// Whether the service's authenticator reads the error as a refusal of the credential the
    /// request carried (``Authenticator/isRefusal(_:)``): then the credential is renewed once.
    public var credentialRefused: Bool
    /// The pages the list has, when the page asked for is not one of them; nil otherwise.
    public var pageRange: PageRange?
    /// Whether the error is told once for many failed requests, in the summary at the end of a
    /// sync (``SyncReport/FailureGroup``): the hints say whether running the sync again can help.
    public var isSyncSummary: Bool
    /// How long ago the server gave the answer this error is, when it was stored and is given
    /// again without a request (``FreshnessPolicy/mayStoreFailure(_:)``); nil for an answer just received.
    public var storedAnswerAge: Int?

    public init(mode: Mode = .interactive, cachedCopy: CachedCopy = .unknown, attempt: Int = 1, remaining: Duration? = nil,
                longestWait: Duration? = nil, isIdempotent: Bool = true, waitsForConnectivity: Bool = false, usesToken: Bool = false,
                tokenWasRenewed: Bool = false, credentialRefused: Bool = false, pageRange: PageRange? = nil,
                isSyncSummary: Bool = false, storedAnswerAge: Int? = nil) {
        self.mode = mode
        self.cachedCopy = cachedCopy
        self.attempt = attempt
        self.remaining = remaining
        self.longestWait = longestWait
        self.isIdempotent = isIdempotent
        self.waitsForConnectivity = waitsForConnectivity
        self.usesToken = usesToken
        self.tokenWasRenewed = tokenWasRenewed
        self.credentialRefused = credentialRefused
        self.pageRange = pageRange
        self.isSyncSummary = isSyncSummary
        self.storedAnswerAge = storedAnswerAge
    }
}
