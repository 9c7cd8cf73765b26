import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// Answers that are not a copy of a resource, by RFC 9111 as the public suite http-tests/cache-tests
/// checks it (issue 30 item 22): an `Age` given twice counts its first value; a `204` where an
/// endpoint needs a body is said as that status; an error answer the RFC lets a cache reuse (a
/// heuristically cacheable status, or any status with explicit freshness) answers while fresh, as
/// the same failure, and is never shown as the copy from before.
@Suite struct StoredErrorAnswerTests {
    /// An IMF-fixdate for `date`, as a server writes it.
    static func httpDate(_ date: Date) -> String { RetryAndRateLimitTests.httpDate(date) }

    /// What the server answers next: a status, its header lines (given the server's `now`) and a body.
    struct Answer: Sendable {
        var status: Int
        var headers: @Sendable (Date) -> [(String, String)]
        var body: [UInt8]
    }

    /// A harness whose server answers every request with `answer`'s current value.
    static func harness(_ answer: NIOLockedValueBox<Answer>) async throws -> ClientHarness {
        let clock = NIOLockedValueBox(Date())
        let harness = try await ClientHarness { _ in
            let next = answer.withLockedValue { $0 }
            return .respond(status: next.status, headers: next.headers(clock.withLockedValue { $0 }), body: next.body)
        }
        clock.withLockedValue { $0 = harness.clock.now }
        return harness
    }

    static let films = SWAPIResources.page("films")
    /// SWAPI's not-found body, as it answers `people/9999`.
    static let notFound = Array(#"{"detail":"Not found"}"#.utf8)
    static let json = ("Content-Type", "application/json")

    /// Loads person 9999, expecting a failure: the failure.
    func failure(_ client: ReaderClient, options: LoadOptions = LoadOptions()) async throws -> LoadFailure {
        do {
            let person = try await client.load(try SWAPI.resource(Person.self, id: 9999), options: options)
            Issue.record("expected a failure, got \(person.metadata)")
            throw CancellationError()
        } catch let failure as LoadFailure {
            return failure
        }
    }

    /// Loads the failing request, again `within` seconds later and again `past` seconds after
    /// that: how many requests the server had seen after the second load and after the third.
    func requestsSeen(_ client: ReaderClient, _ harness: ClientHarness, within: Int, past: Int) async throws -> [Int] {
        _ = try await failure(client)
        harness.clock.advance(TimeInterval(within))
        _ = try await failure(client)
        let stored = harness.server.requests.count
        harness.clock.advance(TimeInterval(past))
        _ = try await failure(client)
        return [stored, harness.server.requests.count]
    }

    // MARK: - Age (RFC 9111 §5.1)

    @Test(arguments: [[("Age", "7200, 0")], [("Age", "7200"), ("Age", "0")]])
    func anAgeListCountsItsFirstValue(_ ages: [(String, String)]) async throws {
        let answer = NIOLockedValueBox(Answer(status: 200, headers: { now in
            [Self.json, ("Date", Self.httpDate(now)), ("Cache-Control", "max-age=3600")] + ages
        }, body: Self.films))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                harness.clock.advance(1)
                let second = try await client.load(try SWAPI.list(Film.self))
                // 7200 s old on arrival, with an hour's lifetime: stale, whatever the value after it.
                #expect(second.metadata.source == .network)
                #expect(harness.server.requests.count == 2)
            }
        }
    }

    @Test func anAgeListWhoseFirstValueIsYoungIsFresh() {
        #expect(FreshnessPolicy.ageValue("0, 7200") == 0)
        #expect(FreshnessPolicy.ageValue("3600, 3600") == 3600)
        #expect(FreshnessPolicy.ageValue("7200, 0") == 7200)
        #expect(FreshnessPolicy.ageValue("-1, 0") == nil, "an invalid first value is ignored, not replaced by the next")
    }

    /// RFC 9110 §5.6.1: an empty list element is no member. An empty first `Age` line (stored
    /// joined as `, 7200`) neither reads as 0 nor hides the value after it; an `Age` with no
    /// member at all is absent.
    @Test func anEmptyAgeElementIsNoMember() async throws {
        #expect(FreshnessPolicy.ageValue(", 7200") == 7200)
        #expect(FreshnessPolicy.ageValue(" ,  , 7200, 0") == 7200)
        #expect(FreshnessPolicy.ageValue("") == nil && FreshnessPolicy.ageValue(" , ") == nil)
        let answer = NIOLockedValueBox(Answer(status: 200, headers: { now in
            [Self.json, ("Date", Self.httpDate(now)), ("Cache-Control", "max-age=3600"), ("Age", ""), ("Age", "7200")]
        }, body: Self.films))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                harness.clock.advance(1)
                let second = try await client.load(try SWAPI.list(Film.self))
                #expect(second.metadata.source == .network, "7200 s old on arrival: stale")
                #expect(harness.server.requests.count == 2)
            }
        }
    }

    // MARK: - 204 where a body is needed

    @Test func aNoContentWhereABodyIsNeededIsThatStatus() async throws {
        let answer = NIOLockedValueBox(Answer(status: 204, headers: { _ in [] }, body: []))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                do {
                    _ = try await client.load(try SWAPI.list(Film.self))
                    Issue.record("a 204 has no films to show")
                } catch let failure as LoadFailure {
                    #expect(failure.error.code.description == "H204")
                    #expect(failure.error.message == "the server answered 204 No Content: there is nothing to show")
                }
            }
        }
    }

    @Test func aFreshNoContentAnswersAgainWithoutTheServer() async throws {
        let answer = NIOLockedValueBox(Answer(status: 204, headers: { now in [("Date", Self.httpDate(now)), ("Cache-Control", "max-age=600")] }, body: []))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                for _ in 0..<2 {
                    do {
                        _ = try await client.load(try SWAPI.list(Film.self))
                        Issue.record("a 204 has no films to show")
                    } catch let failure as LoadFailure {
                        #expect(failure.error.code.description == "H204")
                    }
                    harness.clock.advance(60)
                }
                #expect(harness.server.requests.count == 1)
            }
        }
    }

    // MARK: - Stored error answers (RFC 9111 §3, §4.2.2)

    @Test func aFreshNotFoundAnswersWithoutTheServerAsTheSameFailure() async throws {
        // SWAPI's 404 carries no freshness: heuristically cacheable, it is fresh for ten minutes
        // (not the day SWAPI's data is given).
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json] }, body: Self.notFound))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                let network = try await failure(client)
                _ = await client.notices.drain()
                harness.clock.advance(599)
                let cached = try await failure(client)
                #expect(harness.server.requests.count == 1, "the stored answer is the answer")
                #expect(network.error.code.description == "A404" && cached.error.code.description == "A404")
                #expect(cached.error.message == network.error.message)
                #expect(cached.error.exitCode == network.error.exitCode && cached.decision == network.decision)
                #expect(await client.notices.drain().isEmpty, "the same error, as a fresh copy is the same answer")
                let refreshed = try await failure(client, options: LoadOptions(cacheMode: .refresh))
                #expect(refreshed.error.code.description == "A404" && harness.server.requests.count == 2, "refresh asks again")
            }
        }
    }

    @Test func aNotFoundWithoutFreshnessAnswersTenMinutesNotTheServicesDay() async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json] }, body: Self.notFound))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                let seen = try await requestsSeen(client, harness, within: 599, past: 2)
                #expect(seen == [1, 2], "past ten minutes the server is asked again")
            }
        }
    }

    /// A server that marks every answer fresh for a year (a CDN's default) holds a command to its
    /// 500 for an hour at most.
    @Test func anErrorFreshForAYearAnswersAnHourAtMost() async throws {
        let answer = NIOLockedValueBox(Answer(status: 500, headers: { _ in [Self.json, ("Cache-Control", "max-age=31536000")] },
                                              body: Array(#"{"detail":"broken"}"#.utf8)))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client(retryPolicy: RetryPolicy(maximumRetries: 0, jitter: { 1 }))) { client in
                let seen = try await requestsSeen(client, harness, within: 3_599, past: 2)
                #expect(seen == [1, 2], "past an hour the server is asked again")
            }
        }
    }

    /// The user's max-age is for data: it never makes an error the server said not to reuse
    /// (`max-age=0`, `no-cache`) answer again, and it can shorten a stored error's life.
    @Test(arguments: ["max-age=0", "no-cache", "max-age=3600"])
    func theUsersMaxAgeNeverLengthensAStoredError(_ control: String) async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json, ("Cache-Control", control)] }, body: Self.notFound))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client(freshness: FreshnessPolicy(maximumAge: control == "max-age=3600" ? .seconds(60) : .seconds(86_400)))) { client in
                _ = try await failure(client)
                harness.clock.advance(61)
                _ = try await failure(client)
                #expect(harness.server.requests.count == 2, "\(control): asked again")
            }
        }
    }

    @Test func aStaleNotFoundIsAskedAgain() async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json, ("Cache-Control", "max-age=60")] }, body: Self.notFound))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                let seen = try await requestsSeen(client, harness, within: 30, past: 60)
                #expect(seen == [1, 2])
            }
        }
    }

    @Test func anyStatusWithExplicitFreshnessIsReusedWhileFresh() async throws {
        let answer = NIOLockedValueBox(Answer(status: 500, headers: { _ in [Self.json, ("Cache-Control", "max-age=600")] }, body: Array(#"{"detail": "broken"}"#.utf8)))
        try await withShutdown(of: Self.harness(answer)) { harness in
            // No retry: the server's answer is the answer while it is fresh.
            try await withShutdown(of: harness.client(retryPolicy: RetryPolicy(maximumRetries: 0, jitter: { 1 }))) { client in
                let network = try await failure(client)
                harness.clock.advance(300)
                let cached = try await failure(client)
                #expect(harness.server.requests.count == 1)
                #expect(network.error.code.description == "A500" && cached.error.code == network.error.code)
                #expect(cached.decision == .alert)
            }
        }
    }

    @Test func aRefusalIsNeverStoredWhateverItsFreshness() async throws {
        let answer = NIOLockedValueBox(Answer(status: 403, headers: { _ in [Self.json, ("Cache-Control", "max-age=600")] }, body: Array(#"{"detail": "no"}"#.utf8)))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await failure(client)
                _ = try await failure(client)
                #expect(harness.server.requests.count == 2, "a refusal may end with the next credential")
            }
        }
    }

    // MARK: - Never the copy from before

    @Test func anErrorAnswerWithFreshnessDoesNotReplaceTheHistory() async throws {
        let answer = NIOLockedValueBox(Answer(status: 200, headers: { now in [Self.json, ("Date", Self.httpDate(now)), ("Cache-Control", "max-age=60")] },
                                              body: Self.films))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client(retryPolicy: RetryPolicy(maximumRetries: 0, jitter: { 1 }))) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                harness.clock.advance(120)
                // A maintenance page that says it lasts ten minutes: the films read before stay.
                answer.withLockedValue { $0 = Answer(status: 503, headers: { _ in [Self.json, ("Cache-Control", "max-age=600")] },
                                                     body: Array(#"{"detail": "maintenance"}"#.utf8)) }
                let during = try await client.load(try SWAPI.list(Film.self))
                #expect(during.metadata.source == .cache && during.metadata.servedAs == .history)
                let offline = try await client.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .offline))
                #expect(offline.value.results.count == 6 && offline.metadata.servedAs == .history)
            }
        }
    }

    @Test func aStoredErrorIsNeverShownWhenTheNetworkFails() async throws {
        let answer = NIOLockedValueBox(Answer(status: 404, headers: { _ in [Self.json, ("Cache-Control", "max-age=60, stale-if-error=86400")] },
                                              body: Self.notFound))
        try await withShutdown(of: Self.harness(answer)) { harness in
            try await withShutdown(of: harness.client(retryPolicy: RetryPolicy(maximumRetries: 0, jitter: { 1 }))) { client in
                _ = try await failure(client)
                harness.clock.advance(120)
                answer.withLockedValue { $0 = Answer(status: 503, headers: { _ in [Self.json] }, body: Array(#"{"detail": "down"}"#.utf8)) }
                let failed = try await failure(client)
                #expect(failed.error.code.description == "A503", "the network's failure, not the stored 404")
                let offline = try await failure(client, options: LoadOptions(cacheMode: .offline))
                #expect(offline.error.code.description == "C1001", "a stored error is no copy to show offline")
            }
        }
    }

    @Test func staleIfErrorServesOnlyASuccess() {
        let headers = HeaderFields([(name: "Cache-Control", value: "max-age=60, stale-if-error=86400")])
        let arrived = Date(timeIntervalSince1970: 1_795_255_200)
        let entry = RequestPipeline.entry(for: HTTPResponse(status: 404, headers: headers, body: Data(Self.notFound)), key: "k", service: "swapi",
                                          url: URL(string: "https://swapi.dev/api/people/9999/")!, requestHeaders: [:],
                                          requestedAt: arrived, fetchedAt: arrived)
        let rule = FreshnessPolicy.Rule(defaultLifetime: .seconds(86_400))
        #expect(!FreshnessPolicy.default.mayServeStaleOnError(entry, rule: rule, at: arrived.addingTimeInterval(120)))
        var success = entry
        success.status = 200
        #expect(FreshnessPolicy.default.mayServeStaleOnError(success, rule: rule, at: arrived.addingTimeInterval(120)))
    }
}
