import Foundation
import Logging

/// How one load may use the cache and the network.
public struct LoadOptions: Sendable, Equatable {
    public enum CacheMode: String, Sendable {
        /// Serve a fresh cached copy; otherwise ask the network, falling back to a stale copy.
        case normal
        /// Ask the network even when a fresh copy exists; still fall back to it on failure.
        case refresh
        /// Never touch the network; serve any cached copy, however old.
        case offline
    }

    public var cacheMode: CacheMode
    public var mode: ErrorContext.Mode
    /// The command's deadline, shared by all its loads so that retries never outlive `--timeout`;
    /// when nil, each load gets the configuration's `timeout` from its start.
    public var deadline: ContinuousClock.Instant?
    /// Whether to wait, within the deadline, for a service that cannot be reached (`--wait`).
    public var waitForConnectivity: Bool

    public init(cacheMode: CacheMode = .normal, mode: ErrorContext.Mode = .interactive, deadline: ContinuousClock.Instant? = nil,
                waitForConnectivity: Bool = false) {
        self.waitForConnectivity = waitForConnectivity
        self.cacheMode = cacheMode
        self.mode = mode
        self.deadline = deadline
    }
}

/// Where a loaded value came from and how old it is.
public struct LoadMetadata: Sendable, Equatable, Codable {
    public enum Source: String, Sendable, Codable {
        /// A new body from the network.
        case network
        /// The cached copy, without the network.
        case cache
        /// The cached copy, confirmed unchanged by the network with a `304 Not Modified`.
        case revalidated
    }

    public var source: Source
    /// Whether the data is older than its freshness lifetime.
    public var stale: Bool
    public var fetchedAt: Date
    public var ageSeconds: Int
    /// The code of the error that made a stale copy be served, if one did.
    public var errorCode: ErrorCode?
    public var url: String

    enum CodingKeys: String, CodingKey {
        case source, stale, url
        case fetchedAt = "fetched_at"
        case ageSeconds = "age_seconds"
        case errorCode = "error_code"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(stale, forKey: .stale)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(errorCode, forKey: .errorCode)  // null when none, so scripts can rely on the key
        try container.encode(url, forKey: .url)
    }
}

/// A decoded value with the bytes it came from and where they came from.
public struct Loaded<Value: Sendable>: Sendable {
    public var value: Value
    /// The raw JSON body, as the API sent it.
    public var body: Data
    public var metadata: LoadMetadata
    /// The error a stale cached copy was served in place of, if one was (its code is
    /// `metadata.errorCode`).
    public var servedInsteadOf: ReaderError?
}

/// A load that failed: the classified error and what the ErrorHandler decided about it.
public struct LoadFailure: Error, Sendable {
    public var error: ReaderError
    public var decision: Decision
    /// What the client knew about the request (its cached copy, the app identity), so that the
    /// hint shown is one that holds.
    public var facts: FailureFacts

    public init(error: ReaderError, decision: Decision, facts: FailureFacts = FailureFacts()) {
        self.error = error
        self.decision = decision
        self.facts = facts
    }

    /// What can be done next, in this situation, in ReaderKit's words (``ReaderError/suggestion(given:)``).
    public var suggestion: String { error.suggestion(given: facts) }

    /// What can be done next, in this situation, as values a front end words its own way
    /// (``ReaderError/advice(given:)``).
    public var advice: [Advice] { error.advice(given: facts) }
}

/// Loads endpoints through the cache and the network, applying the ErrorHandler's decisions.
///
/// This is the pipeline: cache lookup → transport → status and API error body → content type →
/// decoding → store; on a failure, the ``ErrorHandler`` decides to retry, serve a stale copy,
/// reset state or alert. A library user gets exactly the behaviour of the `reader` command.
///
/// ## Topics
/// - ``init(configuration:transport:logger:sleep:now:)``
/// - ``load(_:options:)``
/// - ``notices``
/// - ``shutdown()``
public actor ReaderClient {
    /// What a client needs to know.
    public struct Configuration: Sendable {
        public var services: ServiceConfiguration
        /// The cache file; nil for no cache at all.
        public var cachePath: String?
        /// The deadline for one load, retries included.
        public var timeout: Duration
        public var retryPolicy: RetryPolicy
        public var freshness: FreshnessPolicy
        /// The largest body accepted, after decompression.
        public var maximumBodySize: Int
        /// The most redirects followed for one request.
        public var maximumRedirects: Int
        /// The most bytes of bodies the cache keeps (`--cache-size`); the least recently used
        /// entries are evicted beyond it. Nil for no limit.
        public var cacheSizeLimit: Int?
        /// The most requests in flight at once for work of many requests (all pages, linked
        /// names, sync): enough to hide latency, few enough to be polite to a free API.
        public var maximumConcurrentRequests: Int

        public init(services: ServiceConfiguration = .builtIn, cachePath: String? = nil,
                    timeout: Duration = .seconds(20), retryPolicy: RetryPolicy = .default,
                    freshness: FreshnessPolicy = .default, maximumBodySize: Int = 10 * 1024 * 1024,
                    maximumRedirects: Int = 5, cacheSizeLimit: Int? = 100 * 1024 * 1024,
                    maximumConcurrentRequests: Int = 6) {
            self.maximumConcurrentRequests = max(1, maximumConcurrentRequests)
            self.services = services
            self.cachePath = cachePath
            self.timeout = timeout
            self.retryPolicy = retryPolicy
            self.freshness = freshness
            self.maximumBodySize = maximumBodySize
            self.maximumRedirects = maximumRedirects
            self.cacheSizeLimit = cacheSizeLimit
        }
    }

    public let configuration: Configuration
    /// Notices of this client's loads (stale data, cache trouble), each once.
    public let notices = NoticeBoard()
    private let handler: ErrorHandler
    let logger: Logger
    private let sleep: @Sendable (Duration) async throws -> Void
    let now: @Sendable () -> Date
    private var transport: (any HTTPTransport)?
    private var cacheState: CacheState = .unopened
    private var opening: Task<ResponseCache?, Never>?
    /// Whether this client already replaced a damaged cache file: it is done once, never in a loop.
    private var replacedDamagedCache = false
    /// The last cache failure noted, so that `reader cache …` reports why the cache did not open.
    private var lastCacheFailure: CacheFailure?
    /// The rate limits last announced, per service and origin (`reddit https://oauth.reddit.com`);
    /// read from the cache on first use.
    private var rateLimits: [String: RateLimitState?] = [:]
    /// Every secret this client has held: the authenticators' secrets in the forms a server may
    /// echo them, and each credential. A failure's text is shown without them
    /// (``ReaderError/redacting(_:)``).
    var secrets: Set<String> = []
    /// The credential each authenticated service's requests carry now, with its version.
    var credentials: [ServiceName: HeldCredential] = [:]
    /// The credential requests in flight, one per service, shared by the loads that need it.
    var credentialFetches: [ServiceName: Task<Result<AuthenticationCredential, ReaderError>, Never>] = [:]
    /// The last version given to a credential: each credential held gets the next.
    var credentialVersions = 0

    private enum CacheState {
        case unopened
        case open(ResponseCache)
        case none
    }

    /// Creates a client.
    /// - Parameters:
    ///   - configuration: services, cache, limits and policies.
    ///   - transport: the HTTP transport; by default an ``AsyncHTTPTransport``, made on first use so
    ///     that an offline read never starts one.
    ///   - logger: where requests are logged at debug level.
    ///   - sleep: how retries wait; tests pass one that does not.
    ///   - now: the clock for ages and freshness.
    public init(configuration: Configuration, transport: (any HTTPTransport)? = nil,
                logger: Logger = Logger(label: "reader.client"),
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.secrets = configuration.services.secrets
        self.transport = transport
        self.handler = ErrorHandler(retryPolicy: configuration.retryPolicy)
        self.logger = logger
        self.sleep = sleep
        self.now = now
    }

    /// Closes the transport's connections, and leaves what was stored in the cache file itself
    /// (see ``ResponseCache/finishWrites()``).
    public func shutdown() async {
        await transport?.shutdown()
        transport = nil
        currentCache?.finishWrites()
    }

    /// Loads `endpoint`.
    /// - Parameters:
    ///   - endpoint: what to load.
    ///   - options: how the cache and the network may be used.
    /// - Returns: the decoded value, its bytes, and where they came from.
    /// - Throws: ``LoadFailure`` when the ErrorHandler decides to alert.
    public func load<Value>(_ endpoint: Endpoint<Value>, options: LoadOptions = LoadOptions()) async throws(LoadFailure) -> Loaded<Value> {
        guard let service = configuration.services[endpoint.service], let (request, url) = endpoint.request(for: service) else {
            let error = ReaderError.invalidConfiguration("no service named \(endpoint.service) is configured, or its base URL and this path make no URL")
            throw LoadFailure(error: error, decision: handler.decide(error, in: ErrorContext(mode: options.mode)))
        }
        let key = CacheKey.normalise(url)
        let cache = await openCache()
        let cached: (entry: CacheEntry, value: Value)? = await cachedCopy(of: Value.self, key: key, service: endpoint.service)
        let freshness = configuration.freshness
        let rule = service.freshness
        let servable = cached.map { freshness.mayServeStale($0.entry, at: now()) } ?? false

        switch (options.cacheMode, cached) {
        case (.offline, nil):
            let error = ReaderError.cache(CacheFailure(.notCached, path: cache?.path ?? "", detail: "no entry for \(key)"))
            throw LoadFailure(error: error, decision: handler.decide(error, in: ErrorContext(mode: options.mode)),
                              facts: FailureFacts(cachedCopy: .none))
        case (.offline, let cached?) where !servable:
            let error = ReaderError.cache(CacheFailure(.tooOld, path: cache?.path ?? "", detail:
                "the copy of \(key) is \(RelativeAge.describe(seconds: cached.entry.ageSeconds(at: now()))) old"))
            throw LoadFailure(error: error, decision: handler.decide(error, in: ErrorContext(mode: options.mode)),
                              facts: FailureFacts(cachedCopy: .olderThanMaxStale))
        case (.offline, let cached?),
             (.normal, let cached?) where freshness.isFresh(cached.entry, rule: rule, at: now()):
            await record(.hit, service: endpoint.service, key: key)
            return loaded(cached.value, from: cached.entry, rule: rule, errorCode: nil)
        default:
            break
        }

        let deadline = options.deadline ?? ContinuousClock.now.advanced(by: configuration.timeout)
        let authenticator = service.authenticator
        let usesToken = authenticator != nil
        var tokenWasRenewed = false
        var copyDeleted = false
        var attempt = 0
        /// The credential the last attempt carried, to renew only that one on a refusal.
        var credential: HeldCredential?
        while true {
            attempt += 1
            let error: ReaderError
            // The token request is a POST, made before the GET: its failures are not retried as a GET's are.
            var isIdempotent = true
            do throws(ReaderError) {
                if let authenticator {
                    isIdempotent = false
                    credential = try await currentCredential(for: service.name, authenticator, deadline: deadline)
                    isIdempotent = true
                }
                switch try await fetch(endpoint, service: service, request: request, url: url, key: key, deadline: deadline,
                                       revalidating: cached?.entry, credential: credential) {
                case .body(let result):
                    await record(.miss, service: endpoint.service, key: key)
                    return result
                case .notModified(let response):
                    guard let cached else { throw ReaderError.bug("304 Not Modified to a request without validators") }
                    return await revalidated(cached, by: response, key: key, rule: rule)
                }
            } catch let failure {
                // A server may echo what it was sent: never show a credential back.
                error = failure.answered(by: service).redacting(secrets)
            }
            let context = ErrorContext(mode: options.mode, hasCachedCopy: cached != nil, cachedCopyIsServable: servable,
                                       attempt: attempt, remaining: ContinuousClock.now.duration(to: deadline), isIdempotent: isIdempotent,
                                       waitsForConnectivity: options.waitForConnectivity,
                                       usesToken: usesToken, tokenWasRenewed: tokenWasRenewed)
            var decision = handler.decide(error, in: context)
            logger.debug("request failed", metadata: [
                "request.url": "\(url)", "error.code": "\(error.code)", "decision": "\(decision)", "attempt": "\(attempt)",
            ])
            if case .reset(.deleteCachedCopy, let then) = decision {
                await write { (cache) throws(CacheFailure) in try cache.deleteEntry(forKey: key) }
                copyDeleted = true
                decision = then
            }
            if case .reset(.renewToken, let then) = decision {
                if let authenticator, let credential { discardCredential(credential, of: service.name, authenticator) }
                tokenWasRenewed = true
                decision = then
            }
            switch decision {
            case .retry(let delay):
                if options.waitForConnectivity, attempt == 1, case .transport(let failure) = error,
                   RetryPolicy.connectivityReasons.contains(failure.reason) {
                    await notices.post(Notice(kind: .waiting, code: error.code, wording:
                        "\(TerminalText.sanitise(failure.host, maxLength: 253)) cannot be reached; waiting for it (\(name: "LoadOptions.waitForConnectivity"), up to \(name: "LoadOptions.deadline"))"))
                }
                // A wait that is cancelled ends the load with the failure that caused it.
                let cause = error
                do { try await sleep(delay) } catch { throw LoadFailure(error: cause, decision: .alert) }
            case .ignore(.servedStale):
                guard let copy = cached else { throw LoadFailure(error: .bug("stale data decided with no cached copy"), decision: .alert) }
                await record(.hit, service: endpoint.service, key: key)
                var result = loaded(copy.value, from: copy.entry, rule: rule, errorCode: error.code)
                result.servedInsteadOf = error
                await notices.post(Notice(kind: .staleData, code: error.code, message:
                    "showing cached data from \(RelativeAge.describe(seconds: result.metadata.ageSeconds)) ago: \(error.message)"))
                return result
            default:
                await record(.miss, service: endpoint.service, key: key)
                if let copy = cached, !servable, ErrorHandler.mayServeStale(error) {
                    await notices.post(Notice(kind: .staleData, code: ErrorCode(.cache, CacheFailure.Reason.tooOld.rawValue), wording:
                        "a cached copy from \(RelativeAge.describe(seconds: copy.entry.ageSeconds(at: now()))) ago was not shown: it is older than \(name: "FreshnessPolicy.maximumStale") allows"))
                }
                // A copy a reset just deleted is gone: nothing is cached any more.
                let copyState: FailureFacts.CachedCopy = cached == nil || copyDeleted ? .none : servable ? .servable : .olderThanMaxStale
                throw LoadFailure(error: error, decision: decision, facts: FailureFacts(cachedCopy: copyState, usedAppIdentity: usesToken))
            }
        }
    }

    /// What one attempt brought back.
    private enum FetchOutcome<Value: Sendable> {
        /// A new body, validated, decoded and stored.
        case body(Loaded<Value>)
        /// The server confirmed the cached copy.
        case notModified(HTTPResponse)
    }

    /// One attempt: the network (conditional when a copy with validators exists), validation,
    /// decoding, then the cache.
    private func fetch<Value>(_ endpoint: Endpoint<Value>, service: any Service, request: ServiceRequest, url: URL, key: String,
                              deadline: ContinuousClock.Instant, revalidating copy: CacheEntry?,
                              credential: HeldCredential?) async throws(ReaderError) -> FetchOutcome<Value> {
        var headers = request.headers
        let conditional = copy?.etag != nil || copy?.lastModified != nil
        if let etag = copy?.etag { headers.add("If-None-Match", etag) }
        if let lastModified = copy?.lastModified { headers.add("If-Modified-Since", lastModified) }
        let (response, finalURL) = try await send(url, service: service, headers: headers, deadline: deadline, credential: credential)
        if response.status == 304, conditional { return .notModified(response) }
        let shownURL = finalURL.absoluteString
        let value = try ResponseValidator.decode(Value.self, from: response, url: shownURL, now: now(), service: service)
        let fetchedAt = now()
        let entry = CacheEntry(key: key, service: endpoint.service, url: url.absoluteString, status: response.status,
                               body: response.body, contentType: response.headers["Content-Type"],
                               etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"],
                               cacheControl: response.headers["Cache-Control"], fetchedAt: fetchedAt)
        if FreshnessPolicy.mayStore(cacheControl: entry.cacheControl) {
            let limit = configuration.cacheSizeLimit
            await write { (cache) throws(CacheFailure) in
                let evicted = try cache.store(entry, sizeLimit: limit)
                logger.debug("stored", metadata: ["cache.key": "\(key)", "cache.bytes": "\(entry.bodySize)",
                                                  "cache.evicted": "\(evicted.map(String.init) ?? "not stored: larger than the cache size limit")"])
            }
        }
        return .body(Loaded(value: value, body: response.body, metadata: LoadMetadata(
            source: .network, stale: false, fetchedAt: fetchedAt, ageSeconds: 0, errorCode: nil, url: url.absoluteString)))
    }

    /// The cached copy, confirmed by a `304`: fresh again from now, with what the `304` said.
    private func revalidated<Value>(_ copy: (entry: CacheEntry, value: Value), by response: HTTPResponse,
                                    key: String, rule: FreshnessPolicy.Rule) async -> Loaded<Value> {
        let confirmedAt = now()
        var entry = copy.entry
        entry.fetchedAt = confirmedAt
        entry.etag = response.headers["ETag"] ?? entry.etag
        entry.lastModified = response.headers["Last-Modified"] ?? entry.lastModified
        entry.cacheControl = response.headers["Cache-Control"] ?? entry.cacheControl
        let updated = entry
        await write { (cache) throws(CacheFailure) in
            try cache.markRevalidated(key: key, at: confirmedAt, etag: updated.etag, lastModified: updated.lastModified,
                                      cacheControl: updated.cacheControl)
        }
        await record(.revalidation, service: entry.service, key: key)
        return Loaded(value: copy.value, body: entry.body, metadata: LoadMetadata(
            source: .revalidated, stale: false, fetchedAt: confirmedAt, ageSeconds: 0, errorCode: nil, url: entry.url))
    }

    /// Sends a GET, following redirects within ``Origin/redirect(from:to:)``'s rules. A redirect
    /// the service reads as an answer (``Service/failure(redirectedTo:from:)``) is that answer. The
    /// credential goes only to its authenticator's origin; `credential` is the one a load already
    /// holds, and without it one is obtained here when the origin needs it.
    func send(_ url: URL, service: any Service, headers: HeaderFields, deadline: ContinuousClock.Instant,
              credential: HeldCredential? = nil) async throws(ReaderError) -> (HTTPResponse, URL) {
        let transport = self.transportForUse()
        var headers = headers
        var current = url
        for _ in 0...configuration.maximumRedirects {
            if let authenticator = service.authenticator {
                // The credential goes only to its origin (scheme, host and port), never to another
                // port or scheme of its host, nor anywhere a redirect points.
                headers.remove("Authorization")
                if let origin = Origin(current), origin == authenticator.origin {
                    let held = if let credential { credential } else { try await currentCredential(for: service.name, authenticator, deadline: deadline) }
                    authenticator.apply(held.credential, to: &headers)
                }
            }
            let origin = Origin(current)?.description ?? current.host ?? ""
            try await waitForRateLimit(of: service.name, origin: origin, deadline: deadline)
            logger.debug("GET", metadata: ["request.url": "\(current)"])
            let response: HTTPResponse
            do { response = try await transport.send(HTTPRequest(url: current, headers: headers), deadline: deadline) }
            catch { throw .transport(error) }
            await remember(RateLimitState(host: origin, service: service.name, announcement: service.rateLimit(in: response.headers), now: now()))
            logger.debug("response", metadata: ["request.url": "\(current)", "response.status": "\(response.status)",
                                                "response.bytes": "\(response.body.count)"])
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"],
                  let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                return (response, current)
            }
            if let failure = service.failure(redirectedTo: next, from: current) { throw .status(failure) }
            if case .refuse(let refusal) = Origin.redirect(from: current, to: next) {
                throw .transport(.redirectRefused(refusal, from: current, to: next))
            }
            current = next
        }
        throw .transport(TransportFailure(.tooManyRedirects, host: url.host ?? "", detail: "more than \(configuration.maximumRedirects) redirects"))
    }

    /// Never hammers: when the API said nothing remains, waits for its reset if that is within
    /// `--max-wait` and the deadline, and otherwise does not send the request.
    private func waitForRateLimit(of service: ServiceName, origin: String, deadline: ContinuousClock.Instant) async throws(ReaderError) {
        let host = origin.lowercased()
        let key = service.rawValue + " " + host
        if rateLimits[key] == nil { rateLimits[key] = .some(try? currentCache?.rateLimit(forOrigin: host, service: service)) }
        // The wait is at most RateLimitState.maximumWindow, whatever the file or the header said.
        guard let state = rateLimits[key] ?? nil, let wait = state.waitBeforeNextRequest(at: now()) else { return }
        let delay = Duration.clamping(seconds: wait)
        let resetAt = now().addingTimeInterval(wait)
        guard delay <= configuration.retryPolicy.maximumDelay, delay < ContinuousClock.now.duration(to: deadline) else {
            throw .rateLimited(RateLimitFailure(service: service, host: host, resetAt: resetAt))
        }
        await notices.post(Notice(kind: .rateLimit, code: ErrorCode(.request, 1003), message:
            "\(TerminalText.sanitise(host, maxLength: 253))'s rate limit was used up; waited \(RelativeAge.describe(seconds: OutsideNumbers.wholeSeconds(wait.rounded(.up)))) for it to reset"))
        do { try await sleep(delay) } catch { throw .rateLimited(RateLimitFailure(service: service, host: host, resetAt: resetAt)) }
        rateLimits[key] = .some(nil)
    }

    /// Keeps the rate limit a response announced, for this client and for the next run.
    private func remember(_ state: RateLimitState?) async {
        guard let state else { return }
        rateLimits[state.service.rawValue + " " + state.host] = .some(state)
        await write { (cache) throws(CacheFailure) in try cache.storeRateLimit(state) }
    }

    /// Counts the load for `reader cache stats`; a cache that cannot be written is not counted in.
    private func record(_ use: CacheUse, service: ServiceName, key: String) async {
        let now = now()
        await write { (cache) throws(CacheFailure) in try cache.recordUse(use, service: service, key: key, at: now) }
    }

    func transportForUse() -> any HTTPTransport {
        if let transport { return transport }
        let made = AsyncHTTPTransport(connectTimeout: configuration.timeout, maximumBodySize: configuration.maximumBodySize)
        transport = made
        return made
    }

    private func loaded<Value>(_ value: Value, from entry: CacheEntry, rule: FreshnessPolicy.Rule, errorCode: ErrorCode?) -> Loaded<Value> {
        let now = now()
        return Loaded(value: value, body: entry.body, metadata: LoadMetadata(
            source: .cache, stale: !configuration.freshness.isFresh(entry, rule: rule, at: now), fetchedAt: entry.fetchedAt,
            ageSeconds: entry.ageSeconds(at: now), errorCode: errorCode, url: entry.url))
    }

    // MARK: - Managing the cache (`reader cache`)

    /// What the cache holds and how it has served. A cache file that does not exist yet is
    /// reported empty, without being created.
    /// - Throws: ``ReaderError/cache(_:)`` when there is a file but it cannot be read.
    public func cacheStatistics() async throws(ReaderError) -> CacheStatistics {
        var statistics = try await manageCache(ifMissing: { CacheStatistics(path: $0) }) { (cache) throws(CacheFailure) in try cache.statistics() }
        // Every registered service appears, used or not, so that a script can index without checking.
        for name in configuration.services.names where statistics.services[name] == nil { statistics.services[name] = CacheStatistics.APIStatistics() }
        return statistics
    }

    /// The hosts whose rate limit is used up now (for `reader status`): each state's
    /// ``RateLimitState/lockedOutUntil(at:)`` says until when. Empty when there is no cache file.
    public func rateLimitLockouts() async -> [RateLimitState] {
        let states = (try? await manageCache(ifMissing: { _ in [] }) { (cache) throws(CacheFailure) in try cache.rateLimits() }) ?? []
        let now = now()
        return states.filter { $0.lockedOutUntil(at: now) != nil }
    }

    /// Deletes every cached entry, or those of `service` (registered or not: a service whose
    /// entries an earlier program stored can be cleared too).
    public func clearCache(service: ServiceName? = nil) async throws(ReaderError) -> CacheRemoval {
        try await manageCache(ifMissing: { _ in CacheRemoval(entries: 0, bytes: 0) }) { (cache) throws(CacheFailure) in
            try cache.clear(service: service)
        }
    }

    /// Deletes the entries fetched more than `age` ago (of `service`, or of every service).
    public func pruneCache(olderThan age: Duration, service: ServiceName? = nil) async throws(ReaderError) -> CacheRemoval {
        let cutoff = now().addingTimeInterval(-age.inSeconds)
        return try await manageCache(ifMissing: { _ in CacheRemoval(entries: 0, bytes: 0) }) { (cache) throws(CacheFailure) in
            try cache.prune(fetchedBefore: cutoff, service: service)
        }
    }

    /// Runs `body` on the cache, opened (and recovered) as a load would open it. A cache file that
    /// does not exist yet is not created: `ifMissing` answers for it. Failing to open is an error here.
    private func manageCache<T>(ifMissing: (String) -> T,
                                _ body: (ResponseCache) throws(CacheFailure) -> T) async throws(ReaderError) -> T {
        guard let path = configuration.cachePath else { throw .invalidConfiguration("no cache is configured") }
        // lstat, not fileExists: a link whose target is missing (or a loop of links) is a path that
        // names something, and it cannot be opened; only a path naming nothing is "no cache yet".
        var status = stat()
        guard lstat(path, &status) == 0 else { return ifMissing(path) }
        if (status.st_mode & S_IFMT) == S_IFLNK, !FileManager.default.fileExists(atPath: path) {
            throw .cache(CacheFailure(.unavailable, path: path, detail: "a symbolic link to a file that does not exist (or a loop of links)"))
        }
        guard let cache = await openCache() else {
            throw .cache(lastCacheFailure ?? CacheFailure(.unavailable, path: path, detail: "the cache could not be opened"))
        }
        do { return try body(cache) } catch { throw .cache(error) }
    }

    // MARK: - The cache, under the ErrorHandler's decisions

    /// Opens the cache once. A damaged file is moved aside and replaced; a cache that cannot be
    /// opened at all leaves the command to carry on without one. Concurrent loads wait for the
    /// one opening rather than each opening (and perhaps replacing) the file.
    private func openCache() async -> ResponseCache? {
        switch cacheState {
        case .open(let cache): return cache
        case .none: return nil
        case .unopened: break
        }
        if let opening { return await opening.value }
        let task = Task { await self.openCacheOnce() }
        opening = task
        return await task.value
    }

    private func openCacheOnce() async -> ResponseCache? {
        guard let path = configuration.cachePath else { cacheState = .none; return nil }
        var opened: ResponseCache?
        do {
            opened = try ResponseCache.open(path: path)
        } catch {
            opened = await recover(from: error, path: path)
        }
        cacheState = opened.map { .open($0) } ?? .none
        if let opened, opened.isReadOnly {
            await handleCacheFailure(CacheFailure(.unwritable, path: path, detail: "the file or its folder is read-only"))
        }
        return opened
    }

    private func recover(from failure: CacheFailure, path: String) async -> ResponseCache? {
        guard case .reset(.replaceCacheFile, _) = handler.decide(.cache(failure), in: ErrorContext()) else {
            await handleCacheFailure(failure)
            return nil
        }
        do {
            let aside = try ResponseCache.moveAside(path: path, now: now())
            let fresh = try ResponseCache.open(path: path)
            await notices.post(Notice(kind: .cache, code: ErrorCode(.cache, CacheFailure.Reason.corrupt.rawValue), message:
                "the cache file was damaged; it was moved to \(TerminalText.sanitise(aside)) and a new one started"))
            return fresh
        } catch {
            await handleCacheFailure(error)
            return nil
        }
    }

    private func cachedCopy<Value: Decodable>(of type: Value.Type, key: String, service: ServiceName) async -> (entry: CacheEntry, value: Value)? {
        guard let cache = currentCache else { return nil }
        do {
            guard let entry = try cache.entry(forKey: key) else { return nil }
            // The key is the URL of this service's request: a row that names another service
            // was not stored by this pipeline (another program, a damaged page) and cannot be right.
            guard entry.service == service else {
                await drop(damagedEntry: key, CacheFailure(.damagedEntry, path: cache.path, detail:
                    "the entry names the service \(entry.service), not \(service)"))
                return nil
            }
            // A copy that no longer decodes (a damaged page, an older reader's shape) cannot be
            // served: it is dropped as damaged, with its notice, rather than passed over in silence
            // (and an offline read then says honestly that nothing usable is cached).
            do {
                return (entry, try ReaderJSON.makeDecoder().decode(Value.self, from: entry.body))
            } catch {
                let failure = DecodingFailure(error, url: entry.url)
                await drop(damagedEntry: key, CacheFailure(.damagedEntry, path: cache.path, detail:
                    "the stored body does not decode (\(failure.reason == .corrupt ? "not JSON" : "at \(failure.codingPath)"))"))
                return nil
            }
        } catch where error.reason == .damagedEntry {
            await drop(damagedEntry: key, error)
            return nil
        } catch {
            await handleCacheFailure(error)
            return nil
        }
    }

    /// A row that cannot be right is never served and never fatal: it is deleted as the
    /// ErrorHandler decides, with one notice, and the load goes on as if nothing were cached.
    private func drop(damagedEntry key: String, _ failure: CacheFailure) async {
        let decision = handler.decide(.cache(failure), in: ErrorContext())
        logger.debug("damaged entry", metadata: ["cache.key": "\(key)", "decision": "\(decision)", "cache.detail": "\(failure.detail)"])
        if case .reset(.deleteCachedCopy, _) = decision {
            await write { (cache) throws(CacheFailure) in try cache.deleteEntry(forKey: key) }
        }
        await notices.post(Notice(kind: .cache, code: ErrorCode(.cache, failure.reason.rawValue), message:
            "a cached copy was damaged (\(TerminalText.sanitise(failure.detail, maxLength: 200))); it was dropped"))
    }

    /// The cache as it is now: a damaged file may have been replaced since the load began.
    private var currentCache: ResponseCache? {
        if case .open(let cache) = cacheState { cache } else { nil }
    }

    /// Runs a write on the current cache; a read-only cache was warned about when it opened, so
    /// it is skipped quietly.
    private func write(_ body: (ResponseCache) throws(CacheFailure) -> Void) async {
        guard let cache = currentCache, !cache.isReadOnly else { return }
        do { try body(cache) } catch { await handleCacheFailure(error) }
    }

    /// Cache trouble never fails a command: it is noted once and the command carries on. A file
    /// found damaged after it opened (a page that does not read) is replaced as at opening, once.
    private func handleCacheFailure(_ failure: CacheFailure) async {
        lastCacheFailure = failure
        if failure.reason == .corrupt, let damaged = currentCache, !replacedDamagedCache {
            replacedDamagedCache = true
            cacheState = .none
            damaged.close()
            cacheState = await recover(from: failure, path: damaged.path).map { .open($0) } ?? .none
            return
        }
        let error = ReaderError.cache(failure)
        let decision = handler.decide(error, in: ErrorContext())
        logger.debug("cache failure", metadata: ["error.code": "\(error.code)", "decision": "\(decision)",
                                                 "cache.detail": "\(failure.detail)"])
        let message: String
        switch failure.reason {
        case .unwritable: message = "the cache cannot be written (\(TerminalText.sanitise(failure.path))); carrying on without storing"
        case .corrupt: message = "the cache file is damaged and could not be replaced; carrying on without it"
        case .unavailable, .notCached, .tooOld, .damagedEntry: message = "the cache cannot be opened (\(TerminalText.sanitise(failure.path))); carrying on without it"
        }
        await notices.post(Notice(kind: .cache, code: error.code, message: message))
    }
}
