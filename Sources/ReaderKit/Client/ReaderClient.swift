import Foundation
import Logging

/// Loads endpoints through the cache and the network, applying the ErrorHandler's decisions.
///
/// This is the pipeline: cache lookup → transport → status and API error body → content type →
/// decoding → store; on a failure, the ``ErrorHandler`` decides to retry, serve a stale copy,
/// reset state or alert. A library user gets exactly the behaviour of the `reader` command.
///
/// The client is the entry point to parts that each do one thing: a policy loop applies the
/// ErrorHandler's decisions to a load, a request pipeline makes one attempt (redirects,
/// credentials, rate limits, validation, decoding), a cache store keeps the file in order, and a
/// credential provider obtains and renews credentials. Concurrent loads (``loadConcurrently(_:options:progress:)``,
/// a sync) run side by side: decoding and the cache file's SQL never wait for another load's.
///
/// ## Topics
/// - ``init(configuration:transport:logger:sleep:now:)``
/// - ``load(_:options:)``
/// - ``notices``
/// - ``shutdown()``
public final class ReaderClient: Sendable {
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
        /// The proxies requests go through (``ProxySettings``): none by default. The `reader`
        /// command reads them from the environment with ``ProxySettings/init(environment:)``;
        /// a library user who wants the same passes its result here.
        public var proxies: ProxySettings

        public init(services: ServiceConfiguration = .builtIn, cachePath: String? = nil,
                    timeout: Duration = .seconds(20), retryPolicy: RetryPolicy = .default,
                    freshness: FreshnessPolicy = .default, maximumBodySize: Int = 10 * 1024 * 1024,
                    maximumRedirects: Int = 5, cacheSizeLimit: Int? = 100 * 1024 * 1024,
                    maximumConcurrentRequests: Int = 6, proxies: ProxySettings = .direct) {
            self.maximumConcurrentRequests = max(1, maximumConcurrentRequests)
            self.proxies = proxies
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
    let logger: Logger
    let now: @Sendable () -> Date
    private let transport: TransportHolder
    let cache: CacheStore
    private let credentials: CredentialProvider
    /// One attempt of a load (``checkConnectivity(of:timeout:)`` sends through it too).
    let pipeline: RequestPipeline
    private let loop: PolicyLoop
    private let revalidations: BackgroundWork

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
        self.logger = logger
        self.now = now
        let handler = ErrorHandler(retryPolicy: configuration.retryPolicy)
        let background = BackgroundWork()
        self.revalidations = background
        self.transport = TransportHolder(transport) {
            AsyncHTTPTransport(connectTimeout: configuration.timeout, maximumBodySize: configuration.maximumBodySize,
                               proxies: configuration.proxies)
        }
        self.cache = CacheStore(path: configuration.cachePath, handler: handler, notices: notices, logger: logger, now: now)
        self.credentials = CredentialProvider(services: configuration.services, cachePath: configuration.cachePath,
                                              transport: self.transport, logger: logger, now: now,
                                              otherSecrets: configuration.proxies.secrets)
        let rateLimits = RateLimitGate(cache: cache, notices: notices, maximumWait: configuration.retryPolicy.maximumDelay,
                                       sleep: sleep, now: now)
        self.pipeline = RequestPipeline(configuration: configuration, transport: self.transport, credentials: credentials,
                                        rateLimits: rateLimits, cache: cache, logger: logger, now: now)
        self.loop = PolicyLoop(configuration: configuration, handler: handler, pipeline: pipeline, cache: cache,
                               credentials: credentials, notices: notices, logger: logger, sleep: sleep, now: now,
                               revalidations: background)
    }

    /// Closes the transport's connections, and leaves what was stored in the cache file itself
    /// (see ``ResponseCache/finishWrites()``).
    public func shutdown() async {
        await finishRevalidations()
        await transport.shutdown()
        await cache.finishWrites()
    }

    /// Loads `endpoint`.
    /// - Parameters:
    ///   - endpoint: what to load.
    ///   - options: how the cache and the network may be used.
    /// - Returns: the decoded value, its bytes, and where they came from.
    /// - Throws: ``LoadFailure`` when the ErrorHandler decides to alert.
    public func load<Value>(_ endpoint: Endpoint<Value>, options: LoadOptions = LoadOptions()) async throws(LoadFailure) -> Loaded<Value> {
        try await loop.load(endpoint, options: options)
    }

    /// Every secret this client has held (the authenticators' and each credential): a failure's
    /// text is shown without them.
    /// Waits for the revalidations begun behind `stale-while-revalidate` answers (RFC 5861), so
    /// that what they fetched is stored; ``shutdown()`` waits for them too.
    public func finishRevalidations() async {
        await revalidations.finish()
    }

    /// Whether revalidations begun behind `stale-while-revalidate` answers are still to be waited
    /// for: a front end writes its answer first, then shuts the client down (which waits for them).
    public var hasRevalidationsInFlight: Bool { revalidations.isPending }

    var secrets: Set<String> {
        get async { await credentials.secrets }
    }

    /// Whether a usable credential for `service` is held (in this run or kept), and until when;
    /// never the credential itself. Nil when the service has no authenticator.
    public func credentialStatus(of service: ServiceName) async -> (held: Bool, expiresAt: Date?)? {
        await credentials.status(of: service)
    }

    /// Notices a cache file deleted or replaced while this client uses it (what was stored went
    /// with it): posts a notice (C1003), and opens the path anew. For a long-running program
    /// (`reader browse`), which calls it now and then; a command's run is too short to need it.
    public func reopenCacheIfMoved() async {
        await cache.reopenIfMoved()
    }

    // MARK: - Managing the cache (`reader cache`)

    /// What the cache holds and how it has served. A cache file that does not exist yet is
    /// reported empty, without being created.
    /// - Throws: ``ReaderError/cache(_:)`` when there is a file but it cannot be read.
    public func cacheStatistics() async throws(ReaderError) -> CacheStatistics {
        var statistics = try await cache.manage(ifMissing: { CacheStatistics(path: $0) }) { (cache) async throws(CacheFailure) in try await cache.statistics() }
        // Every registered service appears, used or not, so that a script can index without checking.
        for name in configuration.services.names where statistics.services[name] == nil { statistics.services[name] = CacheStatistics.ServiceStatistics() }
        return statistics
    }

    /// The hosts whose rate limit is used up now (for `reader status`), each with the reset as it
    /// is enforced: never further away than its service's ``Service/rateLimitWindow`` (an hour for
    /// a service not registered). Empty when there is no cache file.
    public func rateLimitLockouts() async -> [RateLimitState] {
        let states = (try? await cache.manage(ifMissing: { _ in [] }) { (cache) async throws(CacheFailure) in try await cache.rateLimits() }) ?? []
        let now = now()
        return states.compactMap { state in
            let window = configuration.services[state.service]?.rateLimitWindow ?? .seconds(3600)
            guard let until = state.lockedOutUntil(at: now, window: window) else { return nil }
            var enforced = state
            enforced.resetAt = until
            return enforced
        }
    }

    /// The origins read now by their service's other route since they answered with a block page
    /// (``Service/detour(around:)``), for `reader status`: only those this configuration's loads
    /// take, the configured address of a service that has a detour as configured (a service read
    /// with a credential may have none). Empty when there is no cache file.
    public func detours() async -> [DetourState] {
        let states = (try? await cache.manage(ifMissing: { _ in [] }) { (cache) async throws(CacheFailure) in try await cache.detours() }) ?? []
        let now = now()
        return states.compactMap { state in
            // What a load of the service asks for its route (``Routes``): the memory of its first way's origin.
            guard let service = configuration.services[state.service], let (request, url) = service.probe.request(for: service) else { return nil }
            let routes = Routes(request, url: url, service: service)
            guard routes.detour != nil, routes.origin == state.origin.lowercased() else { return nil }
            let memory = service.detourMemory
            guard state.isInForce(at: now, memory: memory) else { return nil }
            var enforced = state
            enforced.until = state.enforcedUntil(memory: memory)
            return enforced
        }
    }

    /// Every entry the cache holds (of `service`, when given), judged as a load would judge it:
    /// its current age, freshness lifetime and state, under its service's rule (a service not
    /// configured here has no heuristic). An empty list when there is no cache file yet.
    public func cacheListing(service: ServiceName? = nil) async throws(ReaderError) -> [CacheListing] {
        let rows = try await cache.manage(ifMissing: { _ in [] }) { (cache) async throws(CacheFailure) in try await cache.listing(service: service) }
        let now = now()
        return rows.map { row in
            let rule = configuration.services[row.entry.service]?.freshness ?? FreshnessPolicy.Rule(defaultLifetime: .zero)
            return CacheListing(row.entry, bytes: row.bytes, policy: configuration.freshness, rule: rule, at: now)
        }
    }

    /// Deletes every cached entry, or those of `service` (registered or not: a service whose
    /// entries an earlier program stored can be cleared too).
    public func clearCache(service: ServiceName? = nil) async throws(ReaderError) -> CacheRemoval {
        try await cache.manage(ifMissing: { _ in CacheRemoval(entries: 0, bytes: 0) }) { (cache) async throws(CacheFailure) in
            try await cache.clear(service: service)
        }
    }

    /// Deletes the entries fetched more than `age` ago (of `service`, or of every service).
    public func pruneCache(olderThan age: Duration, service: ServiceName? = nil) async throws(ReaderError) -> CacheRemoval {
        let now = now()
        let cutoff = now.addingTimeInterval(-age.inSeconds)
        return try await cache.manage(ifMissing: { _ in CacheRemoval(entries: 0, bytes: 0) }) { (cache) async throws(CacheFailure) in
            try await cache.prune(fetchedBefore: cutoff, service: service, now: now)
        }
    }
}
