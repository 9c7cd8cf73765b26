import Foundation
import GRDB
import Testing
import TestSupport

/// `reader sync` on a cache file other processes use at the same time, and on one it cannot
/// write: with the built binary, against a server holding the whole of SWAPI.
@Suite(.processSlot) struct SharedCacheSyncEndToEndTests {
    static let cacheExitCode: Int32 = 73

    func entries(in path: String) async throws -> Int {
        try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM response") ?? 0 }
    }

    @Test func syncsAndReadsSideBySideAllSucceedAndStoreEverything() async throws {
        // Given a cache file made, and SWAPI
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? .close } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.launch(["films"]).wait().status == 0)

            // When three syncs run side by side with reads that store pages (each refreshed)
            let syncs = try (0..<3).map { _ in try reader.launch(["sync", "swapi"]) }
            let readings = try (1...9).map { try reader.launch(["people", "--page", String($0), "--refresh"]) }
                + (1...6).map { try reader.launch(["planets", "--page", String($0), "--refresh"]) }
            var results: [ReaderProcess.Result] = []
            for process in syncs + readings { results.append(await process.wait()) }

            // Then every process succeeds without a word about the cache, and every page and resource is stored
            for (index, result) in results.enumerated() {
                #expect(result.status == 0, "process \(index): \(result.stdout)\(result.stderr)")
                #expect(!result.stderr.contains("C1003") && !result.stderr.contains("locked"), "process \(index): \(result.stderr)")
            }
            for result in results.prefix(3) {
                #expect(result.stdout.contains("sync swapi: ") && !result.stdout.contains("not stored"), "\(result.stdout)")
            }
            #expect(try await entries(in: reader.cachePath) == data.requestsForEverything)
        }
    }

    @Test func aSyncWhileAnotherProgramHoldsTheWriteLockCountsWhatItDidNotStoreAndSaysTheCacheIsBusy() async throws {
        // Given a cache file, and another program holding its write lock all along
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? .close } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.launch(["films"]).wait().status == 0)
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let blocker = try DatabaseQueue(path: reader.cachePath, configuration: configuration)
            try blocker.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }

            // When syncing, in words and in JSON
            let sync = await (try reader.launch(["sync", "swapi"])).wait()
            let json = await (try reader.launch(["sync", "swapi", "--json"])).wait()
            try blocker.inDatabase { db in try db.execute(sql: "ROLLBACK") }
            try blocker.close()

            // Then it fetched everything, ends with C1003 and its exit code, counts the writes
            // it could not make, and says the cache was busy: nothing about making files writable
            #expect(sync.status == Self.cacheExitCode, "\(sync.stdout)\(sync.stderr)")
            #expect(sync.stderr.contains("warning C1003: the cache is busy"), "\(sync.stderr)")
            #expect(sync.stderr.contains("error C1003: the sync is incomplete: "), "\(sync.stderr)")
            #expect(sync.stderr.contains(" writes to the cache failed"), "counted, not all: \(sync.stderr)")
            #expect(sync.stderr.contains("hint: another process was writing to the cache file (another reader of it, or a program holding its write lock); try again, or name another file with --cache-path"),
                    "\(sync.stderr)")
            #expect(!sync.stderr.contains("writable"), "\(sync.stderr)")
            #expect(json.status == Self.cacheExitCode, "\(json.stdout)\(json.stderr)")
            let report = try #require(json.json?["swapi"] as? [String: Any], "\(json.stdout)")
            let fetched = try #require(report["fetched"] as? Int)
            #expect(fetched + (report["already_fresh"] as? Int ?? 0) == data.requestsForEverything, "\(json.stdout)")
            let notStored = try #require(report["not_stored"] as? [String: Any], "\(json.stdout)")
            #expect(notStored["code"] as? String == "C1003")
            let failedWrites = try #require(notStored["failed_writes"] as? Int, "\(notStored)")
            #expect(failedWrites >= fetched, "every store skipped: \(notStored)")
            #expect((notStored["message"] as? String)?.contains("\(failedWrites) writes failed, the last: another process holds") == true,
                    "\(notStored)")

            // And once the lock is gone, a sync stores everything
            let again = await (try reader.launch(["sync", "swapi"])).wait()
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try await entries(in: reader.cachePath) == data.requestsForEverything)
        }
    }

    @Test func aSyncWhoseCachePathIsNoFileStopsBeforeFetchingWithC1004() async throws {
        // Given a cache path that names a folder
        let data = SWAPIDataSet()
        try await withTestServer { data.reply(to: $0) ?? .close } body: { server in
            var reader = ReaderProcess(server: server)
            let folder = reader.folder.appendingPathComponent("folder.sqlite").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            reader.environment["READER_CACHE_PATH"] = folder

            // When syncing
            let sync = await (try reader.launch(["sync", "swapi"])).wait()
            let json = await (try reader.launch(["sync", "swapi", "--json"])).wait()

            // Then nothing is fetched: it ends at once with the cache's code and exit code
            #expect(server.requests.isEmpty, "\(server.requests.count) requests")
            #expect(sync.status == Self.cacheExitCode, "\(sync.stdout)\(sync.stderr)")
            #expect(sync.stdout.contains("sync swapi: 0 fetched; not stored (C1004)"), "\(sync.stdout)")
            #expect(sync.stderr.contains("error C1004: the sync is incomplete: nothing was fetched: the cache cannot be written"), "\(sync.stderr)")
            #expect(json.status == Self.cacheExitCode)
            let notStored = (json.json?["swapi"] as? [String: Any])?["not_stored"] as? [String: Any]
            #expect(notStored?["code"] as? String == "C1004" && notStored?["exit_code"] as? Int == 73, "\(json.stdout)")
        }
    }
}
