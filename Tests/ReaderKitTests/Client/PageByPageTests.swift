import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport
@testable import ReaderKit

/// A collection read page by page (``ReaderClient/forEachPage(_:search:options:progress:_:)``):
/// the pages handed over in order, one at a time, through a sliding window, so that memory holds
/// a few pages whatever the collection's size; and a sync that counts every outcome, against a
/// real server on 127.0.0.1 holding a people collection of many pages.
@Suite struct PageByPageTests {
    /// The test's temporary folder, removed with this test's instance of the suite.
    let scratch = TemporaryFolder("page-by-page")

    /// The page a page of ``PaddedPeople`` is, from the id of its first person.
    static func number(of page: Loaded<SWAPIPage<Person>>) -> Int {
        ((page.value.results.first?.id ?? 0) - 1) / PaddedPeople.pageSize + 1
    }

    /// The page number a request asks for; nil for anything but a page of people after the first.
    static func laterPage(_ request: TestServer.Request) -> Int? {
        guard request.path == "/api/people/", let page = Int(request.query["page"] ?? "1"), page > 1 else { return nil }
        return page
    }

    /// The rule on its own: loads finish in an order drawn from the seed, and after each, the
    /// results in order are handed over and the window starts what fits.
    @Test(arguments: [UInt64(1), 2, 3, 0xC0FFEE, 0x5EED_0F_5EED])
    func theWindowStartsALoadOnlyOnceTheOneAWidthBelowIsHandedOver(seed: UInt64) {
        // Given a window of 3 over 20 loads
        var random = SplitMix64(seed: seed)
        var window = OrderedWindow<Int>(count: 20, width: 3)
        var inFlight: [Int] = []
        var handed: [Int] = []
        func startWhatFits() {
            while let index = window.nextToStart() { inFlight.append(index) }
        }
        startWhatFits()
        #expect(inFlight == [0, 1, 2])

        // When they finish one at a time, in a random order
        while !inFlight.isEmpty {
            let index = inFlight.remove(at: Int.random(in: 0..<inFlight.count, using: &random))
            window.finish(index, with: index)
            while let result = window.nextToHandOver() {
                handed.append(result)
                startWhatFits()
            }
            // Then loads in flight and results waiting are 3 together, or what is left
            #expect(inFlight.count + window.waiting == min(3, 20 - handed.count), "seed \(seed), after \(index) finished")
        }
        #expect(handed == Array(0..<20), "seed \(seed)")
    }

    @Test func finishedLoadsWaitForTheFirstAndStartNothing() {
        // Given a window of 3 with loads 0, 1 and 2 started
        var window = OrderedWindow<String>(count: 9, width: 3)
        #expect([window.nextToStart(), window.nextToStart(), window.nextToStart(), window.nextToStart()] == [0, 1, 2, nil])

        // When 2 and 1 finish before 0
        window.finish(2, with: "two")
        window.finish(1, with: "one")

        // Then nothing is handed over and nothing starts, until 0 has finished and is handed over
        #expect(window.nextToHandOver() == nil && window.nextToStart() == nil && window.waiting == 2)
        window.finish(0, with: "zero")
        #expect(window.nextToStart() == nil, "0 finished but is not handed over yet")
        #expect(window.nextToHandOver() == "zero")
        #expect(window.nextToStart() == 3 && window.nextToStart() == nil)
        #expect(window.nextToHandOver() == "one" && window.nextToHandOver() == "two" && window.nextToHandOver() == nil)
        #expect(window.nextToStart() == 4 && window.nextToStart() == 5 && window.nextToStart() == nil)
    }

    enum WindowEvent: Sendable {
        /// The server received the request for a page; `answer` sends its reply.
        case arrived(page: Int, answer: @Sendable () -> Void)
        /// The client handed a page after the first over.
        case handedOver(page: Int)
        /// The window never filled: a bound only a client that starts too few loads reaches.
        case gaveUp
    }

    /// The server holds every page after the first until as many are started (and not yet handed
    /// over) as the window allows, then answers them highest first: the lowest page, the one the
    /// client must hand over next, comes last, so the others finish and wait for it. A client that
    /// started a page before the one `width` below it was handed over would have more started than
    /// the window at some point, and the server sees it.
    @Test func pagesAreHandedOverInOrderThroughASlidingWindow() async throws {
        // Given 13 pages, the pages after the first held by the server as they arrive
        let width = 3, pages = 13
        let people = PaddedPeople(pages: pages, filmsOnAPage: 2, filmsAlone: 0)
        let (events, event) = AsyncStream<WindowEvent>.makeStream()
        try await withTestServer { request in
            let reply = people.reply(to: request) ?? .close
            guard let page = Self.laterPage(request) else { return reply }
            return .deferred { answer in event.yield(.arrived(page: page, answer: { answer(reply) })) }
        } body: { server in
            try await withShutdown(of: makeClient(server, cachePath: scratch.cachePath(), retryPolicy: RetryPolicy(maximumRetries: 0), maximumConcurrentRequests: width)) { client in
                let driver = Task {
                    var pending: [Int: @Sendable () -> Void] = [:]
                    var answered: [Int] = []
                    var handedOver = 0
                    var mostStarted = 0, mostInFlight = 0, gaveUp = false
                    for await next in events {
                        switch next {
                        case .arrived(let page, let answer): pending[page] = answer
                        case .handedOver: handedOver += 1
                        case .gaveUp: gaveUp = true
                        }
                        let started = pending.count + answered.count - handedOver
                        mostStarted = max(mostStarted, started)
                        mostInFlight = max(mostInFlight, pending.count)
                        if started >= min(width, pages - 1 - handedOver) || gaveUp {
                            for page in pending.keys.sorted(by: >) {
                                pending.removeValue(forKey: page)?()
                                answered.append(page)
                            }
                        }
                        if handedOver == pages - 1 { break }
                    }
                    return (answered: answered, mostStarted: mostStarted, mostInFlight: mostInFlight, gaveUp: gaveUp)
                }
                // A guard against a client that never starts `width` pages, not a measure of time: the
                // suite's other tests may hold the concurrency pool's threads for a minute and more while
                // they wait on processes, and the requests here then start that much later.
                let watchdog = Task {
                    try await Task.sleep(for: .seconds(240))
                    event.yield(.gaveUp)
                }
                let progress = NIOLockedValueBox<[LoadProgress]>([])

                // When the collection is read page by page
                var handed: [Int] = []
                var names: [String] = []
                try await client.forEachPage(Person.self, progress: { report in progress.withLockedValue { $0.append(report) } }) { page in
                    let number = Self.number(of: page)
                    handed.append(number)
                    names += page.value.results.map(\.url)
                    if number > 1 { event.yield(.handedOver(page: number)) }
                }
                let seen = await driver.value
                watchdog.cancel()

                // Then every page came in order, with at most `width` started and not handed over (so
                // at most `width` requests in flight), and the pages finished out of order all the same
                #expect(handed == Array(1...pages))
                #expect(names == (1...pages * 10).map { "https://swapi.dev/api/people/\($0)/" })
                #expect(!seen.gaveUp, "the client never had \(width) pages started at once")
                #expect(seen.mostStarted == width, "pages started and not yet handed over: at most \(seen.mostStarted)")
                #expect(seen.mostInFlight == width)
                #expect(Array(seen.answered.prefix(3)) == [4, 3, 2], "the first window, answered highest first")
                #expect(progress.withLockedValue { $0 } == (1...pages).map { LoadProgress(completed: $0, total: pages) },
                        "the first page, then each as it finished")
                #expect(server.requests.count == pages)
            }
        }
    }

    @Test func aPageThatFailsEndsWhatIsHandedOverAndIsThrownOnceTheOthersAreLoaded() async throws {
        // Given 9 pages, the fourth a server error
        let people = PaddedPeople(pages: 9, filmsOnAPage: 2, filmsAlone: 0)
        try await withTestServer { request in
            if Self.laterPage(request) == 4 { return .respond(status: 500, headers: [("Content-Type", "text/html")], body: Array("<h1>500</h1>".utf8)) }
            return people.reply(to: request) ?? .close
        } body: { server in
            await withShutdown(of: makeClient(server, cachePath: scratch.cachePath(), retryPolicy: RetryPolicy(maximumRetries: 0), maximumConcurrentRequests: 3)) { client in

                // When the collection is read page by page, and all at once
                var handed: [Int] = []
                var thrown: LoadFailure?
                do throws(LoadFailure) {
                    try await client.forEachPage(Person.self) { handed.append(Self.number(of: $0)) }
                } catch {
                    thrown = error
                }
                let requested = Set(server.requests.compactMap { Int($0.query["page"] ?? "1") })
                var thrownAtOnce: LoadFailure?
                do throws(LoadFailure) { _ = try await client.loadAllPages(Person.self, options: LoadOptions(cacheMode: .refresh)) } catch { thrownAtOnce = error }

                // Then the pages before it were handed over, none after it; its failure is thrown, after
                // every page was loaded into the cache as before; all at once, the same failure
                #expect(handed == [1, 2, 3])
                #expect(thrown?.error.code.description == "H500")
                #expect(requested == Set(1...9), "every announced page is loaded")
                #expect(thrownAtOnce?.error.code.description == "H500")
            }
        }
    }

    @Test func aFailureOfTheBodyStopsEverythingAtOnce() async throws {
        // Given 9 pages, and a window of 2
        let people = PaddedPeople(pages: 9, filmsOnAPage: 2, filmsAlone: 0)
        try await withTestServer { people.reply(to: $0) ?? .close } body: { server in
            await withShutdown(of: makeClient(server, cachePath: scratch.cachePath(), retryPolicy: RetryPolicy(maximumRetries: 0), maximumConcurrentRequests: 2)) { client in

                // When the body fails on the second page
                var handed: [Int] = []
                var thrown: LoadFailure?
                do throws(LoadFailure) {
                    try await client.forEachPage(Person.self) { (page) throws(LoadFailure) in
                        handed.append(Self.number(of: page))
                        if handed.count == 2 { throw LoadFailure(error: .bug("the body gives up"), decision: .alert) }
                    }
                } catch {
                    thrown = error
                }

                // Then its failure is thrown, and no page past the window of the second was asked for
                #expect(handed == [1, 2])
                #expect(thrown?.error.code.description == "B1001")
                let requested = Set(server.requests.compactMap { Int($0.query["page"] ?? "1") })
                #expect(requested.isSubset(of: [1, 2, 3]) && requested.isSuperset(of: [1, 2]), "\(requested.sorted())")
            }
        }
    }

    @Test func aSyncCountsEveryPageAndResourceOfALargeCollection() async throws {
        // Given SWAPI with 12 pages of people, each seventh person missing
        let data = SWAPIDataSet()
        let people = PaddedPeople(pages: 12, filmsOnAPage: 50, filmsAlone: 5)
        try await withTestServer { request in
            let parts = request.path.split(separator: "/")
            if parts.count == 3, parts[1] == "people", let id = Int(parts[2]), id % 7 == 0 {
                return .json(Array(#"{"detail":"Not found"}"#.utf8), status: 404)
            }
            return people.reply(to: request) ?? data.reply(to: request) ?? .close
        } body: { server in
            await withShutdown(of: makeClient(server, cachePath: scratch.cachePath(), retryPolicy: RetryPolicy(maximumRetries: 0), maximumConcurrentRequests: 6)) { client in

                // When it is synced
                let report = await client.syncSWAPI()

                // Then every request is counted: 19 pages and 178 resources of the other collections,
                // 12 pages and 120 people, 17 of whom (7, 14, … 119) are not found, named in link order
                // 19 pages and 178 resources of the others; 12 pages and 120 people, 17 of them missing
                let everything = 19 + 178 + 12 + 120
                #expect(report.fetched == everything - 17)
                #expect(report.failed == 17)
                #expect(report.failureGroups.map(\.code.description) == ["A404"])
                #expect(report.failureGroups.first?.subjects == ["people/7", "people/14", "people/21"])
                #expect(report.notRead.isEmpty && report.pagesFailed.isEmpty)
                #expect(server.requests.count == everything)
            }
        }
    }
}
