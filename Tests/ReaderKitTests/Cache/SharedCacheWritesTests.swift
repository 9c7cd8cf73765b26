import Foundation
import GRDB
import NIOConcurrencyHelpers
import Testing
import TestSupport
@testable import ReaderKit

/// One cache file shared by many writers at once, as many `reader` processes share it: each
/// holds the write lock for milliseconds, and a store waits its turn rather than giving up.
@Suite struct SharedCacheWritesTests {
    let scratch = TemporaryFolder("shared-cache-writes")

    /// Another program's connection that takes the write lock again and again, holding it a few
    /// milliseconds each time (the load itself: its pauses are what it does), until stopped.
    final class LockTaker: Sendable {
        private let stopped = NIOLockedValueBox(false)
        private let taken = NIOLockedValueBox(0)
        private let done = DispatchSemaphore(value: 0)

        /// How many write transactions it committed.
        var transactions: Int { taken.withLockedValue { $0 } }

        init(path: String) throws {
            var configuration = Configuration()
            configuration.busyMode = .timeout(60)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            Thread.detachNewThread { [stopped, taken, done] in
                defer { done.signal() }
                while !stopped.withLockedValue({ $0 }) {
                    do {
                        try queue.inDatabase { db in
                            try db.execute(sql: "BEGIN IMMEDIATE")
                            usleep(3000)
                            try db.execute(sql: "COMMIT")
                        }
                        taken.withLockedValue { $0 += 1 }
                    } catch {
                        // Busy past its minute: it takes the lock next time round.
                    }
                    usleep(2000)
                }
                try? queue.close()
            }
        }

        func stop() {
            stopped.withLockedValue { $0 = true }
            done.wait()
        }
    }

    @Test func syncsOfSeveralClientsAndAnotherWriterStoreEveryEntry() async throws {
        // Given SWAPI, a cache file made, and another connection taking its write lock in a loop
        let data = SWAPIDataSet()
        try await withTestServer({ data.reply(to: $0) ?? .close }) { server in
            let path = scratch.cachePath()
            try await withShutdown(of: makeClient(server, cachePath: path)) { client in
                _ = try await client.load(try SWAPI.resource(Person.self, id: 1))
            }
            let taker = try LockTaker(path: path)

            // When three clients on the file sync everything at once, their loads' own writes
            // (each records its use without waiting) meeting the lock too
            let clients = (0..<3).map { _ in makeClient(server, cachePath: path, retryPolicy: RetryPolicy(maximumRetries: 0)) }
            let reports = await withTaskGroup(of: (SyncReport, [Notice]).self) { group in
                for client in clients {
                    group.addTask {
                        let report = await client.syncSWAPI()
                        return (report, await client.notices.drain().map(\.notice))
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            taker.stop()
            for client in clients { await client.shutdown() }

            // Then every sync is complete, nothing was skipped, and every page and resource is stored
            #expect(taker.transactions > 0, "the other writer took the lock")
            for (report, notices) in reports {
                #expect(report.isComplete, "\(report.summary)")
                #expect(report.notStored == nil && report.failedWrites == nil, "\(report.notStoredLine ?? "")")
                #expect(report.fetched + report.alreadyFresh == data.requestsForEverything, "\(report.summary)")
                #expect(!notices.contains { $0.code.description == "C1003" }, "\(notices.map(\.message))")
            }
            let stored = try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM response") }
            #expect(stored == data.requestsForEverything)
        }
    }

    @Test func anotherProcesssLockIsToldToTryAgainNotToMakeTheFileWritable() {
        // Given another process's lock, and a file that cannot be written, as SQLite says them
        let busy = ReaderError.cache(CacheFailure(classifying: DatabaseError(resultCode: .SQLITE_BUSY, message: "database is locked"), path: "/c"))
        let readOnly = ReaderError.cache(CacheFailure(classifying: DatabaseError(resultCode: .SQLITE_READONLY, message: "x"), path: "/c"))

        // Then the lock's hint is to try again (or use another file), the file's to make it writable
        #expect(busy.hints(in: ErrorContext()) == [.cacheBusy])
        #expect(busy.hints(in: ErrorContext()).text
            == "another process was writing to the cache file (another reader of it, or a program holding its write lock); try again, or name another file with Configuration.cachePath")
        #expect(busy.hints(in: ErrorContext(isSyncSummary: true)) == [.cacheBusy])
        #expect(readOnly.hints(in: ErrorContext()) == [.useAnotherCacheFile(.unwritable)])
    }
}
