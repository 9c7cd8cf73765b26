import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport
@testable import ReaderKit

/// Reddit's endpoints, its error answers, paging, linked names, sync and waiting for connectivity,
/// against a real server on 127.0.0.1.
@Suite struct RedditAndPagingTests {
    @Test func postsAreFoundByIdFullnameOrURL() throws {
        for text in ["2xmo63", "t3_2xmo63", "https://www.reddit.com/r/Python/comments/2xmo63/a_title/?utm=x",
                     "https://old.reddit.com/comments/2xmo63", "https://redd.it/2xmo63", "/r/Python/comments/2xmo63/",
                     "new.reddit.com/r/Python/comments/2xmo63", "https://np.reddit.com/comments/2xmo63/x", "HTTPS://WWW.REDDIT.COM/comments/2xmo63",
                     "r/Python/comments/2xmo63", "comments/2xmo63"] {
            #expect(try Reddit.postID(text) == "2xmo63", "\(text)")
        }
        for text in ["", "t1_abc", "https://example.com/2xmo63", "https://example.com/r/x/comments/2xmo63", "example.com/comments/2xmo63",
                     "https://reddit.com.evil.example/comments/2xmo63", "https://notreddit.com/comments/2xmo63", "2XMO63", "abc def", "../../etc", String(repeating: "a", count: 14)] {
            #expect(throws: ReaderError.self, "\(text)") { try Reddit.postID(text) }
        }
    }

    @Test func listingArgumentsAreCheckedBeforeAnyRequest() throws {
        #expect(throws: ReaderError.self) { try Reddit.posts(subreddit: "swift", sort: .hot, time: .week) }
        #expect(throws: ReaderError.self) { try Reddit.posts(subreddit: "swift", after: "t3_abc&x=1") }
        #expect(throws: ReaderError.self) { try Reddit.userPosts(user: "ab") }
        #expect(throws: ReaderError.self) { try Reddit.userPosts(user: "spez", sort: .rising) }
        #expect(throws: ReaderError.self) { try Reddit.comments(post: "abc", depth: 11) }
        let top = try Reddit.posts(subreddit: "r/swift", sort: .top, time: .all, limit: 100, after: "t3_abc")
        #expect(top.path == "r/swift/top.json")
        #expect(top.query.map { "\($0.name)=\($0.value ?? "")" } == ["limit=100", "t=all", "after=t3_abc", "raw_json=1"])
    }

    @Test func redditsAnswersAreNamedByWhatTheyMean() {
        func answer(_ status: Int, _ body: String, url: String = "https://www.reddit.com/r/secret/hot.json") -> RedditAnswer? {
            RedditAnswer(StatusFailure(status: status, url: url, apiError: APIErrorBody.recognise(Array(body.utf8)), service: "reddit"))
        }
        #expect(answer(403, #"{"reason": "private", "message": "Forbidden", "error": 403}"#) == .privateSubreddit(subject: "r/secret"))
        #expect(answer(404, #"{"reason": "banned", "message": "Not Found", "error": 404}"#) == .banned(subject: "r/secret"))
        #expect(answer(404, #"{"message": "Not Found", "error": 404}"#, url: "https://www.reddit.com/user/nobody/submitted.json")
                == .noSuchThing(subject: "u/nobody"))
        #expect(answer(404, #"{"message": "Not Found", "error": 404}"#, url: "https://www.reddit.com/comments/abc.json?sort=top")
                == .noSuchThing(subject: "post abc"))
        // A 404 without Reddit's error body is a web server's where Reddit is not: nothing of Reddit's to say.
        #expect(answer(404, "<html>404</html>", url: "https://www.reddit.com/comments/abc.json?sort=top") == nil)
        #expect(answer(410, "") == nil)
        #expect(answer(429, "") == .tooManyRequests(onFeed: false))
        #expect(answer(429, "", url: "https://www.reddit.com/r/x/.rss?limit=25") == .tooManyRequests(onFeed: true))
        #expect(answer(500, #"{"message": "Internal Server Error", "error": 500}"#) == nil)
        // SWAPI's statuses keep their plain meaning: its service explains none of them.
        #expect(ReaderError.status(StatusFailure(status: 404, url: "https://swapi.dev/api/people/0/")).answered(by: SWAPIService())
                == .status(StatusFailure(status: 404, url: "https://swapi.dev/api/people/0/", service: "swapi")))
    }

    @Test func aSubjectFromTheNetworkIsSanitised() {
        #expect(RedditAnswer.subject(ofURL: "https://x/r/ab\u{1B}[31mc/hot.json") == "r/abc")
    }

    @Test func waitingForConnectivityRetriesUntilTheDeadlineWhateverTheRetryCount() {
        let policy = RetryPolicy(maximumRetries: 0, baseDelay: .milliseconds(500), jitter: { 1 })
        let refused = ReaderError.transport(TransportFailure(.cannotConnectToHost, host: "h", detail: ""))
        var context = ErrorContext(attempt: 9, remaining: .seconds(60), waitsForConnectivity: true)
        #expect(policy.delay(before: refused, in: context) == .seconds(5), "the poll ceiling the README gives")
        context.remaining = .seconds(2)
        #expect(policy.delay(before: refused, in: context) == nil)
        context.waitsForConnectivity = false
        context.remaining = .seconds(60)
        #expect(policy.delay(before: refused, in: context) == nil)
        // A server that answers is reachable: --wait does not retry its 404.
        context.waitsForConnectivity = true
        #expect(policy.delay(before: .status(StatusFailure(status: 404, url: "")), in: context) == nil)
    }

    @Test func aSyncReportSumsFailuresByCode() {
        var report = SyncReport()
        let refused = LoadFailure(error: .transport(TransportFailure(.cannotConnectToHost, host: "swapi.dev", detail: "")), decision: .ignore(.summarised))
        let missing = LoadFailure(error: .status(StatusFailure(status: 404, url: "")), decision: .alert)
        for failure in [refused, missing, refused, refused] {
            report.count(Result<Loaded<Int>, LoadFailure>.failure(failure))
        }
        report.count(Result<Loaded<Int>, LoadFailure>.success(Loaded(value: 1, body: Data(), metadata: LoadMetadata(
            source: .network, stale: false, fetchedAt: Date(), ageSeconds: 0, errorCode: nil, url: ""))))
        #expect(report.fetched == 1 && report.failed == 4 && !report.isComplete)
        #expect(report.failures.map(\.error.code.description) == ["T1004", "H404"])
        #expect(report.summary == "1 fetched, 4 failed (T1004 ×3, H404 ×1)")
        #expect(report.failureLines.first?.hasPrefix("T1004 ×3: cannot connect to swapi.dev") == true)
    }

    @Test func aLinkNamesOnlyACollectionAndAnId() {
        #expect(SWAPI.endpoint(forLink: "https://swapi.dev/api/people/1/")?.path == "people/1/")
        #expect(SWAPI.endpoint(forLink: "https://evil.example/api/planets/3/?x=1")?.path == "planets/3/")
        #expect(SWAPI.endpoint(forLink: "https://swapi.dev/api/people/../../etc/") == nil)
        #expect(SWAPI.endpoint(forLink: "https://swapi.dev/api/secrets/1/") == nil)
    }

    @Test func aLyingCountCannotAskForMillionsOfPages() throws {
        // Six films a page, as SWAPI's first page of films has; only `count` and `next` change.
        let films = try ReaderJSON.makeDecoder().decode(SWAPIPage<Film>.self, from: Data(SWAPIResources.page("films")))
        #expect(films.results.count == 6)
        func pages(count: Int, next: String? = "https://swapi.dev/api/films/?page=2", results: [Film] = films.results) -> Int {
            SWAPI.pageCount(of: SWAPIPage(count: count, next: next, previous: nil, results: results))
        }
        #expect(pages(count: 10_000_000) == 1_000, "the cap")
        #expect(pages(count: 6_000) == 1_000)
        #expect(pages(count: 5_994) == 999)
        #expect(pages(count: 87) == 15)
        #expect(pages(count: 6) == 2, "a next link means at least one more page")
        #expect(pages(count: 10_000_000, next: nil) == 1, "no next link, no more pages")
        #expect(pages(count: 10_000_000, results: []) == 1, "an empty page says nothing about page size")
    }

    /// Holds each request until `width` are held at once, then answers them all; checks on each
    /// arrival that the client has not started more than `width` beyond the ones it has finished.
    /// A client that never has `width` requests in flight gets no answers (its loads then fail
    /// at their deadline); one that sends more than `width` is caught by the arrival check.
    final class Overlap: Sendable {
        struct State {
            var held: [@Sendable () -> Void] = []
            var arrived = 0
            var finished = 0
            var fullBatches = 0
            var tooMany: [String] = []
        }

        let width: Int
        let total: Int
        let state = NIOLockedValueBox(State())

        init(width: Int, total: Int) {
            self.width = width
            self.total = total
        }

        /// What the client reports as each load finishes (its progress handler).
        func finished(_ progress: LoadProgress) {
            state.withLockedValue { $0.finished = max($0.finished, progress.completed) }
        }

        func arrive(_ answer: @escaping @Sendable () -> Void) {
            let release = state.withLockedValue { state -> [@Sendable () -> Void] in
                state.arrived += 1
                // The client starts a load only when one has finished, so the k-th request
                // arrives after at least k − width finished.
                if state.arrived > width + state.finished {
                    state.tooMany.append("request \(state.arrived) arrived with \(state.finished) finished")
                }
                state.held.append(answer)
                guard state.held.count == width || state.arrived == total else { return [] }
                if state.held.count == width { state.fullBatches += 1 }
                defer { state.held = [] }
                return state.held
            }
            for answer in release { answer() }
        }
    }

    @Test func concurrentLoadsKeepTheirOrderAndFillTheirBoundExactly() async throws {
        let data = SWAPIDataSet()
        let overlap = Overlap(width: 3, total: 12)
        try await withTestServer { request in
            let reply = data.reply(to: request) ?? .close
            return .deferred { answer in overlap.arrive { answer(reply) } }
        } body: { server in
            try await withTemporaryFolder("paging") { folder in
                try await withShutdown(of: ReaderClient(configuration: .init(
                    services: ServiceConfiguration([SWAPIService(baseURL: URL(string: server.baseURL + "/api")!)]),
                    cachePath: folder.appendingPathComponent("cache.sqlite").path, timeout: .seconds(10),
                    retryPolicy: RetryPolicy(maximumRetries: 0), maximumConcurrentRequests: 3))) { client in
                    let endpoints = try (1...12).map { try SWAPI.resource(Planet.self, id: $0) }
                    let results = await client.loadConcurrently(endpoints, progress: overlap.finished)
                    #expect(try results.map { try $0.get().value.url } == (1...12).map { "https://swapi.dev/api/planets/\($0)/" })
                    let seen = overlap.state.withLockedValue { $0 }
                    #expect(seen.fullBatches == 4, "three requests were in flight at once, four times over")
                    #expect(seen.tooMany.isEmpty, "\(seen.tooMany)")
                    #expect(server.requests.count == 12)
                }
            }
        }
    }
}
