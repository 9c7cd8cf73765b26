import Foundation
import Logging

/// A load under the ErrorHandler's decisions: the cache first (a fresh copy, or any copy
/// offline), then attempts through the ``RequestPipeline`` until one answers or the
/// ``ErrorHandler`` decides otherwise — retry after a delay, serve the stale copy, reset state
/// (delete the copy, renew the credential) or alert.
///
/// A value with no state of its own, so that concurrent loads run side by side; what they share
/// is held by the parts (``CacheStore``, ``CredentialProvider``, ``RateLimitGate``).
struct PolicyLoop: Sendable {
    let configuration: ReaderClient.Configuration
    let handler: ErrorHandler
    let pipeline: RequestPipeline
    let cache: CacheStore
    let credentials: CredentialProvider
    let notices: NoticeBoard
    let logger: Logger
    let sleep: @Sendable (Duration) async throws -> Void
    let now: @Sendable () -> Date
    /// The revalidations begun behind `stale-while-revalidate` answers, which the client waits for
    /// when it shuts down.
    let revalidations: BackgroundWork

    /// Loads `endpoint` (``ReaderClient/load(_:options:)``).
    func load<Value>(_ endpoint: Endpoint<Value>, options: LoadOptions) async throws(LoadFailure) -> Loaded<Value> {
        guard let service = configuration.services[endpoint.service], let (request, url) = endpoint.request(for: service) else {
            let error = ReaderError.invalidConfiguration("no service named \(endpoint.service) is configured, or its base URL and this path make no URL")
            throw LoadFailure(error: error, decision: handler.decide(error, in: ErrorContext(mode: options.mode)))
        }
        let key = Endpoint<JSONValue>.cacheKey(of: request, at: url)
        let opened = await cache.open()
        // The service's other way, if it has one: the key stays the first way's, so that a copy
        // is found whichever way it came. Which way is taken is asked only of a load that goes
        // to the network, so that a fresh cached read costs no more than before.
        let routes = Routes(request, url: url, service: service)
        let stored = await storedCopy(of: Value.self, key: key, service: endpoint.service)
        let cached: (entry: CacheEntry, value: Value)? = stored.copy
        let freshness = configuration.freshness
        let rule = service.freshness
        // Two paths, two judges: the HTTP cache (RFC 9111) decides what answers without the
        // network; the history (§6) decides what may still be shown offline or on a failure.
        let judged = Vary.judgedHeaders(request.headers, service: service, url: url)
        // A stored error answer answers while fresh, as the failure it was; stale, offline
        // (which shows copies only), or to a sync (which asks again what it could not fill), it
        // is nothing, never history: the load asks the network, or offline has nothing cached.
        if let failure = stored.failure, options.cacheMode == .normal, !options.refreshesStoredFailures,
           FreshnessPolicy.storedFailureAnswers(failure, under: freshness, requestHeaders: judged, at: now()),
           let answer = await storedAnswer(failure, as: Value.self, service: service, request: request, key: key, options: options) {
            throw answer
        }
        let reuse = cached.map { freshness.reuse(of: $0.entry, rule: rule, requestHeaders: judged, at: now()) }
        let history = freshness.history
        let showable = cached.map { history.mayShow($0.entry, at: now()) } ?? false

        switch (options.cacheMode, cached) {
        case (.offline, nil):
            let error = ReaderError.cache(CacheFailure(.notCached, path: opened?.path ?? "", detail: "no entry for \(key)"))
            let context = ErrorContext(mode: options.mode, cachedCopy: .none)
            throw LoadFailure(error: error, decision: handler.decide(error, in: context), context: context)
        case (.offline, let cached?) where !showable:
            let error = ReaderError.cache(CacheFailure(.tooOld, path: opened?.path ?? "", detail:
                "the copy of \(key) is \(RelativeAge.describe(seconds: cached.entry.ageSeconds(at: now()))) old"))
            let context = ErrorContext(mode: options.mode, cachedCopy: .olderThanMaxStale)
            throw LoadFailure(error: error, decision: handler.decide(error, in: context), context: context)
        case (.offline, let cached?):
            await cache.recordUse(.hit, service: endpoint.service, key: key)
            // Offline, a copy the cache would answer with anyway is fresh; any other is history.
            return loaded(cached.value, from: cached.entry, rule: rule, servedAs: reuse == .fresh ? .fresh : .history)
        case (.normal, let cached?) where reuse == .fresh:
            await cache.recordUse(.hit, service: endpoint.service, key: key)
            return loaded(cached.value, from: cached.entry, rule: rule, servedAs: .fresh)
        case (.normal, let cached?) where reuse == .staleWhileRevalidate:
            await cache.recordUse(.hit, service: endpoint.service, key: key)
            let route = await routes.taken(service: service, cache: cache, at: now())
            revalidations.start { [pipeline, cache, logger, now] in
                await Self.revalidateBehind(endpoint, copy: cached.entry, service: service, request: route.request, url: route.url, key: key,
                                            deadline: ContinuousClock.now.advanced(by: configuration.timeout), pipeline: pipeline,
                                            cache: cache, logger: logger, now: now)
            }
            return loaded(cached.value, from: cached.entry, rule: rule, servedAs: .staleWhileRevalidate)
        default:
            break
        }
        // What the ErrorHandler may serve in place of a failure is what the history may show.
        let servable = showable

        var route = await routes.taken(service: service, cache: cache, at: now())
        let deadline = options.deadline ?? ContinuousClock.now.advanced(by: configuration.timeout)
        let authenticator = service.authenticator
        let usesToken = authenticator != nil
        var tokenWasRenewed = false
        var copyDeleted = false
        /// Whether the last answer was an error answer stored in the copy's place.
        var answerStored = false
        var attempt = 0
        /// The credential the last attempt carried, to renew only that one on a refusal.
        var credential: CredentialProvider.Held?
        while true {
            attempt += 1
            let error: ReaderError
            // The token request is a POST, made before the GET: its failures are not retried as a GET's are.
            var isIdempotent = true
            do throws(ReaderError) {
                if let authenticator {
                    isIdempotent = false
                    credential = nil
                    credential = try await credentials.current(for: service.name, authenticator, deadline: deadline)
                    isIdempotent = true
                }
                switch try await pipeline.fetch(endpoint, service: service, request: route.request, url: route.url, key: key, deadline: deadline,
                                                revalidating: cached?.entry, keepsHistory: cached != nil && !copyDeleted,
                                                credential: credential, rateLimitReserve: options.rateLimitReserve) {
                case .body(let result):
                    await cache.recordUse(.miss, service: endpoint.service, key: key)
                    return result
                case .notModified(let response, let requestedAt):
                    guard let cached else { throw ReaderError.bug("304 Not Modified taken as a confirmation with no cached copy") }
                    return await revalidated(cached, by: response, requestedAt: requestedAt, key: key, rule: rule)
                case .storedFailure(let failure):
                    // The answer replaced the copy in the file: it is not deleted again, and the
                    // copy read before this load is not shown as history in its place.
                    answerStored = true
                    throw failure
                }
            } catch let failure {
                // A server may echo what it was sent: never show a credential back.
                error = failure.answered(by: service).redacting(await credentials.secrets.union(route.request.secrets))
            }
            // The service's block page, and another route to the same data: that way at once,
            // and for its detour memory, with no failure to tell but what the route lacks.
            if let detour = routes.detour(after: error, on: route) {
                route = detour
                let observed = now()
                await cache.storeDetour(DetourState(origin: routes.origin, service: service.name, observedAt: observed,
                                                    until: observed.addingTimeInterval(service.detourMemory.inSeconds)))
                await notices.post(Notice(kind: .detour, code: error.code, message: service.detourNotice))
                logger.debug("block page: taking the other route", metadata: ["request.url": "\(url)", "detour.url": "\(detour.url)"])
                attempt -= 1
                continue
            }
            // Once renewal has ended for the run, a refusal is final here too.
            let renewalEnded = usesToken ? await credentials.hasEndedRenewal(for: service.name) : false
            if answerStored { copyDeleted = true }
            let copyState: ErrorContext.CachedCopy = cached == nil || copyDeleted ? .none : servable ? .servable : .olderThanMaxStale
            var context = ErrorContext(mode: options.mode, cachedCopy: copyState,
                                       attempt: attempt, remaining: ContinuousClock.now.duration(to: deadline),
                                       longestWait: configuration.retryPolicy.maximumDelay, isIdempotent: isIdempotent,
                                       waitsForConnectivity: options.waitForConnectivity,
                                       usesToken: usesToken, tokenWasRenewed: tokenWasRenewed || renewalEnded,
                                       credentialRefused: authenticator?.isRefusal(error) == true)
            var decision = handler.decide(error, in: context)
            let announcement = handler.announcement(of: decision, on: error, in: context)
            logger.debug("request failed", metadata: [
                "request.url": "\(url)", "error.code": "\(error.code)", "decision": "\(decision)", "attempt": "\(attempt)",
            ])
            if case .reset(.deleteCachedCopy, let then) = decision {
                if !answerStored { await cache.deleteEntry(forKey: key) }
                copyDeleted = true
                decision = then
            }
            answerStored = false
            // A credential renewed in this load and refused again: the app is refused, for the rest of the run.
            if tokenWasRenewed, let authenticator, let credential, authenticator.isRefusal(error) {
                await credentials.endRenewal(after: error, refusing: credential, of: service.name, authenticator)
            }
            if case .reset(.renewToken, let then) = decision {
                if let authenticator, let credential { await credentials.discard(credential, of: service.name, authenticator) }
                tokenWasRenewed = true
                decision = then
            }
            switch decision {
            case .retry(let delay):
                if let announcement { await announce(announcement, of: error, copy: cached?.entry) }
                // A wait that is cancelled ends the load with the failure that caused it.
                let cause = error
                do { try await sleep(delay) } catch { throw LoadFailure(error: cause, decision: .alert) }
            case .ignore(.servedStale):
                guard let copy = cached else { throw LoadFailure(error: .bug("stale data decided with no cached copy"), decision: .alert) }
                await cache.recordUse(.hit, service: endpoint.service, key: key)
                let servedAs: LoadMetadata.CachedAnswer = freshness.mayServeStaleOnError(copy.entry, rule: rule, at: now()) ? .staleIfError : .history
                return await servedStale(copy, insteadOf: error, rule: rule, servedAs: servedAs)
            default:
                await cache.recordUse(.miss, service: endpoint.service, key: key)
                if let announcement { await announce(announcement, of: error, copy: cached?.entry) }
                // A copy a reset just deleted is gone: nothing is cached any more.
                if copyDeleted { context.cachedCopy = .none }
                throw LoadFailure(error: error, decision: decision, context: context)
            }
        }
    }

    /// Tells what the ErrorHandler said must be told about `error` (`copy`: the cached copy, if any).
    private func announce(_ announcement: ErrorHandler.Announcement, of error: ReaderError, copy: CacheEntry?) async {
        switch announcement {
        case .waitingForConnectivity:
            guard case .transport(let failure) = error else { return }
            await notices.post(Notice(kind: .waiting, code: error.code, wording:
                "\(TerminalText.sanitise(failure.host, maxLength: 253)) cannot be reached; waiting for it (\(name: "LoadOptions.waitForConnectivity"), up to \(name: "LoadOptions.deadline"))"))
        case .copyTooOldToServe:
            guard let copy else { return }
            await notices.post(Notice(kind: .staleData, code: ErrorCode(.cache, CacheFailure.Reason.tooOld.rawValue), wording:
                "a cached copy from \(RelativeAge.describe(seconds: copy.ageSeconds(at: now()))) ago was not shown: it is older than \(name: "FreshnessPolicy.maximumStale") allows"))
        }
    }

    /// The stale copy served in place of `error`, reported once: the result says what it was
    /// served instead of (``Loaded/servedInsteadOf``, whose code is `metadata.errorCode`), and the
    /// notice for people is made from that result.
    private func servedStale<Value>(_ copy: (entry: CacheEntry, value: Value), insteadOf error: ReaderError,
                                    rule: FreshnessPolicy.Rule, servedAs: LoadMetadata.CachedAnswer) async -> Loaded<Value> {
        let result = loaded(copy.value, from: copy.entry, rule: rule, servedAs: servedAs, servedInsteadOf: error)
        // One notice per cause: the copies served for one failure are one line, with the oldest's age.
        var notice = Notice(kind: .staleData, code: error.code, message:
            "showing cached data from \(RelativeAge.describe(seconds: result.metadata.ageSeconds)) ago: \(error.message)")
        notice.cause = error.message
        notice.rank = result.metadata.ageSeconds
        await notices.post(notice)
        return result
    }

    /// The copy cached under `key`, decoded here (on the concurrent executor, like an answer from
    /// the network). A copy that no longer decodes (a damaged page, an older reader's shape)
    /// cannot be served: it is dropped as damaged, with its notice, rather than passed over in
    /// silence (and an offline read then says honestly that nothing usable is cached).
    ///
    /// An error answer stored while fresh (a `404`, or a `204` where `Value` needs a body) is no
    /// copy of the resource: it comes back as `failure`, never decoded, never history.
    private func storedCopy<Value: Decodable>(of type: Value.Type, key: String,
                                              service: ServiceName) async -> (copy: (entry: CacheEntry, value: Value)?, failure: CacheEntry?) {
        guard let entry = await cache.entry(forKey: key, service: service) else { return (nil, nil) }
        if FreshnessPolicy.isStoredFailure(entry) || (entry.status == 204 && ResponseValidator.noBody(Value.self, in: entry.body) == nil) {
            return (nil, entry)
        }
        do {
            return ((entry, try ResponseValidator.decodeBody(Value.self, from: entry.body)), nil)
        } catch {
            let failure = DecodingFailure(error, url: entry.url)
            await cache.drop(undecodable: key, reason: failure.reason == .corrupt ? "not JSON" : "at \(failure.codingPath)")
            return (nil, nil)
        }
    }

    /// The failure a fresh stored error answer is: the error the network's answer was, read again
    /// from what was stored (its status and error body), decided as that error (without a retry,
    /// a reset or a stale copy: the answer is the server's, and fresh). The same error, code and
    /// exit code, as a browser's or requests-cache's cached answer is the same response; its hints
    /// say how old it is and how to ask again (``ErrorContext/storedAnswerAge``). Nil when it
    /// reads as no failure.
    private func storedAnswer<Value: Decodable>(_ entry: CacheEntry, as type: Value.Type, service: any Service, request: ServiceRequest,
                                                key: String, options: LoadOptions) async -> LoadFailure? {
        var headers = HeaderFields()
        if let contentType = entry.contentType { headers.add("Content-Type", contentType) }
        let response = HTTPResponse(status: entry.status, headers: headers, body: entry.body)
        let stored: ReaderError
        do throws(ReaderError) {
            _ = try ResponseValidator.decode(Value.self, from: response, url: entry.url, now: now(), service: service)
            return nil
        } catch {
            stored = error
        }
        let error = stored.answered(by: service).redacting(await credentials.secrets.union(request.secrets))
        // No hit: the cache brought nothing to read (``CacheStatistics/ServiceStatistics/hits``).
        let context = ErrorContext(mode: options.mode, cachedCopy: .none, storedAnswerAge: entry.ageSeconds(at: now()))
        var decision = handler.decide(error, in: context)
        while case .reset(_, let then) = decision { decision = then }
        if case .retry = decision { decision = .alert }
        if case .ignore(.servedStale) = decision { decision = .alert }
        return LoadFailure(error: error, decision: decision, context: context)
    }

    /// The cached copy, confirmed by a `304`: its stored header fields updated with the `304`'s
    /// (RFC 9111 §4.3.4), its age counted from now.
    private func revalidated<Value>(_ copy: (entry: CacheEntry, value: Value), by response: HTTPResponse, requestedAt: Date, key: String,
                                    rule: FreshnessPolicy.Rule) async -> Loaded<Value> {
        let confirmedAt = now()
        var entry = copy.entry
        entry.confirm(at: confirmedAt, by: CacheEntry.Confirmation(headers: response.headers, requestedAt: requestedAt))
        await cache.keep(CacheEntry.Confirmation(headers: response.headers, requestedAt: requestedAt), ofKey: key, at: confirmedAt)
        await cache.recordUse(.revalidation, service: entry.service, key: key)
        var metadata = LoadMetadata(source: .revalidated, stale: false, fetchedAt: confirmedAt, ageSeconds: 0, errorCode: nil, url: entry.url)
        metadata.describe(entry, policy: configuration.freshness, rule: rule, at: confirmedAt)
        return Loaded(value: copy.value, body: entry.body, metadata: metadata)
    }

    /// Revalidates `copy` after a `stale-while-revalidate` answer (RFC 5861 §3): a conditional
    /// request whose new body or `304` updates the cache for the next load. Its failure changes
    /// nothing: the copy stays as it was.
    private static func revalidateBehind<Value>(_ endpoint: Endpoint<Value>, copy: CacheEntry, service: any Service, request: ServiceRequest,
                                                url: URL, key: String, deadline: ContinuousClock.Instant, pipeline: RequestPipeline,
                                                cache: CacheStore, logger: Logger, now: @Sendable () -> Date) async {
        do throws(ReaderError) {
            switch try await pipeline.fetch(endpoint, service: service, request: request, url: url, key: key, deadline: deadline,
                                            revalidating: copy, keepsHistory: true, credential: nil) {
            case .body, .storedFailure:
                // A new body, or the answer that the resource is gone, is stored in the copy's place.
                break
            case .notModified(let response, let requestedAt):
                await cache.keep(CacheEntry.Confirmation(headers: response.headers, requestedAt: requestedAt), ofKey: key, at: now())
            }
        } catch {
            // The service's answer that the resource is gone: the copy must not outlive it, here
            // as in a load's own failure. A web server's 404 page (no error body of the service's)
            // is not that answer: the copy stays. A refusal (401, 403) is left to the next load,
            // which can renew a credential first.
            if case .status(let failure) = error.answered(by: service), RequestPipeline.saysGone(failure) {
                await cache.deleteEntry(forKey: key)
            }
            logger.debug("revalidation behind a stale answer failed", metadata: ["request.url": "\(url)", "error.code": "\(error.code)"])
        }
    }

    /// A cached copy as a load's result; `servedInsteadOf`: the error it answers in place of, if it does.
    private func loaded<Value>(_ value: Value, from entry: CacheEntry, rule: FreshnessPolicy.Rule, servedAs: LoadMetadata.CachedAnswer,
                               servedInsteadOf error: ReaderError? = nil) -> Loaded<Value> {
        let now = now()
        var metadata = LoadMetadata(source: .cache, stale: !configuration.freshness.isFresh(entry, rule: rule, at: now), fetchedAt: entry.fetchedAt,
                                    ageSeconds: entry.ageSeconds(at: now), errorCode: error?.code, url: entry.url)
        metadata.servedAs = servedAs
        metadata.describe(entry, policy: configuration.freshness, rule: rule, at: now)
        return Loaded(value: value, body: entry.body, metadata: metadata, servedInsteadOf: error)
    }
}
