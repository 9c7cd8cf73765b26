import Foundation
import Testing
@testable import ReaderCLI
import ReaderKit

/// The scheduler alone: what a screen asks for in, decisions out, with a name for the work.
@Suite struct BrowseSchedulerTests {
    typealias Scheduler = BrowseScheduler<String>

    static let start = ContinuousClock.now
    static let online = LoadOptions(cacheMode: .normal)

    /// The options of a `.run` decision and how it answers; nil for another decision.
    static func run(_ decision: Scheduler.Decision) -> (options: LoadOptions, pass: Scheduler.Pass)? {
        if case .run(let options, let pass) = decision { (options, pass) } else { nil }
    }

    @Test func aCacheFirstLoadAsksTheCacheOnlyFirstAndOfflineByChoiceAsksNothingElse() throws {
        var scheduler = Scheduler()
        let cached = try #require(Self.run(scheduler.load("list", of: 0, kind: .cacheFirst, work: "list", probe: false,
                                                          options: Self.online, now: Self.start)))
        #expect(cached.options.cacheMode == .offline)
        #expect(cached.pass == .cachedFirst)
        // Under --offline there is no second pass to come: the load is a plain one, from the cache.
        let offline = try #require(Self.run(scheduler.load("list", of: 0, kind: .cacheFirst, work: "list", probe: false,
                                                           options: LoadOptions(cacheMode: .offline), now: Self.start)))
        #expect(offline.options.cacheMode == .offline)
        #expect(offline.pass == .foreground(probe: false))
    }

    @Test func aRefreshAsksTheNetworkPastAFreshCopyButNotUnderOffline() throws {
        var scheduler = Scheduler()
        let refresh = try #require(Self.run(scheduler.load("list", of: 0, kind: .refresh, work: "list", probe: false,
                                                           options: Self.online, now: Self.start)))
        #expect(refresh.options.cacheMode == .refresh)
        let current = try #require(Self.run(scheduler.load("list", of: 0, kind: .current, work: "list", probe: false,
                                                           options: Self.online, now: Self.start)))
        #expect(current.options.cacheMode == .normal)
        let offline = try #require(Self.run(scheduler.load("list", of: 0, kind: .refresh, work: "list", probe: false,
                                                           options: LoadOptions(cacheMode: .offline), now: Self.start)))
        #expect(offline.options.cacheMode == .offline)
    }

    @Test func atMostFourBackgroundLoadsRunInTheBackgroundModeKeepingATenthOfTheRateLimit() {
        var scheduler = Scheduler()
        for number in 1...6 {
            guard case .queued = scheduler.load("p\(number)", of: 0, kind: .background, work: "p\(number)", probe: false,
                                                options: Self.online, now: Self.start) else {
                Issue.record("p\(number) not queued")
                return
            }
        }
        let started = scheduler.startQueued(options: Self.online)
        #expect(started.map(\.load.work) == ["p1", "p2", "p3", "p4"])
        #expect(started.map(\.options.mode) == Array(repeating: .background, count: 4))
        #expect(started.map(\.options.rateLimitReserve) == Array(repeating: 0.1, count: 4))
        #expect(scheduler.waiting == ["0:p5", "0:p6"])
        // The same load running is not sent again; one answered frees a place for the next.
        guard case .skip = scheduler.load("p1", of: 0, kind: .background, work: "p1", probe: false, options: Self.online,
                                          now: Self.start) else {
            Issue.record("p1 asked twice")
            return
        }
        #expect(scheduler.startQueued(options: Self.online).isEmpty)
        scheduler.backgroundAnswered("p2", of: 0)
        #expect(scheduler.startQueued(options: Self.online).map(\.load.work) == ["p5"])
        #expect(scheduler.waiting == ["0:p6"])
    }

    @Test func aCoveredScreensBackgroundWorkStopsAndADroppedLoadLeavesTheQueue() {
        var scheduler = Scheduler()
        for (screen, id) in [(0, "a"), (0, "b"), (1, "c"), (0, "d"), (0, "e"), (1, "f")] {
            _ = scheduler.load(id, of: screen, kind: .background, work: id, probe: false, options: Self.online, now: Self.start)
        }
        #expect(scheduler.startQueued(options: Self.online).map(\.load.work) == ["a", "b", "c", "d"])
        let dropped = scheduler.dropQueued("f", of: 1)
        let droppedAgain = scheduler.dropQueued("f", of: 1)
        #expect(dropped && !droppedAgain)
        #expect(scheduler.stopBackground(of: 0) == ["0:a", "0:b", "0:d"])
        #expect(scheduler.waiting == [])
        #expect(scheduler.backgroundRunning == ["1:c"])
    }

    @Test func aProbeWaitsForTheNetworkForFiveMinutesAndEndsWithItsLastLoad() throws {
        var scheduler = Scheduler()
        #expect(scheduler.wentOffline(afterProbe: false, offlineByChoice: false) == .probeNow)
        let probe = try #require(Self.run(scheduler.load("list", of: 2, kind: .refresh, work: "list", probe: true,
                                                         options: Self.online, now: Self.start)))
        _ = scheduler.load("more", of: 2, kind: .current, work: "more", probe: true, options: Self.online, now: Self.start)
        scheduler.probeStarted(on: 2)
        #expect(probe.options.cacheMode == .refresh)
        #expect(probe.options.waitForConnectivity)
        #expect(probe.options.deadline == Self.start.advanced(by: .seconds(300)))
        #expect(probe.pass == .foreground(probe: true))
        #expect(scheduler.probing == 2)
        // No second probe while one runs; a probe meets no background work.
        #expect(scheduler.wentOffline(afterProbe: false, offlineByChoice: false) == .nothing)
        guard case .skip = scheduler.load("p", of: 2, kind: .background, work: "p", probe: true, options: Self.online,
                                          now: Self.start) else {
            Issue.record("a probe queued background work")
            return
        }
        let endedByTheFirst = scheduler.foregroundAnswered("list", of: 2, probe: true)
        #expect(!endedByTheFirst)
        #expect(scheduler.probing == 2)
        let endedByTheLast = scheduler.foregroundAnswered("more", of: 2, probe: true)
        #expect(endedByTheLast)
        #expect(scheduler.probing == nil)
    }

    @Test func aProbeThatEndsOfflineIsTriedAgainAfterAPauseAndNeverUnderOffline() {
        var scheduler = Scheduler()
        #expect(scheduler.wentOffline(afterProbe: true, offlineByChoice: false) == .probeAfterPause)
        #expect(Scheduler.probePause == .seconds(5))
        // While the pause runs, nothing else probes.
        #expect(scheduler.wentOffline(afterProbe: false, offlineByChoice: false) == .nothing)
        #expect(!scheduler.mayProbe(offlineByChoice: false))
        let again = scheduler.probeAgain()
        #expect(again)
        #expect(scheduler.mayProbe(offlineByChoice: false))
        #expect(Scheduler().mayProbe(offlineByChoice: true) == false)
        var offline = Scheduler()
        #expect(offline.wentOffline(afterProbe: false, offlineByChoice: true) == .nothing)
    }

    @Test func anotherLoadUnderTheProbesIdReplacesItsLoad() {
        var scheduler = Scheduler()
        _ = scheduler.load("list", of: 0, kind: .refresh, work: "list", probe: true, options: Self.online, now: Self.start)
        scheduler.probeStarted(on: 0)
        scheduler.cancel("list", of: 0)
        #expect(scheduler.probing == nil)
        // A screen with nothing to load again probes nothing.
        scheduler.probeStarted(on: 0)
        #expect(scheduler.probing == nil)
    }

    @Test func aRateLimitsResetIsWaitedForASecondPastItUpToADay() {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        #expect(Scheduler.waitForReset(at: now.addingTimeInterval(30), now: now) == .milliseconds(31_000))
        #expect(Scheduler.waitForReset(at: now.addingTimeInterval(-5), now: now) == .milliseconds(1_000))
        #expect(Scheduler.waitForReset(at: now.addingTimeInterval(2 * 24 * 3600), now: now) == nil)
        #expect(Scheduler.waitForReset(at: .distantFuture, now: now) == nil)
    }
}
