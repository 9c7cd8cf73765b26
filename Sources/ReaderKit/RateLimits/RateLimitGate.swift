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
    /// The requests sent and not yet answered, per service and origin: what the last
    /// announcement does not count yet, and a reserve must.
    private var inFlight: [String: Int] = [:]

    init(cache: CacheStore, notices: NoticeBoard, maximumWait: Duration, sleep: @escaping @Sendable (Duration) async throws -> Void,
         now: @escaping @Sendable () -> Date) {
        self.cache = cache
        self.notices = notices
        self.maximumWait = maximumWait
        self.sleep = sleep
        self.now = now
    }

    /// When the service said nothing remains at `origin`, waits for its reset if that is within
    /// `--max-wait` and the deadline, and the service's window. Once it returns, the request is
    /// counted in flight until ``answered(_:at:)``.
    /// - Parameter reserve: the share of the announced limit this request may not spend
    ///   (``LoadOptions/rateLimitReserve``), the requests in flight counted as spent.
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
        guard let state = known[key] ?? nil else {
            inFlight[key, default: 0] += 1
            return
        }
        if state.spendsReserve(reserve, inFlight: inFlight[key] ?? 0, at: now()) {
            throw .rateLimited(RateLimitFailure(service: service, origin: host, resetAt: min(state.resetAt, now().addingTimeInterval(window.inSeconds)),
                                                keptInReserve: true))
        }
        // The wait is at most the service's window, whatever the file or the header said.
        guard let wait = state.waitBeforeNextRequest(at: now(), window: window) else {
            // Counted at once, before any other request is let through.
            inFlight[key, default: 0] += 1
            return
        }
        let delay = Duration.clamping(seconds: wait)
        let resetAt = now().addingTimeInterval(wait)
        guard delay <= maximumWait, delay < ContinuousClock.now.duration(to: deadline) else {
            throw .rateLimited(RateLimitFailure(service: service, origin: host, resetAt: resetAt))
        }
        await notices.post(Notice(kind: .rateLimit, code: ErrorCode(.request, 1003), message:
            "\(TerminalText.sanitise(host, maxLength: 253))'s rate limit was used up; waited \(RelativeAge.describe(seconds: OutsideNumbers.wholeSeconds(wait.rounded(.up)))) for it to reset"))
        do { try await sleep(delay) } catch { throw .rateLimited(RateLimitFailure(service: service, origin: host, resetAt: resetAt)) }
        known[key] = .some(nil)
        inFlight[key, default: 0] += 1
    }

    /// The request let through by ``waitForReset(of:window:at:deadline:reserve:)`` was answered,
    /// or failed: it is no longer in flight. Called after what its answer announced is remembered.
    func answered(_ service: ServiceName, at origin: String) {
        let key = service.rawValue + " " + origin.lowercased()
        guard let count = inFlight[key] else { return }
        inFlight[key] = count > 1 ? count - 1 : nil
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
