import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// What a stored error answer may not do (the attack on issue 30 item 22, /work/attack8): be a
/// `304`, hold a `200` that failed, keep a body larger than reader reads, answer longer than an
/// hour by one measure and not by another, or keep a sync from filling its gap.
@Suite struct StoredErrorLimitsTests {
    typealias Answer = StoredErrorAnswerTests.Answer
    static let json = StoredErrorAnswerTests.json
    static let notFound = StoredErrorAnswerTests.notFound

    func httpDate(_ date: Date) -> String { StoredErrorAnswerTests.httpDate(date) }

    /// Loads the films, expecting a failure: the failure.
    func filmsFailure(_ client: ReaderClient, options: LoadOptions = LoadOptions()) async throws -> LoadFailure {
        do {
            let films = try await client.load(try SWAPI.list(Film.self), options: options)
            Issue.record("expected a failure, got \(films.metadata)")
            throw CancellationError()
        } catch let failure as LoadFailure {
            return failure
        }
    }

    /// A client that does not retry: each load is one request.
    func client(_ harness: ClientHarness, freshness: FreshnessPolicy = .default) -> ReaderClient {
        harness.client(freshness: freshness, retryPolicy: RetryPolicy(maximumRetries: 0, jitter: { 1 }))
    }

    // MARK: - One hour, one rule

    /// The hour is a cap on the lifetime, whatever gave it (`max-age`, or `Expires` minus `Date`),
    /// counted against the answer's current age as every copy's is: a 404 that arrives 3000 s old
    /// (`Age`) answers ten minutes more, by either header.
    @Test(arguments: ["max-age", "Expires"])
    func theHourCountsTheAnswersAgeWhateverGaveItsLifetime(_ basis: String) async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { now in
            let lifetime = basis == "max-age" ? ("Cache-Control", "max-age=7200")
                : ("Expires", StoredErrorAnswerTests.httpDate(now.addingTimeInterval(7200)))
            return [Self.json, ("Date", StoredErrorAnswerTests.httpDate(now)), ("Age", "3000"), lifetime]
        }, body: Self.notFound))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                _ = try await filmsFailure(client)
                harness.clock.advance(599)
                _ = try await filmsFailure(client)
                #expect(harness.server.requests.count == 1, "\(basis): fresh for 600 s")
                harness.clock.advance(2)
                _ = try await filmsFailure(client)
                #expect(harness.server.requests.count == 2, "\(basis): 3000 s old on arrival, past the hour 601 s later")
            }
        }
    }

    @Test func theLifetimeOfAStoredErrorIsTheLeastOfTheServersTheHourAndTheUsers() {
        let arrived = Date(timeIntervalSince1970: 1_795_255_200)
        func entry(_ headers: [(String, String)]) -> CacheEntry {
            RequestPipeline.entry(for: HTTPResponse(status: 404, headers: HeaderFields(headers.map { (name: $0.0, value: $0.1) }), body: Data(Self.notFound)),
                                  key: "k", service: "swapi", url: URL(string: "https://swapi.dev/api/people/9999/")!, requestHeaders: [:],
                                  requestedAt: arrived, fetchedAt: arrived)
        }
        let date = ("Date", httpDate(arrived))
        let byMaxAge = FreshnessPolicy.lifetimeOfStoredFailure(entry([date, ("Cache-Control", "max-age=7200")]), under: .default)
        let byExpires = FreshnessPolicy.lifetimeOfStoredFailure(entry([date, ("Expires", httpDate(arrived.addingTimeInterval(7200)))]), under: .default)
        #expect(byMaxAge.seconds == 3600 && byMaxAge.basis == .maxAge)
        #expect(byExpires.seconds == 3600 && byExpires.basis == .expires)
        let heuristic = FreshnessPolicy.lifetimeOfStoredFailure(entry([date]), under: .default)
        #expect(heuristic.seconds == 600 && heuristic.basis == .heuristic)
        let users = FreshnessPolicy.lifetimeOfStoredFailure(entry([date, ("Cache-Control", "max-age=7200")]), under: FreshnessPolicy(maximumAge: .seconds(60)))
        #expect(users.seconds == 60 && users.basis == .userMaximumAge)
    }

    // MARK: - A 304 is no answer of its own (RFC 9111 §4.3.4)

    @Test func aNotModifiedWithFreshnessIsNeverStored() async throws {
        let answer = NIOLockedValueBox(Answer(status: 304, headers: { _ in [("Cache-Control", "max-age=3600")] }, body: []))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                let first = try await filmsFailure(client)
                harness.clock.advance(60)
                let second = try await filmsFailure(client)
                #expect(first.error.code.description == "H304" && second.error.code.description == "H304")
                #expect(harness.server.requests.count == 2, "with no copy to confirm, a 304 says nothing to keep")
            }
        }
        #expect(!FreshnessPolicy.mayStoreFailure(HTTPResponse(status: 304, headers: ["Cache-Control": "max-age=3600"], body: Data())))
    }

    // MARK: - A 200 that fails is never stored

    /// A 200 whose body is the API's error is a failure, classified once (A200): stored, it would
    /// be the copy of a resource and read back as a damaged one (C1006); it is not stored.
    @Test func aSuccessCarryingTheAPIsErrorIsNeverStored() async throws {
        let answer = NIOLockedValueBox(Answer(status: 200, headers: { _ in [Self.json, ("Cache-Control", "max-age=600")] }, body: Self.notFound))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                let first = try await filmsFailure(client)
                harness.clock.advance(60)
                let second = try await filmsFailure(client)
                #expect(first.error.code.description == "A200" && second.error.code.description == "A200")
                #expect(harness.server.requests.count == 2)
                let notices = await client.notices.drain()
                #expect(!notices.contains { $0.notice.code.description == "C1006" }, "nothing stored to be read back as damaged: \(notices)")
                let offline = try await filmsFailure(client, options: LoadOptions(cacheMode: .offline))
                #expect(offline.error.code.description == "C1001")
            }
        }
        #expect(!FreshnessPolicy.mayStoreFailure(HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=600"], body: Data(Self.notFound))))
        #expect(FreshnessPolicy.mayStoreFailure(HTTPResponse(status: 204, headers: ["Cache-Control": "max-age=600"], body: Data())))
    }

    /// A 200 with the API's error over a copy read before: the copy is not replaced by it. (A body
    /// that is not the API's "not found" says nothing of the resource: the copy stays.)
    @Test func aSuccessCarryingTheAPIsErrorNeverReplacesACopy() async throws {
        let answer = NIOLockedValueBox(Answer(status: 200, headers: { now in
            [Self.json, ("Date", StoredErrorAnswerTests.httpDate(now)), ("Cache-Control", "max-age=60")]
        }, body: StoredErrorAnswerTests.films))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                harness.clock.advance(120)
                answer.withLockedValue { $0 = Answer(status: 200, headers: { _ in [Self.json, ("Cache-Control", "max-age=600")] },
                                                     body: Array(#"{"error": true, "reason": "maintenance"}"#.utf8)) }
                let failed = try await filmsFailure(client)
                #expect(failed.error.code.description == "A200")
                let offline = try await client.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .offline))
                #expect(offline.value.results.count == 6 && offline.metadata.servedAs == .history)
            }
        }
    }

    // MARK: - A large error body is not kept

    /// An error body is kept only to be read again as the same failure, and reader reads 64 KiB of
    /// one at most: a larger one (a web server's page) is not stored, and never evicts data.
    @Test func anErrorBodyLargerThanReaderReadsIsNotStored() async throws {
        let limit = FreshnessPolicy.storedFailureLargestBody
        #expect(limit == 64 * 1024)
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [("Content-Type", "text/plain"), ("Cache-Control", "max-age=600")] },
                                              body: Array(repeating: UInt8(ascii: "x"), count: limit + 1)))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                _ = try await filmsFailure(client)
                _ = try await filmsFailure(client)
                #expect(harness.server.requests.count == 2, "not stored")
                #expect(try await harness.statistics().total.entries == 0)
                answer.withLockedValue { $0.body = Array(repeating: UInt8(ascii: "x"), count: limit) }
                _ = try await filmsFailure(client)
                _ = try await filmsFailure(client)
                #expect(harness.server.requests.count == 3, "64 KiB is stored, and answers")
            }
        }
    }

    // MARK: - A sync fills its gaps

    /// A sync is asked to fill the gaps: a stored error answer, fresh or not, is asked again (as
    /// `--refresh` would, for error answers only), while fresh data is not.
    @Test func aSyncAsksAgainForAStoredErrorNotForFreshData() async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json] }, body: Self.notFound))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                _ = try await filmsFailure(client)
                _ = try await filmsFailure(client)
                #expect(harness.server.requests.count == 1, "a load is answered by the stored 404")
                answer.withLockedValue { $0 = Answer(status: 200, headers: { _ in [Self.json] }, body: StoredErrorAnswerTests.films) }
                let filled = await client.sync([try SWAPI.list(Film.self)], phase: "films")
                #expect(filled.fetched == 1 && filled.failed == 0 && filled.isComplete)
                #expect(harness.server.requests.count == 2)
                let again = await client.sync([try SWAPI.list(Film.self)], phase: "films")
                #expect(again.alreadyFresh == 1 && harness.server.requests.count == 2, "fresh data is not asked again")
            }
        }
    }

    // MARK: - Listed and counted as what it is

    /// The listing judges a stored error answer as a load does: fresh for its ten minutes (not the
    /// service's day), then stale, never history-only; its replay is no hit.
    @Test func aStoredErrorIsListedAndCountedAsWhatItIs() async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json] }, body: Self.notFound))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                _ = try await filmsFailure(client)
                _ = try await filmsFailure(client)
                #expect(harness.server.requests.count == 1)
                let fresh = try #require(try await client.cacheListing().first)
                #expect(fresh.isStoredError && fresh.state == .fresh && fresh.status == 404)
                #expect(fresh.httpCache.freshnessLifetimeSeconds == 600 && fresh.httpCache.lifetimeFrom == .heuristic)
                harness.clock.advance(601)
                let stale = try #require(try await client.cacheListing().first)
                #expect(stale.state == .stale, "the next load asks; never history-only")
                let swapi = try await harness.statistics().services["swapi"]
                #expect(swapi?.hits == 0, "a replayed error is no hit")
            }
        }
    }

    // MARK: - A web server's 404 is not the service's

    /// A revalidation behind a `stale-while-revalidate` answer that meets a 404: the service's own
    /// (its error body) says the resource is gone, and the copy goes; a web server's 404 page (no
    /// error body of the service's: a wrong address, a broken proxy) does not, and the copy stays.
    @Test(arguments: [true, false])
    func onlyTheServicesOwnNotFoundDeletesACopyBehindAStaleAnswer(_ servicesOwn: Bool) async throws {
        let answer = NIOLockedValueBox(Answer(status: 200, headers: { _ in [Self.json, ("Cache-Control", "max-age=10, stale-while-revalidate=600")] },
                                              body: StoredErrorAnswerTests.films))
        try await withShutdown(of: StoredErrorAnswerTests.harness(answer)) { harness in
            try await withShutdown(of: client(harness)) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                harness.clock.advance(60)
                answer.withLockedValue {
                    $0 = servicesOwn ? Answer(status: 404, headers: { _ in [Self.json] }, body: Self.notFound)
                        : Answer(status: 404, headers: { _ in [("Content-Type", "text/html")] },
                                 body: Array("<html><head><title>404 Not Found</title></head><body>nginx</body></html>".utf8))
                }
                let stale = try await client.load(try SWAPI.list(Film.self))
                #expect(stale.metadata.servedAs == .staleWhileRevalidate)
                await client.finishRevalidations()
                #expect(harness.server.requests.count == 2)
                if servicesOwn {
                    let offline = try await filmsFailure(client, options: LoadOptions(cacheMode: .offline))
                    #expect(offline.error.code.description == "C1001", "the service said it is gone")
                } else {
                    let offline = try await client.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .offline))
                    #expect(offline.value.results.count == 6, "a web server's 404 page leaves the copy")
                }
            }
        }
    }
}
