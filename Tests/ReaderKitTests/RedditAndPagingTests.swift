import Foundation
import Testing
import TestSupport
@testable import ReaderKit

/// Reddit's endpoints, its error answers, paging, linked names, sync and waiting for connectivity,
/// against a real server on 127.0.0.1.
@Suite struct RedditAndPagingTests {
    @Test func postsAreFoundByIdFullnameOrURL() throws {
        for text in ["2xmo63", "t3_2xmo63", "https://www.reddit.com/r/Python/comments/2xmo63/a_title/?utm=x",
                     "https://old.reddit.com/comments/2xmo63", "https://redd.it/2xmo63", "/r/Python/comments/2xmo63/"] {
            #expect(try Reddit.postID(text) == "2xmo63", "\(text)")
        }
        for text in ["", "t1_abc", "https://example.com/2xmo63", "2XMO63", "abc def", "../../etc", String(repeating: "a", count: 14)] {
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
            RedditAnswer(StatusFailure(status: status, url: url, apiError: APIErrorBody.recognise(Array(body.utf8)), api: .reddit))
        }
        #expect(answer(403, #"{"reason": "private", "message": "Forbidden", "error": 403}"#) == .privateSubreddit(subject: "r/secret"))
        #expect(answer(404, #"{"reason": "banned", "message": "Not Found", "error": 404}"#) == .banned(subject: "r/secret"))
        #expect(answer(404, #"{"message": "Not Found", "error": 404}"#, url: "https://www.reddit.com/user/nobody/submitted.json")
                == .noSuchThing(subject: "u/nobody"))
        #expect(answer(404, "", url: "https://www.reddit.com/comments/abc.json?sort=top") == .noSuchThing(subject: "post abc"))
        #expect(answer(429, "") == .tooManyRequests)
        #expect(answer(500, #"{"message": "Internal Server Error", "error": 500}"#) == nil)
        // SWAPI's statuses keep their plain meaning.
        #expect(RedditAnswer(StatusFailure(status: 404, url: "https://swapi.dev/api/people/0/")) == nil)
    }

    @Test func aSubjectFromTheNetworkIsSanitised() {
        #expect(RedditAnswer.subject(ofURL: "https://x/r/ab\u{1B}[31mc/hot.json") == "r/abc")
    }

    @Test func waitingForConnectivityRetriesUntilTheDeadlineWhateverTheRetryCount() {
        let policy = RetryPolicy(maximumRetries: 0, baseDelay: .milliseconds(500), jitter: { 1 })
        let refused = ReaderError.transport(TransportFailure(.cannotConnectToHost, host: "h", detail: ""))
        var context = ErrorContext(attempt: 9, remaining: .seconds(60), waitsForConnectivity: true)
        #expect(policy.delay(before: refused, in: context) == RetryPolicy.connectivityPollCeiling)
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
        #expect(report.summary.hasPrefix("1 fetched, 4 failed (T1004 ×3: cannot connect to swapi.dev"))
    }

    @Test func aLinkNamesOnlyACollectionAndAnId() {
        #expect(SWAPI.endpoint(forLink: "https://swapi.dev/api/people/1/")?.path == "people/1/")
        #expect(SWAPI.endpoint(forLink: "https://evil.example/api/planets/3/?x=1")?.path == "planets/3/")
        #expect(SWAPI.endpoint(forLink: "https://swapi.dev/api/people/../../etc/") == nil)
        #expect(SWAPI.endpoint(forLink: "https://swapi.dev/api/secrets/1/") == nil)
    }

    @Test func aLyingCountCannotAskForMillionsOfPages() {
        let page = SWAPIPage<Film>(count: 10_000_000, next: "x", previous: nil, results: [])
        #expect(SWAPI.pageCount(of: page) == 1)
    }

    @Test func concurrentLoadsKeepTheirOrderAndStayWithinTheBound() async throws {
        let data = SWAPIDataSet()
        let inFlight = InFlight()
        let server = try await TestServer { request in
            inFlight.enter()
            defer { inFlight.leave() }
            usleep(20_000)
            return data.reply(to: request) ?? .close
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("paging-\(UUID().uuidString)")
        let client = ReaderClient(configuration: .init(
            services: ServiceConfiguration(swapiBaseURL: URL(string: server.baseURL + "/api")!),
            cachePath: folder.appendingPathComponent("cache.sqlite").path, maximumConcurrentRequests: 3))
        let endpoints = try (1...12).map { try SWAPI.resource(Planet.self, id: $0) }
        let results = await client.loadConcurrently(endpoints)
        #expect(try results.map { try $0.get().value.url } == (1...12).map { "https://swapi.dev/api/planets/\($0)/" })
        // The bound is a promise; how much overlap a loaded machine shows is not (bench/ measures it).
        #expect(inFlight.maximum <= 3)
        await client.shutdown()
        await server.shutdown()
    }
}

/// Counts requests the server is handling at once.
final class InFlight: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private(set) var maximum = 0

    func enter() { lock.lock(); current += 1; maximum = max(maximum, current); lock.unlock() }
    func leave() { lock.lock(); current -= 1; lock.unlock() }
}
