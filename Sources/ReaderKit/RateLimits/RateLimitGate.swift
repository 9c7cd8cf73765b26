import Foundation

/// Never hammers a service: remembers the rate limit each service announced at each origin (in
/// this run, and through the cache for the next), and holds a request back while nothing remains.
actor RateLimitGate {
    private let cache: CacheStore
    private let notices: NoticeBoard
    /// The longest wait for a reset (`--max-wait`); beyond it the request is not sent.
    private let maximumWait: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let now: @Sendable () -> Date
    /// The rate limits last announced, per service and origin (`reddit https://oauth.reddit.com`);
    /// read from the cache on first use. `.some(nil)`: known to be none.
    private var known: [String: RateLimitState?] = [:]

    init(cache: CacheStore, notices: NoticeBoard, maximumWait: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void,
         now: @escaping @Sendable () -> Date) {
        self.cache = cache
        self.notices = notices
        self.maximumWait = maximumWait
        self.sleep = sleep
        self.now = now
    }

    /// When the service said nothing remains at `origin`, waits for its reset if that is within
    /// `--max-wait` and the deadline, and the service's window.
    /// - Parameter reserve: the share of the announced limit this request may not spend
    ///   (``LoadOptions/rateLimitReserve``).
    /// - Throws: ``ReaderError/rateLimited(_:)`` when the reset is further away, or when the
    ///   request would spend the reserve: the request is not sent.
    func waitForReset(of service: ServiceName, window: Duration, at origin: String, deadline: ContinuousClock.Instant,
                      reserve: Double = 0) async throws(ReaderError) {
        let host = origin.lowercased()
        let key = service.rawValue + " " + host
        if known[key] == nil {
            let stored = await cache.rateLimit(forOrigin: host, service: service)
            // A response that arrived meanwhile says more than the file.
            if known[key] == nil { known[key] = .some(stored) }
        }
        guard let state = known[key] ?? nil else { return }
        if state.spendsReserve(reserve, at: now()) {
            throw .rateLimited(RateLimitFailure(service: service, origin: host, resetAt: min(state.resetAt, now().addingTimeInterval(window.inSeconds)),
                                                keptInReserve: true))
        }
        // The wait is at most the service's window, whatever the file or the header said.
        guard let wait = state.waitBeforeNextRequest(at: now(), window: window) else { return }
        let delay = Duration.clamping(seconds: wait)
        let resetAt = now().addingTimeInterval(wait)
        guard delay <= maximumWait, delay < ContinuousClock.now.duration(to: deadline) else {
            throw .rateLimited(RateLimitFailure(service: service, origin: host, resetAt: resetAt))
        }
        await notices.post(Notice(kind: .rateLimit, code: ErrorCode(.request, 1003), message:
            "\(TerminalText.sanitise(host, maxLength: 253))'s rate limit was used up; waited \(RelativeAge.describe(seconds: OutsideNumbers.wholeSeconds(wait.rounded(.up)))) for it to reset"))
        do { try await sleep(delay) } catch { throw .rateLimited(RateLimitFailure(service: service, origin: host, resetAt: resetAt)) }
        known[key] = .some(nil)
    }

    /// Keeps the rate limit a response announced, for this client and for the next run. While
    /// nothing remains (a 429 said when to come back), an answer saying more remains does not
    /// lift it: such an answer was to a request sent before, and arrived late.
    func remember(_ state: RateLimitState) async {
        let key = state.service.rawValue + " " + state.origin
        if state.remaining >= 1, case let held?? = known[key], held.remaining < 1, held.resetAt > now() { return }
        known[key] = .some(state)
        await cache.storeRateLimit(state)
    }
}
