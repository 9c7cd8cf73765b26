import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// A copy stored while the clock ran ahead, with no `Date` from the server (issue 30 item 21): its
/// fetch time is in the future once the clock is put right. It is not trusted: stale, not fresh
/// for as long as the clock was ahead, and pruned by any `prune --older-than`.
@Suite struct ClockAheadTests {
    let scratch = TemporaryFolder("reader-clock-ahead")
    var path: String { scratch.url.appendingPathComponent("cache/cache.sqlite").path }
    /// The time put right.
    let now = Date(timeIntervalSince1970: 1_795_255_200)
    static let rule = FreshnessPolicy.Rule(defaultLifetime: .seconds(86_400))

    /// A copy fetched `offset` seconds after ``now``, fresh for a day by its `max-age`.
    func entry(_ key: String, fetchedAfterNow offset: TimeInterval) -> CacheEntry {
        CacheEntry(key: key, service: "swapi", url: key, status: 200, body: Data("{}".utf8), cacheControl: "max-age=86400",
                   fetchedAt: now.addingTimeInterval(offset))
    }

    @Test func aCopyFetchedInTheFutureIsStale() {
        let policy = FreshnessPolicy.default
        let ahead = entry("ahead", fetchedAfterNow: 3600)
        #expect(!policy.isFresh(ahead, rule: Self.rule, at: now))
        #expect(policy.reuse(of: ahead, rule: Self.rule, requestHeaders: [:], at: now) == .validate)
        // The same copy, fetched an hour ago: fresh.
        let behind = entry("behind", fetchedAfterNow: -3600)
        #expect(policy.isFresh(behind, rule: Self.rule, at: now))
        #expect(policy.reuse(of: behind, rule: Self.rule, requestHeaders: [:], at: now) == .fresh)
    }

    @Test func pruneRemovesACopyFetchedInTheFuture() async throws {
        let cache = try ResponseCache.open(path: path)
        try await cache.store(entry("ahead", fetchedAfterNow: 86_400 * 30))
        try await cache.store(entry("recent", fetchedAfterNow: -60))
        try await cache.store(entry("old", fetchedAfterNow: -86_400 * 10))
        let removal = try await cache.prune(fetchedBefore: now.addingTimeInterval(-86_400 * 7), now: now)
        #expect(removal.entries == 2)
        #expect(try await cache.entry(forKey: "ahead") == nil)
        #expect(try await cache.entry(forKey: "old") == nil)
        #expect(try await cache.entry(forKey: "recent") != nil)
    }
}
