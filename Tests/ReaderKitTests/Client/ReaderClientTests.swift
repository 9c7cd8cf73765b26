import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// The pipeline as a library user gets it: a real server on loopback, a real SQLite file, and
/// only the sleeper faked, so retry waits are observed without being slept.
@Suite struct ReaderClientTests {
    final class Sleeps: Sendable {
        let recorded = NIOLockedValueBox<[Duration]>([])
        var sleep: @Sendable (Duration) async throws -> Void { { [recorded] delay in recorded.withLockedValue { $0.append(delay) } } }
    }

    /// The test's temporary folder, removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-kit")

    @Test func retryAfterIsHonouredThroughTheInjectedSleeper() async throws {
        let calls = NIOLockedValueBox(0)
        try await withTestServer { request in
            calls.withLockedValue { $0 += 1; return $0 } <= 2
                ? .json(Array("{}".utf8), status: 503, headers: [("Retry-After", "7")]) : SampleAPI.route(request)
        } body: { server in
            let sleeps = Sleeps()
            try await withShutdown(of: makeClient(server, cachePath: scratch.cachePath(), withReddit: true, sleep: sleeps.sleep)) { client in
                let films = try await client.load(try SWAPI.list(Film.self))
                #expect(films.value.results.count == 6)
                #expect(sleeps.recorded.withLockedValue { $0 } == [.seconds(7), .seconds(7)])
                #expect(server.requests.count == 3)
            }
        }
    }

    @Test(.replaysRecordings) func aStaleCopyIsServedWithANoticeAndA404ResetsIt() async throws {
        let mode = NIOLockedValueBox("ok")
        try await withTestServer { request in
            switch mode.withLockedValue({ $0 }) {
            case "down": .json(Fixtures.bytes("reddit/error_500_internal_server_error.json"), status: 500)
            case "gone": .json(Fixtures.bytes("swapi/people_9999_not_found.json"), status: 404)
            default: SampleAPI.route(request)
            }
        } body: { server in
            let sleeps = Sleeps()
            try await withShutdown(of: makeClient(server, cachePath: scratch.cachePath(), withReddit: true, sleep: sleeps.sleep)) { client in
                let endpoint = try SWAPI.resource(Person.self, id: 1)
                _ = try await client.load(endpoint)

                mode.withLockedValue { $0 = "down" }
                let stale = try await client.load(endpoint, options: LoadOptions(cacheMode: .refresh))
                #expect(stale.metadata.source == .cache && stale.metadata.errorCode?.description == "A500")
                #expect(stale.value.name == "Luke Skywalker")
                #expect(sleeps.recorded.withLockedValue { $0 }.isEmpty, "a 500 without Retry-After is not retried")
                let notices = await client.notices.drain()
                #expect(notices.map(\.notice.kind) == [.staleData])

                mode.withLockedValue { $0 = "gone" }
                await #expect(throws: LoadFailure.self) { try await client.load(endpoint, options: LoadOptions(cacheMode: .refresh)) }
                do throws(LoadFailure) {
                    _ = try await client.load(endpoint, options: LoadOptions(cacheMode: .offline))
                    Issue.record("the reset should have deleted the cached copy")
                } catch {
                    #expect(error.error.code.description == "C1001")
                }
            }
        }
    }

    /// A transport whose resolver knows no name under `.invalid` (RFC 6761: such names never
    /// resolve) and fails it as AsyncHTTPTransport fails a name that does not resolve. No resolver
    /// is asked, so nothing leaves the machine whatever the host's DNS set-up.
    struct NoSuchNames: HTTPTransport {
        func send(_ request: HTTPRequest, deadline: ContinuousClock.Instant) async throws(TransportFailure) -> HTTPResponse {
            let host = request.url.host ?? ""
            guard !host.hasSuffix(".invalid") else {
                throw TransportFailure(.cannotFindHost, host: host, detail: "NXDOMAIN (test resolver)")
            }
            throw TransportFailure(.unknown, host: host, detail: "the test transport only knows .invalid names")
        }

        func shutdown() async {}
    }

    @Test func anUnresolvableHostIsNotRetriedServesTheCacheOrAlertsWithT1003() async throws {
        let base = try #require(URL(string: "http://swapi.reader-test.invalid/api"))
        let cachePath = scratch.cachePath()
        // A copy in the cache, as an earlier run would have stored it, under the same URL.
        let filmsURL = base.appendingPathComponent("films/")
        try await ResponseCache.open(path: cachePath).store(CacheEntry(
            key: CacheKey.normalise(filmsURL), service: "swapi", url: filmsURL.absoluteString, status: 200,
            body: Data(SWAPIResources.page("films")), fetchedAt: Date()))
        let sleeps = Sleeps()
        try await withShutdown(of: ReaderClient(configuration: .init(services: ServiceConfiguration([SWAPIService(baseURL: base)]), cachePath: cachePath),
                                  transport: NoSuchNames(), sleep: sleeps.sleep)) { client in

            let stale = try await client.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .refresh))
            #expect(stale.metadata.source == .cache && stale.metadata.errorCode?.description == "T1003")
            #expect(stale.value.results.first?.title == "A New Hope")
            #expect(await client.notices.drain().map(\.notice.kind) == [.staleData])

            let people = try SWAPI.list(Person.self)
            do throws(LoadFailure) {
                _ = try await client.load(people, options: LoadOptions(cacheMode: .refresh))
                Issue.record("nothing cached and no such host: the load must fail")
            } catch {
                #expect(error.error.code.description == "T1003" && error.decision == .alert)
                #expect(error.error.exitCode.rawValue == 68)
                #expect(error.error.message == "cannot find host swapi.reader-test.invalid: the name does not resolve")
            }
            #expect(sleeps.recorded.withLockedValue { $0 }.isEmpty, "a name that does not resolve is not retried")
        }
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        try await withTestServer { _ in .json(Array(repeating: UInt8(ascii: " "), count: 64 * 1024) + Array("{}".utf8)) } body: { server in
            let services = ServiceConfiguration([SWAPIService(baseURL: URL(string: server.baseURL + "/api")!)])
            try await withShutdown(of: ReaderClient(configuration: .init(services: services, maximumBodySize: 16 * 1024))) { client in
                let endpoint = try SWAPI.list(Film.self)
                do throws(LoadFailure) {
                    _ = try await client.load(endpoint)
                    Issue.record("an oversized body must be refused")
                } catch {
                    #expect(error.error.code.description == "T1103")
                }
            }
        }
    }

    @Test func cacheKeysIgnoreCaseOrderDefaultPortsAndFragments() {
        let a = CacheKey.normalise(URL(string: "HTTPS://Swapi.Dev:443/api/people/?search=a&page=2#x")!)
        let b = CacheKey.normalise(URL(string: "https://swapi.dev/api/people/?page=2&search=a")!)
        #expect(a == b)
        #expect(a != CacheKey.normalise(URL(string: "https://swapi.dev/api/people/?page=3&search=a")!))
    }

    @Test func endpointsPercentEncodeSearchText() throws {
        let url = try SWAPI.list(Planet.self, search: "a+b&c=d é").url(in: .builtIn)!
        #expect(url.absoluteString == "https://swapi.dev/api/planets/?search=a%2Bb%26c%3Dd%20%C3%A9")
    }
}
