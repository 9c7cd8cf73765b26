import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// Retry-After in both forms, the --max-wait cap, the deadline, and Reddit's rate-limit headers,
/// observed through the injected sleeper so that nothing sleeps for real.
@Suite struct RetryAndRateLimitTests {
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    @Test func retryAfterAsAnHTTPDateIsWaitedFor() async throws {
        let calls = NIOLockedValueBox(0)
        let comeBack = NIOLockedValueBox("")
        try await withShutdown(of: ClientHarness { request in
            calls.withLockedValue { $0 += 1; return $0 } == 1
                ? .json(Array("{}".utf8), status: 503, headers: [("Retry-After", comeBack.withLockedValue { $0 })]) : SampleAPI.route(request)
        }) { harness in
            comeBack.withLockedValue { $0 = Self.httpDate(harness.clock.now.addingTimeInterval(12)) }
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                #expect(harness.sleeps.values == [.seconds(12)])
            }
        }
    }

    @Test func aWaitBeyondMaxWaitIsNotTakenAndTheUserIsToldWhenToComeBack() async throws {
        try await withShutdown(of: ClientHarness { _ in .json(Array("{}".utf8), status: 503, headers: [("Retry-After", "5400")]) }) { harness in
            try await withShutdown(of: harness.client(retryPolicy: RetryPolicy(maximumDelay: .seconds(30)))) { client in
                let films = try SWAPI.list(Film.self)
                do throws(LoadFailure) {
                    _ = try await client.load(films)
                    Issue.record("a 503 with a long Retry-After must fail")
                } catch {
                    #expect(error.error.code.description == "H503")
                    #expect(error.error.message.contains("it asks to come back at "), "\(error.error.message)")
                    #expect(error.hints == [.tryAgainThenOrAllowLongerWait])
                    #expect(error.hints.text == "try again then, or allow a longer wait with RetryPolicy.maximumDelay")
                }
                #expect(harness.sleeps.values.isEmpty && harness.server.requests.count == 1)
            }
        }
    }

    @Test func retriesNeverOutliveTheDeadline() async throws {
        try await withShutdown(of: ClientHarness { _ in .json(Array("{}".utf8), status: 503, headers: [("Retry-After", "8")]) }) { harness in
            await withShutdown(of: harness.client(timeout: .seconds(5))) { client in
                await #expect(throws: LoadFailure.self) { try await client.load(try SWAPI.list(Film.self)) }
                #expect(harness.sleeps.values.isEmpty, "an 8 s wait does not fit in a 5 s deadline")
            }
        }
    }

    @Test func whatIsRetriedIsThePolicysOwn() {
        let serverError = ReaderError.status(StatusFailure(status: 500, url: "u"))
        let unavailable = ReaderError.status(StatusFailure(status: 503, url: "u"))
        let lost = ReaderError.transport(TransportFailure(.connectionLost, host: "h", detail: "reset"))
        let standard = RetryPolicy(jitter: { 1 })
        #expect(standard.delay(before: serverError, in: ErrorContext()) == nil)
        #expect(standard.delay(before: unavailable, in: ErrorContext()) == .milliseconds(500))
        #expect(standard.delay(before: lost, in: ErrorContext()) == .milliseconds(500))
        // A policy of its own: a 500 is worth another try, a 503 and a lost connection are not.
        let own = RetryPolicy(jitter: { 1 }, retryableStatuses: [500], retryableTransportReasons: [])
        #expect(own.delay(before: serverError, in: ErrorContext()) == .milliseconds(500))
        #expect(own.delay(before: unavailable, in: ErrorContext()) == nil)
        #expect(own.delay(before: lost, in: ErrorContext()) == nil)
        #expect(own != standard)
    }

    @Test func backoffIsExponentialWithFullJitter() {
        let top = RetryPolicy(baseDelay: .milliseconds(500), jitter: { 1 })
        #expect((1...4).map { top.backoff(afterAttempt: $0) } == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
        let bottom = RetryPolicy(jitter: { 0 })
        #expect(bottom.backoff(afterAttempt: 3) == .zero)
        #expect(RetryPolicy(maximumDelay: .seconds(3), jitter: { 1 }).backoff(afterAttempt: 10) == .seconds(3))
    }

    /// Reddit answering with nothing left in its window until `reset` seconds from now.
    static func exhausted(reset: Int) -> TestServer.Handler {
        { request in
            guard case .respond(let status, let headers, let body) = SampleAPI.route(request) else { return .close }
            return .respond(status: status, headers: headers + [("X-Ratelimit-Remaining", "0.0"), ("X-Ratelimit-Used", "100"),
                                                                ("X-Ratelimit-Reset", String(reset))], body: body)
        }
    }

    @Test func anExhaustedRateLimitIsWaitedOutWithinMaxWait() async throws {
        try await withShutdown(of: ClientHarness(Self.exhausted(reset: 20))) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try Reddit.posts(subreddit: "python", limit: 25))
                _ = try await client.load(try Reddit.posts(subreddit: "popular", limit: 25))
                #expect(harness.sleeps.values == [.seconds(20)])
                #expect(harness.server.requests.count == 2)
                #expect(await client.notices.drain().map(\.notice.kind) == [.rateLimit])
            }
        }
    }

    @Test func anExhaustedRateLimitBeyondMaxWaitIsNotHammeredEvenByTheNextRun() async throws {
        try await withShutdown(of: ClientHarness(Self.exhausted(reset: 300))) { harness in
            let python = try Reddit.posts(subreddit: "python", limit: 25)
            try await withShutdown(of: harness.client()) { first in
                _ = try await first.load(python)
            }

            // A new client on the same cache file: another `reader` run a moment later.
            try await withShutdown(of: harness.client()) { second in
                let popular = try Reddit.posts(subreddit: "popular", limit: 25)
                do throws(LoadFailure) {
                    _ = try await second.load(popular)
                    Issue.record("the request must not be sent")
                } catch {
                    #expect(error.error.code.description == "R1003" && error.error.exitCode == .temporaryFailure)
                    #expect(error.error.message.contains("resets at "), "\(error.error.message)")
                }
                #expect(harness.server.requests.count == 1)

                harness.clock.advance(120)
                let stale = try await second.load(python, options: LoadOptions(cacheMode: .refresh))
                #expect(stale.metadata.source == .cache && stale.metadata.errorCode?.description == "R1003", "a cached copy is served instead")
                #expect(harness.server.requests.count == 1 && harness.sleeps.values.isEmpty)

                harness.clock.advance(181)
                #expect(try await second.load(python, options: LoadOptions(cacheMode: .refresh)).metadata.source == .network,
                        "after the reset, requests go again")
            }
        }
    }

    /// A reply held until the test gives it.
    final class Held: @unchecked Sendable {
        private let lock = NSLock()
        private var answer: (@Sendable (TestServer.Reply) -> Void)?
        func hold(_ answer: @escaping @Sendable (TestServer.Reply) -> Void) { lock.withLock { self.answer = answer } }
        var isHeld: Bool { lock.withLock { answer != nil } }
        func give(_ reply: TestServer.Reply) { lock.withLock { answer }?(reply) }
    }

    /// A 429 saying when to come back holds until then, even when an answer to a request sent
    /// before it arrives afterwards saying plenty remains (Reddit's headers are on every answer).
    @Test func a429sLockOutIsNotLiftedByALateAnswerSentBeforeIt() async throws {
        let held = Held()
        let handler: TestServer.Handler = { request in
            switch request.path {
            case "/r/late/hot.json": return .deferred { answer in held.hold(answer) }
            case "/r/python/hot.json":
                return .respond(status: 429, headers: [("Content-Type", "text/html"), ("Retry-After", "300")], body: Array("<html></html>".utf8))
            default: return .json(SampleAPI.listing(subreddit: "Python", count: 25))
            }
        }
        try await withShutdown(of: ClientHarness(handler)) { harness in
            try await withShutdown(of: harness.client()) { client in
                let (python, popular) = (try Reddit.posts(subreddit: "python", limit: 25), try Reddit.posts(subreddit: "popular", limit: 25))
                let late = Task { try? await client.load(try Reddit.posts(subreddit: "late", limit: 25)) }
                while !held.isHeld { await Task.yield() }
                do throws(LoadFailure) {
                    _ = try await client.load(python)
                    Issue.record("a 429 must fail")
                } catch {
                    #expect(error.error.code.description == "H429")
                }
                held.give(.json(SampleAPI.listing(subreddit: "Python", count: 25), headers: [
                    ("X-Ratelimit-Remaining", "900"), ("X-Ratelimit-Used", "1"), ("X-Ratelimit-Reset", "500")]))
                _ = await late.value
                let asked = harness.server.requests.count
                do throws(LoadFailure) {
                    _ = try await client.load(popular)
                    Issue.record("nothing may go before the 429's time")
                } catch {
                    #expect(error.error.code.description == "R1003")
                }
                #expect(harness.server.requests.count == asked)
            }
        }
    }

    /// Reddit answering with `used` of 100 requests spent in its window, which resets in 300 s.
    static func spent(_ used: Int) -> TestServer.Handler {
        { request in
            guard case .respond(let status, let headers, let body) = SampleAPI.route(request) else { return .close }
            return .respond(status: status, headers: headers + [("X-Ratelimit-Remaining", String(100 - used)), ("X-Ratelimit-Used", String(used)),
                                                                ("X-Ratelimit-Reset", "300")], body: body)
        }
    }

    /// Work in the background (a prefetch) keeps the last tenth of an announced limit for what
    /// the user asks for: it is not sent, and says why; a load of the user's own still is.
    @Test func aLoadThatKeepsAReserveNeverSpendsIt() async throws {
        try await withShutdown(of: ClientHarness(Self.spent(91))) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try Reddit.posts(subreddit: "python", limit: 25))
                let background = LoadOptions(rateLimitReserve: 0.1)
                let popular = try Reddit.posts(subreddit: "popular", limit: 25)
                do throws(LoadFailure) {
                    _ = try await client.load(popular, options: background)
                    Issue.record("9 of 100 remain: a request keeping 10 in reserve must not be sent")
                } catch {
                    #expect(error.error.code.description == "R1003")
                    guard case .rateLimited(let failure) = error.error else { Issue.record("\(error.error)"); return }
                    #expect(failure.keptInReserve)
                    #expect(error.error.message.contains("down to the share kept for what you ask for"), "\(error.error.message)")
                }
                #expect(harness.server.requests.count == 1)
                _ = try await client.load(try Reddit.posts(subreddit: "popular", limit: 25))
                #expect(harness.server.requests.count == 2, "the user's own load spends the rest")
            }
        }
        try await withShutdown(of: ClientHarness(Self.spent(89))) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try Reddit.posts(subreddit: "python", limit: 25))
                _ = try await client.load(try Reddit.posts(subreddit: "popular", limit: 25), options: LoadOptions(rateLimitReserve: 0.1))
                #expect(harness.server.requests.count == 2, "11 remain: one more leaves the 10 kept")
            }
        }
    }

    /// Replies held until the test gives them, however many.
    final class HeldMany: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [@Sendable (TestServer.Reply) -> Void] = []
        func hold(_ answer: @escaping @Sendable (TestServer.Reply) -> Void) { lock.withLock { answers.append(answer) } }
        var count: Int { lock.withLock { answers.count } }
        func giveAll(_ reply: TestServer.Reply) { for answer in lock.withLock({ answers }) { answer(reply) } }
    }

    /// The requests in flight are spent already: from 16 of 100 left, keeping 10 in reserve, at
    /// most 6 go out before any is answered (not 15, as the last announcement alone would allow).
    @Test func aReserveCountsTheRequestsInFlight() async throws {
        let held = HeldMany()
        let spent = Self.spent(84)
        try await withShutdown(of: ClientHarness { request in
            request.path == "/r/python/hot.json" ? spent(request) : .deferred { answer in held.hold(answer) }
        }) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try Reddit.posts(subreddit: "python", limit: 25))
                let refused = NIOLockedValueBox<[String]>([])
                let background = LoadOptions(rateLimitReserve: 0.1)
                let endpoints = try (1...12).map { try Reddit.posts(subreddit: "sub\($0)", limit: 25) }
                let loads = Task {
                    await withTaskGroup(of: Void.self) { group in
                        for endpoint in endpoints {
                            group.addTask {
                                do throws(LoadFailure) { _ = try await client.load(endpoint, options: background) } catch {
                                    refused.withLockedValue { $0.append(error.error.code.description) }
                                }
                            }
                        }
                    }
                }
                // Every load either went out (held by the server) or was refused.
                let deadline = ContinuousClock.now.advanced(by: .seconds(30))
                while held.count + refused.withLockedValue({ $0.count }) < 12, ContinuousClock.now < deadline { await Task.yield() }
                #expect(held.count == 6)
                #expect(refused.withLockedValue { $0 } == Array(repeating: "R1003", count: 6))
                held.giveAll(.json(SampleAPI.listing(subreddit: "Python", count: 25)))
                await loads.value
                #expect(harness.server.requests.count == 7)
            }
        }
    }

    @Test func aLimitIsReadOnlyFromCountsThatAreNumbers() {
        #expect(RateLimitAnnouncement(remaining: 9, secondsUntilReset: 300, used: 91)?.limit == 100)
        #expect(RateLimitAnnouncement(remaining: 9, secondsUntilReset: 300, used: .infinity)?.limit == nil)
        #expect(RateLimitAnnouncement(remaining: 9, secondsUntilReset: 300, used: -5)?.limit == nil)
        #expect(RateLimitAnnouncement(remaining: .greatestFiniteMagnitude, secondsUntilReset: 1, used: .greatestFiniteMagnitude)?.limit == nil)
        #expect(RateLimitAnnouncement(remaining: 9, secondsUntilReset: 300)?.limit == nil)
    }

    @Test(.replaysRecordings) func a429WithRateLimitHeadersWaitsForTheReset() async throws {
        let calls = NIOLockedValueBox(0)
        try await withShutdown(of: ClientHarness { request in
            calls.withLockedValue { $0 += 1; return $0 } == 1
                ? .respond(status: 429, headers: [("Content-Type", "text/html"), ("X-Ratelimit-Remaining", "0"), ("X-Ratelimit-Reset", "9")],
                           body: Fixtures.bytes("reddit/error_429_too_many_requests.html"))
                : SampleAPI.route(request)
        }) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try Reddit.posts(subreddit: "python", limit: 25))
                #expect(harness.sleeps.values.contains(.seconds(9)))
            }
        }
    }

    @Test func rateLimitHeadersParse() {
        let now = Date(timeIntervalSince1970: 0)
        let reddit = RedditService().rateLimitWindow
        let state = RateLimitState(origin: "www.reddit.com", service: "reddit", announcement: .xRatelimit(["x-ratelimit-remaining": "0.0", "x-ratelimit-reset": "42"]), now: now, window: reddit)
        #expect(state?.waitBeforeNextRequest(at: now, window: reddit) == 42)
        #expect(RateLimitState(origin: "www.reddit.com", service: "reddit", announcement: .xRatelimit(["x-ratelimit-remaining": "996.0", "x-ratelimit-reset": "11"]), now: now, window: reddit)?
            .waitBeforeNextRequest(at: now, window: reddit) == nil)
        #expect(RateLimitState(origin: "www.reddit.com", service: "reddit", announcement: .xRatelimit(["x-ratelimit-remaining": "lots"]), now: now, window: reddit) == nil)
        // A reset announced days away is read as the service's window: Reddit's ten minutes, or
        // an hour for a service that names none.
        let farAway = RateLimitAnnouncement.xRatelimit(["x-ratelimit-remaining": "0", "x-ratelimit-reset": "999999"])
        #expect(RateLimitState(origin: "h", service: "reddit", announcement: farAway, now: now, window: reddit)?
            .waitBeforeNextRequest(at: now, window: reddit) == 600)
        let plain = SWAPIService().rateLimitWindow
        #expect(RateLimitState(origin: "h", service: "swapi", announcement: farAway, now: now, window: plain)?
            .waitBeforeNextRequest(at: now, window: plain) == 3600)
        #expect(ResponseValidator.retryAfterSeconds("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: 784_111_717)) == 60)
        #expect(ResponseValidator.retryAfterSeconds("Sun Nov  6 08:49:37 1994", now: Date(timeIntervalSince1970: 784_111_717)) == 60)
    }
}
