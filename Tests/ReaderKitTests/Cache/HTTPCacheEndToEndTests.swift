import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// The HTTP cache's rules end to end: a client on a real cache file asks the loopback server,
/// which answers with each case's header lines; whether the second load asked the network is
/// what the server saw. Cases follow http-tests/cache-tests.
@Suite struct HTTPCacheEndToEndTests {
    /// An IMF-fixdate for `date`, as a server writes it.
    static func httpDate(_ date: Date) -> String { RetryAndRateLimitTests.httpDate(date) }

    /// A harness whose server answers the film list with `headers(now)` (and `304` to a
    /// matching `If-None-Match` when it sends an `ETag`), or `503` while `down` is set.
    static func harness(down: NIOLockedValueBox<Bool> = NIOLockedValueBox(false),
                        _ headers: @escaping @Sendable (Date) -> [(String, String)]) async throws -> (ClientHarness, NIOLockedValueBox<Date>) {
        let clock = NIOLockedValueBox(Date())
        let harness = try await ClientHarness { request in
            if down.withLockedValue({ $0 }) { return .json(Array(#"{"detail": "down"}"#.utf8), status: 503) }
            let sent = headers(clock.withLockedValue { $0 })
            if let etag = sent.first(where: { $0.0 == "ETag" })?.1, request.headers["if-none-match"] == etag {
                return .respond(status: 304, headers: sent, body: [])
            }
            return .json(SWAPIResources.page("films"), headers: sent)
        }
        clock.withLockedValue { $0 = harness.clock.now }
        return (harness, clock)
    }

    /// Loads the film list twice, `apart` seconds apart: the second load's result.
    func loadTwice(_ harness: ClientHarness, apart: TimeInterval, serverClock: NIOLockedValueBox<Date>? = nil) async throws -> Loaded<SWAPIPage<Film>> {
        try await withShutdown(of: harness.client()) { client in
            _ = try await client.load(try SWAPI.list(Film.self))
            harness.clock.advance(apart)
            serverClock?.withLockedValue { $0 = harness.clock.now }
            return try await client.load(try SWAPI.list(Film.self))
        }
    }

    @Test func anExpiresInThePastIsNotReusedForADay() async throws {
        let (harness, _) = try await Self.harness { now in
            [("Date", Self.httpDate(now)), ("Expires", Self.httpDate(now.addingTimeInterval(-30 * 86_400)))]
        }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .network && harness.server.requests.count == 2)
        }
    }

    @Test func expiresZeroIsAlreadyExpired() async throws {
        let (harness, _) = try await Self.harness { now in [("Date", Self.httpDate(now)), ("Expires", "0")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .network)
        }
    }

    @Test func aFutureExpiresIsReusedUntilThen() async throws {
        let (harness, _) = try await Self.harness { now in [("Date", Self.httpDate(now)), ("Expires", Self.httpDate(now.addingTimeInterval(600)))] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 300)
            #expect(second.metadata.source == .cache && second.metadata.servedAs == .fresh)
            #expect(second.metadata.httpCache?.freshnessLifetimeSeconds == 600 && second.metadata.httpCache?.lifetimeFrom == .expires)
            #expect(harness.server.requests.count == 1)
        }
    }

    @Test func anAgeOlderThanMaxAgeIsStaleOnArrival() async throws {
        let (harness, _) = try await Self.harness { now in [("Date", Self.httpDate(now)), ("Cache-Control", "max-age=3600"), ("Age", "7200")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .network)
            #expect(harness.server.requests.count == 2)
        }
    }

    @Test func anAgeIsCountedInTheCopysAge() async throws {
        let (harness, _) = try await Self.harness { now in [("Date", Self.httpDate(now)), ("Cache-Control", "max-age=3600"), ("Age", "1800")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 60)
            #expect(second.metadata.source == .cache)
            #expect(second.metadata.httpCache?.currentAgeSeconds == 1860)
            #expect(second.metadata.httpCache?.headers["age"] == "1800")
        }
    }

    @Test func anOldDateMakesTheCopyOld() async throws {
        // A Date two hours back (a copy from a cache upstream): max-age=3600 is spent on arrival
        let (harness, _) = try await Self.harness { now in [("Date", Self.httpDate(now.addingTimeInterval(-7200))), ("Cache-Control", "max-age=3600")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .network && harness.server.requests.count == 2)
        }
    }

    @Test func noCacheOnASecondLineIsObeyed() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=3600"), ("Cache-Control", "no-cache"), ("ETag", "\"v1\"")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .revalidated && harness.server.requests.count == 2)
        }
    }

    /// RFC 9111 §5.2: a sender must not quote max-age, but a recipient ought to accept both forms
    /// (the suite's `freshness-max-age-quoted`).
    @Test func aQuotedMaxAgeIsReadAsItsNumber() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=\"3600\"")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .cache && harness.server.requests.count == 1)
        }
    }

    @Test func mustRevalidateIsRevalidatedOnceStale() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=10, must-revalidate, stale-while-revalidate=600"), ("ETag", "\"v1\"")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 11)
            #expect(second.metadata.source == .revalidated && harness.server.requests.count == 2)
        }
    }

    @Test func a201WithoutFreshnessIsNotReusedButIsHistory() async throws {
        try await withShutdown(of: ClientHarness { _ in .json(SWAPIResources.page("films"), status: 201) }) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                #expect(try await client.load(try SWAPI.list(Film.self)).metadata.source == .network)
                let offline = try await client.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .offline))
                #expect(offline.metadata.source == .cache && offline.metadata.servedAs == .history)
            }
        }
    }

    @Test func noStoreOnASecondLineIsNeverStored() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=3600"), ("Cache-Control", "no-store")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .network)
            #expect(try await harness.statistics().total.entries == 0, "neither the cache nor the history keeps it")
            #expect(second.metadata.httpCache == nil, "no stored copy to describe")
        }
    }

    @Test func anInvalidMaxAgeIsStale() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=-1")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .network, "not the day's heuristic")
        }
    }

    @Test func mustRevalidateIsShownOnlyAsHistoryWhenTheServerFails() async throws {
        let down = NIOLockedValueBox(false)
        let (harness, _) = try await Self.harness(down: down) { _ in [("Cache-Control", "max-age=10, must-revalidate, stale-if-error=600")] }
        try await withShutdown(of: harness) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                down.withLockedValue { $0 = true }
                harness.clock.advance(60)
                let shown = try await client.load(try SWAPI.list(Film.self))
                #expect(shown.metadata.servedAs == .history && shown.metadata.stale && shown.metadata.errorCode?.description == "A503")
                #expect(await client.notices.drain().map(\.notice.code.description) == ["A503"], "with its age in a notice")
            }
        }
    }

    @Test func noCacheIsShownOnlyAsHistoryWhenTheConnectionFails() async throws {
        let down = NIOLockedValueBox(false)
        let (harness, _) = try await Self.harness(down: down) { _ in [("Cache-Control", "no-cache"), ("ETag", "\"v1\"")] }
        try await withShutdown(of: harness) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                #expect(try await client.load(try SWAPI.list(Film.self)).metadata.source == .revalidated, "validated every time")
                await harness.server.shutdown()
                let shown = try await client.load(try SWAPI.list(Film.self))
                #expect(shown.metadata.source == .cache && shown.metadata.servedAs == .history)
                #expect(shown.metadata.errorCode?.description == "T1004")
            }
        }
    }

    @Test func offlineAFreshCopyIsFreshAndAStaleOneIsHistory() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=60")] }
        try await withShutdown(of: harness) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                let offline = LoadOptions(cacheMode: .offline)
                #expect(try await client.load(try SWAPI.list(Film.self), options: offline).metadata.servedAs == .fresh)
                harness.clock.advance(120)
                let old = try await client.load(try SWAPI.list(Film.self), options: offline)
                #expect(old.metadata.servedAs == .history && old.metadata.stale)
            }
        }
    }

    @Test func staleIfErrorIsTheCachesAnswerWithinItsWindow() async throws {
        let down = NIOLockedValueBox(false)
        let (harness, _) = try await Self.harness(down: down) { _ in [("Cache-Control", "max-age=10, stale-if-error=600")] }
        try await withShutdown(of: harness) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                down.withLockedValue { $0 = true }
                harness.clock.advance(60)
                #expect(try await client.load(try SWAPI.list(Film.self)).metadata.servedAs == .staleIfError)
                harness.clock.advance(600)
                #expect(try await client.load(try SWAPI.list(Film.self)).metadata.servedAs == .history, "past it: history")
            }
        }
    }

    @Test func staleWhileRevalidateAnswersAtOnceAndRevalidatesBehind() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=10, stale-while-revalidate=600"), ("ETag", "\"v1\"")] }
        try await withShutdown(of: harness) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                harness.clock.advance(60)
                let stale = try await client.load(try SWAPI.list(Film.self))
                #expect(stale.metadata.source == .cache && stale.metadata.servedAs == .staleWhileRevalidate && stale.metadata.stale)
                await client.finishRevalidations()
                #expect(harness.server.requests.count == 2)
                #expect(harness.server.requests.last?.headers["if-none-match"] == "\"v1\"")
                harness.clock.advance(5)
                let confirmed = try await client.load(try SWAPI.list(Film.self))
                #expect(confirmed.metadata.servedAs == .fresh, "the 304 behind the answer made it fresh again")
                #expect(harness.server.requests.count == 2)
            }
        }
    }

    @Test func varyStarIsAlwaysValidated() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=3600"), ("Vary", "*"), ("ETag", "\"v1\"")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .revalidated)
            #expect(harness.server.requests.count == 2)
        }
    }

    @Test func varyOnTheHeadersReaderSendsIsReused() async throws {
        let (harness, _) = try await Self.harness { _ in [("Cache-Control", "max-age=3600"), ("Vary", "Accept, Accept-Language")] }
        try await withShutdown(of: harness) { harness in
            let second = try await loadTwice(harness, apart: 1)
            #expect(second.metadata.source == .cache)
            #expect(harness.server.requests.count == 1)
        }
    }

    @Test func aNotModifiedUpdatesTheStoredHeaders() async throws {
        let version = NIOLockedValueBox(1)
        let (harness, serverClock) = try await Self.harness { now in
            version.withLockedValue { $0 } == 1 ? [("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("Date", Self.httpDate(now))]
                : [("Cache-Control", "max-age=3600"), ("ETag", "\"v1\""), ("Date", Self.httpDate(now))]
        }
        try await withShutdown(of: harness) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                version.withLockedValue { $0 = 2 }
                harness.clock.advance(60)
                serverClock.withLockedValue { $0 = harness.clock.now }
                let confirmed = try await client.load(try SWAPI.list(Film.self))
                #expect(confirmed.metadata.source == .revalidated)
                #expect(confirmed.metadata.httpCache?.headers["cache-control"] == "max-age=3600")
                harness.clock.advance(1800)
                #expect(try await client.load(try SWAPI.list(Film.self)).metadata.source == .cache, "the 304's max-age counts")
                #expect(harness.server.requests.count == 2)
            }
        }
    }
}
