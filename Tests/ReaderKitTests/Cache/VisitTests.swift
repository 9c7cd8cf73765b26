import Foundation
import GRDB
import Testing
@testable import ReaderKit
import TestSupport

/// "New since you were last here": the cache file remembers when each resource was last opened,
/// for the next run, and reads the rows as untrusted.
@Suite struct VisitTests {
    static var thread: Endpoint<RedditCommentPage> { get throws { try Reddit.comments(post: "2xmo63") } }

    @Test func aVisitReturnsTheOneBeforeItAndTheNextRunKnowsIt() async throws {
        try await withShutdown(of: ClientHarness()) { harness in
            let thread = try Self.thread
            let first = harness.clock.now
            await withShutdown(of: harness.client()) { client in
                #expect(await client.recordVisit(to: thread, itemCount: 5) == nil, "a first visit marks nothing")
                harness.clock.advance(3600)
                #expect(await client.recordVisit(to: thread, itemCount: 12) == Visit(openedAt: first, itemCount: 5))
            }
            // Another run on the same file: the list knows the last visit, and of no other post.
            try await withShutdown(of: harness.client()) { client in
                let other = try Reddit.comments(post: "6zy34e")
                #expect(await client.lastVisits(to: [other, thread]) == [nil, Visit(openedAt: first.addingTimeInterval(3600), itemCount: 12)])
                _ = try await client.clearCache(service: "reddit")
                #expect(await client.lastVisits(to: [thread]) == [nil], "clearing the cache forgets when it was read")
            }
        }
    }

    @Test func aDamagedRowIsNoVisitAndABadCountIsUnknown() async throws {
        try await withShutdown(of: ClientHarness()) { harness in
            let thread = try Self.thread
            await withShutdown(of: harness.client()) { client in
                _ = await client.recordVisit(to: thread, itemCount: 5)
            }
            // Another program writes nonsense into the file.
            let queue = try DatabaseQueue(path: harness.cachePath)
            try await queue.write { db in
                try db.execute(sql: "UPDATE visit SET itemCount = 1e300")
                try db.execute(sql: "INSERT INTO visit (key, api, openedAt, itemCount) VALUES ('x', 'reddit', 'yesterday', -4)")
            }
            try queue.close()
            await withShutdown(of: harness.client()) { client in
                let visits = await client.lastVisits(to: [thread])
                #expect(visits.first??.itemCount == nil && visits.first??.openedAt != nil, "\(visits)")
                #expect(await client.recordVisit(to: thread, itemCount: 7)?.itemCount == nil)
            }
            let rows = try DatabaseQueue(path: harness.cachePath).read { db in try Row.fetchAll(db, sql: "SELECT key FROM visit WHERE openedAt = 'yesterday'") }
            #expect(rows.count == 1, "read as nothing, never rewritten or trapped on")
        }
    }
}
