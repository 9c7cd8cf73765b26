import Foundation
import Logging

/// One attempt of a load, from the request to a stored answer: a conditional GET when a copy
/// with validators exists, redirects within ``Origin/redirect(from:to:)``'s rules, the
/// authenticator's credential for its origin only, rate-limit waits and memory, then validation,
/// decoding and the cache.
///
/// A value with no state of its own (its parts hold it), so its work runs on the concurrent
/// executor: decoding one answer never waits for another load's, nor for the cache file, whose
/// SQL runs on GRDB's queues.
struct RequestPipeline: Sendable {
    let configuration: ReaderClient.Configuration
    let transport: TransportHolder
    let credentials: CredentialProvider
    let rateLimits: RateLimitGate
    let cache: CacheStore
    let logger: Logger
    let now: @Sendable () -> Date

    /// What one attempt brought back.
    enum Outcome<Value: Sendable>: Sendable {
        /// A new body, validated, decoded and stored.
        case body(Loaded<Value>)
        /// The server confirmed the cached copy (the `304`, and when its request was sent).
        case notModified(HTTPResponse, requestedAt: Date)
        /// An error answer (a `404`, a `204` where a body is needed), stored to answer later loads
        /// while fresh (``FreshnessPolicy/mayStoreFailure(_:)``): the load fails with it, and the
        /// copy it replaced is gone already.
        case storedFailure(ReaderError)
    }

    /// One attempt: the network (conditional when a copy with validators exists), validation,
    /// decoding, then the cache.
    /// - Parameters:
    ///   - credential: the credential the load holds for this attempt, if its service has an
    ///     authenticator.
    ///   - keepsHistory: whether a readable copy is stored under `key`, which an error answer
    ///     replaces only when it says the resource is gone.
    func fetch<Value>(_ endpoint: Endpoint<Value>, service: any Service, request: ServiceRequest, url: URL, key: String,
                      deadline: ContinuousClock.Instant, revalidating copy: CacheEntry?, keepsHistory: Bool = false,
                      credential: CredentialProvider.Held?, rateLimitReserve: Double = 0) async throws(ReaderError) -> Outcome<Value> {
        var headers = request.headers
        // A validator goes back only as a field value can be sent: a damaged file's CR, LF or
        // escape would have the transport refuse the request, every time, and the copy never
        // refreshed. Without it the request is unconditional, and its answer replaces the copy.
        // Validators go back only to the URL they came from: a copy read by another route (a
        // service's detour) has the other route's.
        let copy = copy?.url == url.absoluteString ? copy : nil
        if let etag = copy?.etag, Self.isSendable(etag) { headers.add("If-None-Match", etag) }
        if let lastModified = copy?.lastModified, Self.isSendable(lastModified) { headers.add("If-Modified-Since", lastModified) }
        let requestedAt = now()
        var (response, finalURL) = try await send(url, service: service, headers: headers, secretQuery: request.secretQuery,
                                                  deadline: deadline, credential: credential, rateLimitReserve: rateLimitReserve)
        // A 304 to a request that was not conditional breaks HTTP, but it still says the copy is
        // current, and the copy is here: served, rather than the error.
        if response.status == 304, copy != nil { return .notModified(response, requestedAt: requestedAt) }
        if let translation = request.translation {
            response = try Self.translated(response, by: translation, url: finalURL.absoluteString, now: now(), service: service)
        }
        let value: Value
        do throws(ReaderError) {
            value = try Self.decode(Value.self, from: response, url: finalURL.absoluteString, now: now(), service: service)
        } catch {
            // An error answer the RFC lets a cache reuse (a 404, or any status with explicit
            // freshness) is stored, to answer while fresh. It never replaces a copy that the
            // failure leaves in place (a 503 over yesterday's page): that copy is the history.
            guard case .status(let failure) = error, !failure.isBlockPage, FreshnessPolicy.mayStoreFailure(response),
                  !keepsHistory || Self.saysGone(failure) else { throw error }
            let entry = Self.entry(for: response, key: key, service: endpoint.service, url: url,
                                   requestHeaders: Vary.judgedHeaders(request.headers, service: service, url: url),
                                   requestedAt: requestedAt, fetchedAt: now())
            await cache.store(entry, sizeLimit: configuration.cacheSizeLimit)
            return .storedFailure(error)
        }
        let entry = Self.entry(for: response, key: key, service: endpoint.service, url: url,
                               requestHeaders: Vary.judgedHeaders(request.headers, service: service, url: url),
                               requestedAt: requestedAt, fetchedAt: now())
        var metadata = LoadMetadata(source: .network, stale: false, fetchedAt: entry.fetchedAt, ageSeconds: 0, errorCode: nil,
                                    url: url.absoluteString)
        // no-store in any line: neither the HTTP cache nor the history keeps it (RFC 9111 §3),
        // and there is no stored copy to describe.
        if FreshnessPolicy.mayStore(response.headers) {
            await cache.store(entry, sizeLimit: configuration.cacheSizeLimit)
            metadata.describe(entry, policy: configuration.freshness, rule: service.freshness, at: entry.fetchedAt)
        }
        return .body(Loaded(value: value, body: response.body, metadata: metadata))
    }

    /// An answer in another format, as the JSON it translates to: its status and error body are
    /// judged first, then its content type (one of the translation's, never an HTML page where
    /// a feed was asked), then the translation. The answer that goes on is JSON, and is stored so.
    static func translated(_ response: HTTPResponse, by translation: ResponseTranslation, url: String, now: Date,
                           service: any Service) throws(ReaderError) -> HTTPResponse {
        try ResponseValidator.validateStatus(response, url: url, now: now, service: service)
        guard !response.body.isEmpty else {
            throw .decoding(DecodingFailure(.corrupt, codingPath: "", detail: "an empty answer", url: url, format: translation.description))
        }
        guard translation.accepts(response.headers["Content-Type"]) else {
            throw .contentType(ContentTypeFailure(contentType: response.headers["Content-Type"] ?? "no content type", url: url,
                                                  pageTitle: ResponseValidator.htmlTitle(response.body), expected: translation.description))
        }
        var translated = response
        translated.body = try translation.translate(response.body, url)
        translated.headers.remove("Content-Type")
        translated.headers.add("Content-Type", "application/json")
        return translated
    }

    /// Whether `failure` is the service's own word that the resource is gone: its not-found with
    /// its error body (A404, or its "not found" in another status), or a 410. A 404 without the
    /// service's error body (a web server's page) is more likely a wrong address or a broken
    /// proxy than the resource gone: it never replaces a readable copy.
    static func saysGone(_ failure: StatusFailure) -> Bool {
        failure.failureClass == .notFound && !(failure.status == 404 && failure.apiError == nil)
    }

    /// Whether `value` can be sent as a field value: visible ASCII, spaces and tabs, at most 8 KB.
    static func isSendable(_ value: String) -> Bool {
        value.utf8.count <= 8192 && value.utf8.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) }
    }

    /// The entry `response` makes, with the header fields RFC 9111 judges it by, every line of
    /// each list field combined.
    static func entry(for response: HTTPResponse, key: String, service: ServiceName, url: URL, requestHeaders: HeaderFields,
                      requestedAt: Date, fetchedAt: Date) -> CacheEntry {
        let headers = response.headers
        let vary = HeaderList.combined("Vary", in: headers)
        return CacheEntry(key: key, service: service, url: url.absoluteString, status: response.status, body: response.body,
                          contentType: headers["Content-Type"], etag: headers["ETag"], lastModified: headers["Last-Modified"],
                          cacheControl: HeaderList.combined("Cache-Control", in: headers), date: headers["Date"],
                          expires: HeaderList.combined("Expires", in: headers), age: HeaderList.combined("Age", in: headers), vary: vary,
                          varyRequest: Vary.requestFingerprint(vary: vary, requestHeaders: requestHeaders), requestedAt: requestedAt,
                          fetchedAt: fetchedAt)
    }

    /// Validates `response` and decodes it as `type`: pure work on the caller's thread, which for
    /// the pipeline is the concurrent executor, never an actor that other loads wait on.
    static func decode<Value: Decodable>(_ type: Value.Type, from response: HTTPResponse, url: String, now: Date,
                                         service: any Service) throws(ReaderError) -> Value {
        try ResponseValidator.decode(type, from: response, url: url, now: now, service: service)
    }

    /// Sends a GET, following redirects within ``Origin/redirect(from:to:)``'s rules. A redirect
    /// the service reads as an answer (``Service/failure(redirectedTo:from:)``) is that answer. The
    /// credential goes only to its authenticator's origin; `credential` is the one a load already
    /// holds, and without it one is obtained here when the origin needs it.
    /// `secretQuery` is added to the URL sent to `url`'s own origin only, and is in no URL this
    /// returns or logs.
    func send(_ url: URL, service: any Service, headers: HeaderFields, secretQuery: [URLQueryItem] = [], deadline: ContinuousClock.Instant,
              credential: CredentialProvider.Held? = nil, rateLimitReserve: Double = 0) async throws(ReaderError) -> (HTTPResponse, URL) {
        let transport = await self.transport.transportForUse()
        var headers = headers
        var current = url
        let home = Origin(url)
        let secretValues = Set(secretQuery.compactMap(\.value).filter { !$0.isEmpty })
        let secretNames = Set(secretQuery.map(\.name))
        for _ in 0...configuration.maximumRedirects {
            if let authenticator = service.authenticator {
                // The credential goes only to its origin (scheme, host and port), never to another
                // port or scheme of its host, nor anywhere a redirect points.
                headers.remove("Authorization")
                if let origin = Origin(current), origin == authenticator.origin {
                    let held = if let credential { credential } else { try await credentials.current(for: service.name, authenticator, deadline: deadline) }
                    authenticator.apply(held.credential, to: &headers)
                }
            }
            let origin = Origin(current)?.description ?? current.host ?? ""
            try await rateLimits.waitForReset(of: service.name, window: service.rateLimitWindow, at: origin, deadline: deadline,
                                              reserve: rateLimitReserve)
            let shownURL = logger.logLevel <= .debug ? await logged(current) : ""
            logger.debug("GET", metadata: ["request.url": "\(shownURL)"])
            let response: HTTPResponse
            // A secret in the query goes to its own origin only, as a credential does.
            let sent = home != nil && Origin(current) == home ? Endpoint<JSONValue>.adding(secretQuery, to: current) : current
            do { response = try await transport.send(HTTPRequest(url: sent, headers: headers), deadline: deadline) }
            catch {
                await rateLimits.answered(service.name, at: origin)
                throw .transport(error)
            }
            if let announced = RateLimitState(origin: origin, service: service.name, announcement: service.rateLimit(in: response.headers), now: now(),
                                               window: service.rateLimitWindow) {
                await rateLimits.remember(announced)
            }
            // A 429 saying when to come back is the whole limit spent until then, announced or
            // not: nothing else goes to that origin before (background work least of all).
            if response.status == 429, let seconds = ResponseValidator.retryAfterSeconds(response.headers["Retry-After"], now: now()),
               seconds > 0 {
                let observed = now()
                await rateLimits.remember(RateLimitState(origin: origin, service: service.name, remaining: 0,
                                                         resetAt: observed.addingTimeInterval(min(seconds, service.rateLimitWindow.inSeconds)),
                                                         observedAt: observed))
            }
            // After what it announced is kept: no moment counts the request neither way.
            await rateLimits.answered(service.name, at: origin)
            logger.debug("response", metadata: ["request.url": "\(shownURL)", "response.status": "\(response.status)",
                                                "response.bytes": "\(response.body.count)"])
            guard [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["Location"],
                  let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                return (response, current)
            }
            if let failure = service.failure(redirectedTo: next, from: current) { throw .status(failure) }
            if case .refuse(let refusal) = Origin.redirect(from: current, to: next) {
                throw .transport(.redirectRefused(refusal, from: current, to: next))
            }
            // A Location may echo the secret query: it is taken out, and added again only for its origin.
            current = secretQuery.isEmpty ? next : Self.removing(names: secretNames, values: secretValues, fromQueryOf: next)
        }
        throw .transport(TransportFailure(.tooManyRedirects, host: url.host ?? "", detail: "more than \(configuration.maximumRedirects) redirects"))
    }

    /// `url` without the query items named one of `names` or whose value is one of `values`.
    static func removing(names: Set<String>, values: Set<String>, fromQueryOf url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), let items = components.queryItems else { return url }
        let kept = items.filter { !names.contains($0.name) && !values.contains($0.value ?? "") }
        guard kept.count != items.count else { return url }
        components.queryItems = kept.isEmpty ? nil : kept
        return components.url ?? url
    }

    /// `url` as the debug log shows it, without the credentials held: a redirect's URL is the
    /// server's to write, and may carry one back.
    private func logged(_ url: URL) async -> String {
        TerminalText.redacting(Array(await credentials.secrets.filter { $0.utf8.count >= 4 }), in: url.absoluteString)
    }
}
