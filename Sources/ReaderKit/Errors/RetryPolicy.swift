/// When a failed request is tried again, and after how long.
///
/// Modelled on Alamofire's `RetryPolicy`: a value whose sets of what is retried are its own
/// properties, each with a documented default, and one decision function. Only idempotent
/// requests (GET) are retried, and only failures whose class is transient
/// (``FailureClass/isTransient``): a set can choose among those, never make a 404 or a block page
/// worth another try.
public struct RetryPolicy: Sendable, Equatable {
    /// How many more attempts after the first, at the most (`--retries`).
    public var maximumRetries: Int
    /// The first backoff delay; it doubles with each attempt.
    public var baseDelay: Duration
    /// The longest single wait. A server that asks for longer (Retry-After) is not retried: its
    /// request is reported instead of holding the terminal.
    public var maximumDelay: Duration
    /// Returns a number in 0...1 for the jitter; tests fix it.
    public var jitter: @Sendable () -> Double
    /// The statuses worth another try (``defaultRetryableStatuses``); a 500 is retried only with
    /// a `Retry-After`.
    public var retryableStatuses: Set<Int> {
        get { chosenStatuses ?? Self.defaultRetryableStatuses }
        set { chosenStatuses = newValue }
    }
    /// The transport failures worth another try (``defaultRetryableTransportReasons``).
    public var retryableTransportReasons: Set<TransportFailure.Reason> {
        get { chosenTransportReasons ?? Self.defaultRetryableTransportReasons }
        set { chosenTransportReasons = newValue }
    }
    /// The transport failures that mean "not reachable now", retried until the deadline with
    /// `--wait` (``defaultConnectivityReasons``).
    public var connectivityReasons: Set<TransportFailure.Reason> {
        get { chosenConnectivityReasons ?? Self.defaultConnectivityReasons }
        set { chosenConnectivityReasons = newValue }
    }

    // The sets chosen, nil for the defaults: a policy is made at every start, and the first Set
    // of a type costs the runtime a scan of every conformance in the binary (about 0.3 M
    // instructions each), which only a failure to decide needs to pay.
    private var chosenStatuses: Set<Int>?
    private var chosenTransportReasons: Set<TransportFailure.Reason>?
    private var chosenConnectivityReasons: Set<TransportFailure.Reason>?

    /// 3 retries, 0.5 s doubling, at most 30 s a wait, full jitter.
    public static let `default` = RetryPolicy()

    /// A policy; each set left nil is its default (``defaultRetryableStatuses``,
    /// ``defaultRetryableTransportReasons``, ``defaultConnectivityReasons``).
    public init(maximumRetries: Int = 3, baseDelay: Duration = .milliseconds(500),
                maximumDelay: Duration = .seconds(30), jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) },
                retryableStatuses: Set<Int>? = nil,
                retryableTransportReasons: Set<TransportFailure.Reason>? = nil,
                connectivityReasons: Set<TransportFailure.Reason>? = nil) {
        self.maximumRetries = maximumRetries
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        chosenStatuses = retryableStatuses
        chosenTransportReasons = retryableTransportReasons
        chosenConnectivityReasons = connectivityReasons
    }

    /// Statuses worth another try:
    /// - 408 Request Timeout: the server gave up waiting for us; a new attempt may be faster.
    /// - 429 Too Many Requests: rate limited; wait as asked.
    /// - 502 Bad Gateway, 503 Service Unavailable, 504 Gateway Timeout: a proxy or an overloaded
    ///   or restarting server; transient by definition.
    ///
    /// 500 is retried only with a `Retry-After` (planned maintenance): without one it is a
    /// permanent fault and retrying is futile. No 4xx but 408 and 429 is retried: the request is wrong.
    public static let defaultRetryableStatuses: Set<Int> = [408, 429, 502, 503, 504]

    /// Transport failures worth another try: a timeout or a dropped connection may not recur.
    /// Not a host that does not resolve, a refused connection or no network: those do not heal
    /// within a backoff, and the cache answers faster.
    public static let defaultRetryableTransportReasons: Set<TransportFailure.Reason> = [.timedOut, .connectionLost]

    /// Transport failures that mean "not reachable now": with `--wait` they are retried until the
    /// deadline, whatever `maximumRetries` says, because connectivity coming back is the point.
    public static let defaultConnectivityReasons: Set<TransportFailure.Reason> =
        [.cannotFindHost, .cannotConnectToHost, .notConnected, .timedOut, .connectionLost, .proxyUnreachable]

    /// The longest backoff while waiting for connectivity: a network that comes back is noticed
    /// within this long.
    public static let connectivityPollCeiling: Duration = .seconds(5)

    /// The delay before the next attempt, or nil when `error` is not retried.
    /// - Parameters:
    ///   - error: the classified failure of the attempt that just ended.
    ///   - context: the attempt number and the time left before the deadline.
    /// - Returns: the server's Retry-After when it gave one, else full-jitter exponential backoff.
    public func delay(before error: ReaderError, in context: ErrorContext) -> Duration? {
        guard context.isIdempotent, error.failureClass.isTransient else { return nil }
        if waitsForConnectivity(after: error, in: context) {
            let ceiling = min(baseDelay * (1 << min(max(context.attempt - 1, 0), 16)), Self.connectivityPollCeiling)
            // Half fixed, half jitter: never a busy loop, never in step with other waiting clients.
            let delay = ceiling * (0.5 + 0.5 * min(max(jitter(), 0), 1))
            if let remaining = context.remaining, delay >= remaining { return nil }
            return delay
        }
        guard context.attempt <= maximumRetries else { return nil }
        let delay: Duration
        switch error {
        case .transport(let failure) where retryableTransportReasons.contains(failure.reason):
            delay = backoff(afterAttempt: context.attempt)
        case .status(let failure):
            if let seconds = failure.retryAfterSeconds,
               retryableStatuses.contains(failure.status) || failure.status == 500 {
                // Clamped whatever the Double: a server's 1e300 is "later", never a trap.
                delay = Duration.clamping(seconds: seconds)
            } else if retryableStatuses.contains(failure.status) {
                delay = backoff(afterAttempt: context.attempt)
            } else {
                return nil
            }
        default:
            return nil
        }
        guard delay <= maximumDelay else { return nil }
        if let remaining = context.remaining, delay >= remaining { return nil }
        return delay
    }

    /// Whether a retry of `error` is a wait for connectivity (`--wait`) rather than a retry of
    /// the policy's: the service cannot be reached, and the user asked to wait for it.
    func waitsForConnectivity(after error: ReaderError, in context: ErrorContext) -> Bool {
        guard context.waitsForConnectivity, error.failureClass == .unreachable, case .transport(let failure) = error else { return false }
        return connectivityReasons.contains(failure.reason)
    }

    /// Full jitter: a random wait between zero and `baseDelay × 2^(attempt-1)`, capped.
    func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 16)
        let ceiling = min(baseDelay * (1 << exponent), maximumDelay)
        return ceiling * min(max(jitter(), 0), 1)
    }

    public static func == (lhs: RetryPolicy, rhs: RetryPolicy) -> Bool {
        lhs.maximumRetries == rhs.maximumRetries && lhs.baseDelay == rhs.baseDelay && lhs.maximumDelay == rhs.maximumDelay
            && lhs.retryableStatuses == rhs.retryableStatuses && lhs.retryableTransportReasons == rhs.retryableTransportReasons
            && lhs.connectivityReasons == rhs.connectivityReasons
    }
}
