import Foundation
import GRDB
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// A clock the test moves: freshness and ages are judged against it, never against real time.
final class TestClock: Sendable {
    // Starts at the real time, because messages say "come back at 14:05" against the real clock.
    private let current = NIOLockedValueBox(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    var now: Date { current.withLockedValue { $0 } }
    var function: @Sendable () -> Date { { [current] in current.withLockedValue { $0 } } }
    func advance(_ seconds: TimeInterval) { current.withLockedValue { $0 = $0.addingTimeInterval(seconds) } }
}

/// Records the waits a client asks for, without waiting.
final class Sleeps: Sendable {
    let recorded = NIOLockedValueBox<[Duration]>([])
    var values: [Duration] { recorded.withLockedValue { $0 } }
    var function: @Sendable (Duration) async throws -> Void { { [recorded] delay in recorded.withLockedValue { $0.append(delay) } } }
}

/// A client on a real server and a real cache file, with a test clock and sleeper.
struct ClientHarness: ShutsDown {
    let server: TestServer
    let clock = TestClock()
    let sleeps = Sleeps()
    /// Removed with the last copy of the harness.
    let scratch = TemporaryFolder("reader-kit")
    var cachePath: String { scratch.url.appendingPathComponent("cache/cache.sqlite").path }

    init(_ handler: @escaping TestServer.Handler = SampleAPI.route) async throws {
        server = try await TestServer(handler)
    }

    func shutdown() async { await server.shutdown() }

    func client(freshness: FreshnessPolicy = .default, retryPolicy: RetryPolicy = RetryPolicy(jitter: { 1 }),
                timeout: Duration = .seconds(60)) -> ReaderClient {
        let services = ServiceConfiguration([SWAPIService(baseURL: URL(string: server.baseURL + "/api")!), RedditService(publicBaseURL: URL(string: server.baseURL)!)])
        return ReaderClient(configuration: .init(services: services, cachePath: cachePath, timeout: timeout,
                                                 retryPolicy: retryPolicy, freshness: freshness),
                            sleep: sleeps.function, now: clock.function)
    }

    func statistics() async throws -> CacheStatistics { try await ResponseCache.open(path: cachePath).statistics() }
}

@Suite struct RevalidationAndFreshnessTests {
    @Test(.replaysRecordings) func aStaleSWAPIEntryCostsOneConditionalRequestAndNoBody() async throws {
        try await withShutdown(of: ClientHarness(Fixtures.route)) { harness in
            try await withShutdown(of: harness.client()) { client in
                let first = try await client.load(try SWAPI.list(Film.self))
                #expect(first.metadata.source == .network)

                harness.clock.advance(2 * 86_400)
                let second = try await client.load(try SWAPI.list(Film.self))
                #expect(second.metadata.source == .revalidated && !second.metadata.stale && second.metadata.ageSeconds == 0)
                #expect(second.value.results.count == 6, "the cached body is served")
                let requests = harness.server.requests
                #expect(requests.count == 2)
                #expect(requests[0].headers["if-none-match"] == nil)
                #expect(requests[1].headers["if-none-match"] == "\"0bc6a4246aac177e4793c35c312d1110\"")

                // Confirmed fresh again: the next load needs no request at all.
                harness.clock.advance(60)
                let third = try await client.load(try SWAPI.list(Film.self))
                #expect(third.metadata.source == .cache && harness.server.requests.count == 2)

                let stats = try await harness.statistics().services["swapi"]
                #expect(stats?.misses == 1 && stats?.revalidations == 1 && stats?.hits == 1 && stats?.entries == 1)
            }
        }
    }

    /// A `304` that says no-store confirms this answer and forbids keeping it (RFC 9111 §3): the
    /// copy is served this once and deleted (found by the attack on issue 23, where it stayed).
    @Test(.replaysRecordings) func aNotModifiedThatSaysNoStoreDeletesTheCopy() async throws {
        let calls = NIOLockedValueBox(0)
        try await withShutdown(of: ClientHarness { request in
            guard calls.withLockedValue({ $0 += 1; return $0 }) > 1 else {
                guard case .respond(let status, let headers, let body) = Fixtures.route(request) else { return .close }
                return .respond(status: status, headers: headers.filter { $0.0 != "Cache-Control" } + [("Cache-Control", "max-age=0")], body: body)
            }
            return .respond(status: 304, headers: [("ETag", "\"0bc6a4246aac177e4793c35c312d1110\""), ("Cache-Control", "no-store")], body: [])
        }) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                #expect(try await harness.statistics().services["swapi"]?.entries == 1)
                let confirmed = try await client.load(try SWAPI.list(Film.self))
                #expect(confirmed.metadata.source == .revalidated && confirmed.value.results.count == 6)
            }
            #expect(try await harness.statistics().services["swapi"]?.entries ?? 0 == 0, "not kept")
        }
    }

    /// A validator a damaged file holds (a CR and LF in the ETag) is not sent back: the request
    /// goes unconditional and its answer replaces the copy (found by the attack on issue 23, where
    /// the transport refused the request every time and the copy was never refreshed).
    @Test func aDamagedValidatorIsNotSentAndTheCopyIsFetchedAgain() async throws {
        try await withShutdown(of: ClientHarness()) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
            }
            let queue = try DatabaseQueue(path: harness.cachePath)
            try await queue.write { db in
                try db.execute(sql: "UPDATE response SET etag = '\"e1\"' || char(13) || char(10) || 'X-Injected: yes', lastModified = char(27) || '[2J'")
            }
            try queue.close()
            harness.clock.advance(2 * 86_400)
            try await withShutdown(of: harness.client()) { client in
                let again = try await client.load(try SWAPI.list(Film.self))
                #expect(again.metadata.source == .network, "\(again.metadata)")
            }
            let requests = harness.server.requests
            #expect(requests.count == 2)
            #expect(requests.last?.headers["if-none-match"] == nil && requests.last?.headers["if-modified-since"] == nil)
            #expect(requests.last?.headers["x-injected"] == nil)
        }
    }

    @Test(.replaysRecordings) func aChangedResourceIsFetchedAgainAndLastModifiedIsSentBack() async throws {
        let version = NIOLockedValueBox(1)
        try await withShutdown(of: ClientHarness { request in
            let current = version.withLockedValue { $0 }
            let headers = [("ETag", "\"v\(current)\""), ("Last-Modified", "Sat, 21 Nov 2026 10:00:0\(current) GMT")]
            if request.headers["if-none-match"] == "\"v\(current)\"" { return .respond(status: 304, headers: headers, body: []) }
            return .json(Fixtures.bytes("swapi/films.json"), headers: headers)
        }) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                version.withLockedValue { $0 = 2 }
                harness.clock.advance(2 * 86_400)
                let changed = try await client.load(try SWAPI.list(Film.self))
                #expect(changed.metadata.source == .network)
                #expect(harness.server.requests[1].headers["if-modified-since"] == "Sat, 21 Nov 2026 10:00:01 GMT")
                harness.clock.advance(2 * 86_400)
                let confirmed = try await client.load(try SWAPI.list(Film.self))
                #expect(confirmed.metadata.source == .revalidated, "the new validator was stored")
            }
        }
    }

    @Test func redditsMaxAgeZeroIsRaisedToAMinute() async throws {
        try await withShutdown(of: ClientHarness()) { harness in
            try await withShutdown(of: harness.client()) { client in
                let endpoint = try Reddit.posts(subreddit: "python", limit: 25)
                _ = try await client.load(endpoint)
                harness.clock.advance(30)
                #expect(try await client.load(endpoint).metadata.source == .cache)
                #expect(harness.server.requests.count == 1)
                harness.clock.advance(31)
                #expect(try await client.load(endpoint).metadata.source == .network)
                #expect(harness.server.requests.count == 2)
            }
        }
    }

    @Test func theUsersMaxAgeComesFirst() async throws {
        try await withShutdown(of: ClientHarness()) { harness in
            var always = FreshnessPolicy.default
            always.maximumAge = .zero
            try await withShutdown(of: harness.client(freshness: always)) { eager in
                _ = try await eager.load(try SWAPI.list(Film.self))
                #expect(try await eager.load(try SWAPI.list(Film.self)).metadata.source == .revalidated, "max-age 0 asks every time")

                var patient = FreshnessPolicy.default
                patient.maximumAge = .seconds(3600)
                try await withShutdown(of: harness.client(freshness: patient)) { relaxed in
                    let posts = try Reddit.posts(subreddit: "python", limit: 25)
                    _ = try await relaxed.load(posts)
                    harness.clock.advance(1800)
                    #expect(try await relaxed.load(posts).metadata.source == .cache, "max-age 1 h overrides Reddit's own")
                }
            }
        }
    }

    @Test(.replaysRecordings) func noCacheIsNeverFreshAndNoStoreIsNeverWritten() async throws {
        try await withShutdown(of: ClientHarness { request in
            let control = request.path.contains("films") ? "no-cache" : "no-store"
            return .json(Fixtures.bytes(request.path.contains("films") ? "swapi/films.json" : "swapi/people_1.json"),
                         headers: [("Cache-Control", control)])
        }) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                #expect(try await client.load(try SWAPI.list(Film.self)).metadata.source == .network)
                _ = try await client.load(try SWAPI.resource(Person.self, id: 1))
                #expect(try await harness.statistics().total.entries == 1, "only the no-cache answer was stored")
            }
        }
    }

    @Test(.replaysRecordings) func maxStaleBoundsWhatIsServedOnFailureAndOffline() async throws {
        let down = NIOLockedValueBox(false)
        try await withShutdown(of: ClientHarness { request in
            down.withLockedValue { $0 } ? .json(Fixtures.bytes("reddit/error_500_internal_server_error.json"), status: 500)
                : Fixtures.route(request)
        }) { harness in
            var policy = FreshnessPolicy.default
            policy.maximumStale = .seconds(3 * 86_400)
            try await withShutdown(of: harness.client(freshness: policy)) { client in
                let endpoint = try SWAPI.resource(Person.self, id: 1)
                _ = try await client.load(endpoint)
                down.withLockedValue { $0 = true }

                harness.clock.advance(2 * 86_400)
                #expect(try await client.load(endpoint).metadata.errorCode?.description == "A500", "2 days old: served")
                _ = await client.notices.drain()

                harness.clock.advance(2 * 86_400)
                do throws(LoadFailure) {
                    _ = try await client.load(endpoint)
                    Issue.record("a copy older than max-stale must not be served")
                } catch {
                    #expect(error.error.code.description == "A500")
                }
                #expect(await client.notices.drain().map(\.notice.code.description) == ["C1005"], "the user learns why no copy was shown")
                do throws(LoadFailure) {
                    _ = try await client.load(endpoint, options: LoadOptions(cacheMode: .offline))
                    Issue.record("offline must honour max-stale too")
                } catch {
                    #expect(error.error.code.description == "C1005" && error.error.exitCode == .unavailable)
                }
            }
        }
    }

    @Test func cacheControlDirectivesParse() {
        #expect(CacheControl("max-age=0, must-revalidate") == CacheControl(nil).with { $0.maxAge = .valid(0); $0.mustRevalidate = true })
        // A sender must not quote max-age, but a recipient ought to accept both forms (RFC 9111 §5.2);
        // a single-quoted one is invalid, and an invalid one is stale, not absent.
        #expect(CacheControl("No-Cache, max-age=\"30\"") == CacheControl(nil).with { $0.noCache = true; $0.maxAge = .valid(30) })
        #expect(CacheControl("max-age='30'") == CacheControl(nil).with { $0.maxAge = .invalid })
        #expect(CacheControl("max-age=soon, no-store") == CacheControl(nil).with { $0.noStore = true; $0.maxAge = .invalid })
    }
}

extension CacheControl {
    func with(_ change: (inout CacheControl) -> Void) -> CacheControl {
        var copy = self
        change(&copy)
        return copy
    }
}
