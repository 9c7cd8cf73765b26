import Foundation
import GRDB
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// A cached read's path through the file: raw SQL through cached statements, rows read without
/// Codable, dates without a formatter, one connection. What it stores and serves is what the
/// query interface and GRDB's decoding stored and served. Real SQLite files, a real loopback server.
@Suite struct CachedReadTests {
    /// The test's temporary folder, removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-cached-read")

    @Test func aHitRecordsItsUseAndCountsIt() async throws {
        // Given a films list stored at 2023-11-14 22:13:20 UTC
        try await withTestServer(SampleAPI.route) { server in
            let cachePath = scratch.cachePath()
            let clock = NIOLockedValueBox(Date(timeIntervalSince1970: 1_700_000_000))
            let loaded = try await withShutdown(of: makeClient(server, cachePath: cachePath, now: { clock.withLockedValue { $0 } })) { client in
                _ = try await client.load(try SWAPI.list(Film.self))

                // When it is read offline 61.25 seconds later
                clock.withLockedValue { $0 = Date(timeIntervalSince1970: 1_700_000_061.25) }
                return try await client.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .offline))
            }

            // Then it is served from the cache, its use is stored as GRDB writes a date, and counted
            #expect(loaded.metadata.source == .cache && loaded.metadata.ageSeconds == 61)
            #expect(loaded.metadata.fetchedAt == Date(timeIntervalSince1970: 1_700_000_000))
            let queue = try DatabaseQueue(path: cachePath)
            let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT fetchedAt, lastUsedAt FROM response") }
            #expect(row?["fetchedAt"] as String? == "2023-11-14 22:13:20.000")
            #expect(row?["lastUsedAt"] as String? == "2023-11-14 22:14:21.250")
            let usage = try queue.read { db in try Row.fetchOne(db, sql: "SELECT api, hits, misses, revalidations FROM usage") }
            #expect(usage == ["api": "swapi", "hits": 1, "misses": 1, "revalidations": 0])
            try queue.close()
        }
    }

    /// The file descriptors this process holds on the file at `path` (one per SQLite connection).
    func openDescriptors(on path: String) throws -> Int {
        let target = CacheFile.realPath(path)
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == target
        }.count
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/fd")))
    func aCachedReadOpensOneConnection() async throws {
        // Given a films list in the cache, stored by another client
        try await withTestServer(SampleAPI.route) { server in
            let cachePath = scratch.cachePath()
            let clock = NIOLockedValueBox(Date(timeIntervalSince1970: 1_700_000_000))
            let filler = makeClient(server, cachePath: cachePath, now: { clock.withLockedValue { $0 } })
            // Shut down as `reader` leaves it: what it stored is in the file itself.
            try await withShutdown(of: filler) { filler in _ = try await filler.load(try SWAPI.list(Film.self)) }
            let before = try openDescriptors(on: cachePath)

            // When a new client reads it offline
            try await withShutdown(of: makeClient(server, cachePath: cachePath, now: { clock.withLockedValue { $0 } })) { reader in
                let loaded = try await reader.load(try SWAPI.list(Film.self), options: LoadOptions(cacheMode: .offline))

                // Then that client opened the file once: its writer, no reader connection
                #expect(loaded.metadata.source == .cache)
                let after = try openDescriptors(on: cachePath)
                #expect(after - before == 1, "\(before) before, \(after) after")
            }
            withExtendedLifetime(filler) {}
        }
    }

    @Test func anEntryReadsAsGRDBsDecodingReadsIt() async throws {
        // Given random entries, with and without their optional columns
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let path = scratch.cachePath()
        let cache = try ResponseCache.open(path: path)
        func text(_ random: inout SplitMix64) -> String? {
            Bool.random(using: &random) ? nil : String((0..<Int.random(in: 0...12, using: &random)).map { _ in "aé\"'; \u{1F600}x1".randomElement(using: &random)! })
        }
        var keys: [String] = []
        for index in 0..<200 {
            let key = "https://example.org/\(index)?q=\(text(&random) ?? "")"
            let fetchedAt = Date(timeIntervalSince1970: Double.random(in: 0..<253_400_000_000, using: &random))
            let body = Data((0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
            try await cache.store(CacheEntry(key: key, service: Bool.random(using: &random) ? "swapi" : "reddit", url: key,
                                       status: Int.random(in: 200...299, using: &random), body: body, contentType: text(&random),
                                       etag: text(&random), lastModified: text(&random), cacheControl: text(&random), date: text(&random),
                                       expires: text(&random), age: text(&random), vary: text(&random), varyRequest: text(&random),
                                       requestedAt: Bool.random(using: &random) ? nil : fetchedAt, fetchedAt: fetchedAt,
                                       lastUsedAt: fetchedAt.addingTimeInterval(Double.random(in: 0...1e6, using: &random))))
            keys.append(key)
        }

        // Then each reads as GRDB's Codable decoding reads it, without going through it
        let queue = try DatabaseQueue(path: path)
        for key in keys {
            let read = try await cache.entry(forKey: key)
            let decoded = try await queue.read { db in try CacheEntry.fetchOne(db, sql: "SELECT * FROM response WHERE key = ?", arguments: [key]) }
            #expect(read != nil && read == decoded, "seed \(seed): \(key)")
            let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM response WHERE key = ?", arguments: [key]) }
            #expect(row.flatMap(CacheEntry.init(storedRow:)) == decoded, "seed \(seed): read without Codable")
        }
        try queue.close()
        cache.close()
    }

    @Test(arguments: ["UPDATE response SET status = 'two hundred'", "UPDATE response SET etag = x'41'", "UPDATE response SET fetchedAt = 1700000000",
                      "UPDATE response SET fetchedAt = '2023-11-14T22:13:20.000'", "UPDATE response SET body = 'text'",
                      "ALTER TABLE response ADD COLUMN extra TEXT"])
    func aRowOfAnotherShapeIsLeftToGRDBsDecoding(_ sql: String) async throws {
        // Given an entry whose row another program changed
        let path = scratch.cachePath()
        let cache = try ResponseCache.open(path: path)
        try await cache.store(CacheEntry(key: "k", service: "swapi", url: "k", status: 200, body: Data("{}".utf8), etag: "\"e\"",
                                   fetchedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: sql) }

        // Then it reads as GRDB's decoding reads it (or fails as it fails), whether or not read without it
        let row = try queue.read { db in try Row.fetchOne(db, sql: "SELECT * FROM response") }
        // (an entry that decodes but cannot be right, a body whose size is not bodySize, is damaged either way)
        let decoded = Result { try row.map(CacheEntry.init(row:)) }.flatMap { entry in
            entry?.damage == nil ? .success(entry) : .failure(CacheFailure(.damagedEntry, path: path, detail: "damaged"))
        }
        let read: Result<CacheEntry?, any Error>
        do { read = .success(try await cache.entry(forKey: "k")) } catch { read = .failure(error) }
        switch (read, decoded) {
        case (.success(let read), .success(let decoded)): #expect(read != nil && read == decoded, "\(sql)")
        case (.failure(let failure), .failure): #expect((failure as? CacheFailure)?.reason == .damagedEntry, "\(sql)")
        default: Issue.record("\(sql): read \(read), GRDB decodes \(decoded)")
        }
        if sql.hasPrefix("ALTER") { #expect(row.flatMap(CacheEntry.init(storedRow:)) != nil, "an extra column is ignored, as by Codable") }
        else { #expect(row.flatMap(CacheEntry.init(storedRow:)) == nil, "\(sql)") }
        try queue.close()
        cache.close()
    }
    @Test func storingAndConfirmingWriteTheRowsGRDBsRecordsWrite() async throws {
        // Given random entries stored, stored again, and confirmed by a 304, in two files: through
        // the cache, and through GRDB's record methods (upsert, fetch and update)
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let cache = try ResponseCache.open(path: scratch.cachePath())
        let otherPath = scratch.cachePath()
        try ResponseCache.open(path: otherPath).close()
        let records = try DatabaseQueue(path: otherPath)
        func text(_ random: inout SplitMix64) -> String? {
            Bool.random(using: &random) ? nil : String((0..<Int.random(in: 0...8, using: &random)).map { _ in "aé\"; x1".randomElement(using: &random)! })
        }
        for index in 0..<100 {
            for _ in 0...Int.random(in: 0...1, using: &random) {
                let fetchedAt = Date(timeIntervalSince1970: Double.random(in: 0..<253_400_000_000, using: &random))
                let entry = CacheEntry(key: "k\(index)", service: "swapi", url: "u\(index)", status: Int.random(in: 200...299, using: &random),
                                       body: Data((0..<Int.random(in: 0...16, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }),
                                       contentType: text(&random), etag: text(&random), lastModified: text(&random), cacheControl: text(&random),
                                       date: text(&random), expires: text(&random), age: text(&random), vary: text(&random),
                                       varyRequest: text(&random), requestedAt: Bool.random(using: &random) ? nil : fetchedAt,
                                       fetchedAt: fetchedAt)
                try await cache.store(entry)
                try await records.write { db in try entry.upsert(db) }
            }
            if Bool.random(using: &random) {
                let now = Date(timeIntervalSince1970: Double.random(in: 0..<253_400_000_000, using: &random))
                let (etag, lastModified, cacheControl) = (text(&random), text(&random), text(&random))
                let (expires, date, age) = (text(&random), text(&random), text(&random))
                let requestedAt = Bool.random(using: &random) ? nil : now.addingTimeInterval(-1)
                let confirmed = try await cache.markRevalidated(key: "k\(index)", at: now, by: CacheEntry.Confirmation(
                    etag: etag, lastModified: lastModified, cacheControl: cacheControl, expires: expires, date: date, age: age,
                    requestedAt: requestedAt))
                let updated = try await records.write { db -> CacheEntry? in
                    guard var entry = try CacheEntry.fetchOne(db, key: "k\(index)") else { return nil }
                    entry.fetchedAt = now
                    entry.lastUsedAt = now
                    entry.etag = etag ?? entry.etag
                    entry.lastModified = lastModified ?? entry.lastModified
                    entry.cacheControl = cacheControl ?? entry.cacheControl
                    entry.expires = expires ?? entry.expires
                    entry.date = date
                    entry.age = age
                    entry.requestedAt = requestedAt
                    try entry.update(db)
                    return entry
                }
                #expect(confirmed == updated, "seed \(seed)")
            }
        }

        // Then both files hold the same rows, value for value and type for type
        let sql = "SELECT * FROM response ORDER BY key"
        let ours = try cache.writer.read { db in try Row.fetchAll(db, sql: sql) }
        let theirs = try records.read { db in try Row.fetchAll(db, sql: sql) }
        #expect(ours == theirs, "seed \(seed)")
        #expect(ours.count == 100)
        try records.close()
        cache.close()
    }
}
