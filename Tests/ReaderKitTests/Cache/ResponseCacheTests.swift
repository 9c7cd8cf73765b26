import Foundation
import GRDB
import Testing
@testable import ReaderKit
import TestSupport

/// The cache file itself: eviction, migrations, refusing files that are not reader's, and the
/// numbers `reader cache stats` shows. Real SQLite files in a temporary folder.
@Suite struct ResponseCacheTests {
    /// Removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-cache")
    var path: String { scratch.url.appendingPathComponent("cache/cache.sqlite").path }
    let start = Date(timeIntervalSince1970: 1_700_000_000)

    func entry(_ key: String, bytes: Int, at offset: TimeInterval, service: ServiceName = "swapi") -> CacheEntry {
        CacheEntry(key: key, service: service, url: key, status: 200, body: Data(repeating: UInt8(ascii: " "), count: bytes),
                   fetchedAt: start.addingTimeInterval(offset))
    }

    @Test func theLeastRecentlyUsedEntriesAreEvictedToFitTheLimit() async throws {
        let cache = try ResponseCache.open(path: path)
        try await cache.store(entry("a", bytes: 1000, at: 0), sizeLimit: 2500)
        try await cache.store(entry("b", bytes: 1000, at: 1), sizeLimit: 2500)
        try await cache.recordUse(.hit, service: "swapi", key: "a", at: start.addingTimeInterval(2))  // a is now newer than b
        let evicted = try await cache.store(entry("c", bytes: 1000, at: 3), sizeLimit: 2500)
        #expect(evicted == 1)
        #expect(try await cache.entry(forKey: "b") == nil)
        #expect(try await cache.entry(forKey: "a") != nil)
        #expect(try await cache.entry(forKey: "c") != nil)
        #expect(try await cache.store(entry("huge", bytes: 3000, at: 4), sizeLimit: 2500) == nil, "larger than the whole limit: not stored")
        #expect(try await cache.count() == 2)
    }

    /// Once stored, a body belongs to the file: the cache keeps no reference to it in memory (a
    /// statement that kept its last arguments held the last body for as long as the connection
    /// lived, which LeakSanitizer reported at the fuzzer's exit).
    @Test func aStoredBodyIsNotKeptInMemory() async throws {
        let cache = try ResponseCache.open(path: path)
        let freed = FreedFlag()
        do {
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: 100, alignment: 1)
            bytes.initializeMemory(as: UInt8.self, repeating: UInt8(ascii: "x"), count: 100)
            let body = Data(bytesNoCopy: bytes, count: 100, deallocator: .custom { pointer, _ in
                pointer.deallocate()
                freed.set()
            })
            try await cache.store(CacheEntry(key: "k", service: "swapi", url: "k", status: 200, body: body, fetchedAt: start))
        }
        #expect(freed.isSet, "the body stored is still held")
        #expect(try await cache.entry(forKey: "k")?.body == Data(repeating: UInt8(ascii: "x"), count: 100))
        cache.close()
    }

    final class FreedFlag: @unchecked Sendable {
        private let lock = NSLock()
        private var value = false
        func set() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    @Test func aVersion1CacheIsMigratedWithItsEntries() async throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        // Exactly what reader 0.1 wrote: the v1 table and GRDB's record of the migration.
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(sql: """
                CREATE TABLE response (key TEXT PRIMARY KEY, api TEXT NOT NULL, url TEXT NOT NULL, status INTEGER NOT NULL,
                  body BLOB NOT NULL, contentType TEXT, etag TEXT, lastModified TEXT, cacheControl TEXT, fetchedAt DATETIME NOT NULL);
                CREATE INDEX response_on_fetchedAt ON response(fetchedAt);
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                INSERT INTO response VALUES ('k', 'swapi', 'https://swapi.dev/api/films/', 200, X'7B7D', 'application/json',
                  '"e"', NULL, NULL, '2023-11-14 22:13:20.000');
                """)
        }
        try old.close()

        let cache = try ResponseCache.open(path: path)
        let migrated = try #require(try await cache.entry(forKey: "k"))
        #expect(migrated.body == Data("{}".utf8) && migrated.etag == "\"e\"" && migrated.bodySize == 2)
        #expect(migrated.lastUsedAt == migrated.fetchedAt)
        let statistics = try await cache.statistics()
        #expect(statistics.createdAt == migrated.fetchedAt, "an old cache dates from its oldest entry")
        #expect(statistics.services["swapi"]?.bytes == 2)
    }

    @Test func aVersion3CacheGainsTheHeadersRFC9111JudgesBy() async throws {
        // Given a cache of the v3 schema, before reader kept Date, Expires, Age, Vary and the request time
        let first = try ResponseCache.open(path: path)
        try await first.store(CacheEntry(key: "k", service: "swapi", url: "k", status: 200, body: Data("{}".utf8), etag: "\"e\"",
                                   cacheControl: "max-age=60", fetchedAt: start))
        first.close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier IN ('v4', 'v5', 'v6')")
            try db.execute(sql: "DROP TABLE visit")
            try db.execute(sql: "DROP TABLE detour")
            for column in ["dateHeader", "expiresHeader", "ageHeader", "varyHeader", "varyRequest", "requestedAt"] {
                try db.execute(sql: "ALTER TABLE response DROP COLUMN \(column)")
            }
        }
        try queue.close()

        // When this reader opens it, then its entry is there, judged by what it kept
        let cache = try ResponseCache.open(path: path)
        let migrated = try #require(try await cache.entry(forKey: "k"))
        #expect(migrated.etag == "\"e\"" && migrated.cacheControl == "max-age=60")
        #expect(migrated.date == nil && migrated.expires == nil && migrated.age == nil && migrated.vary == nil && migrated.requestedAt == nil)
        #expect(FreshnessPolicy.currentAge(of: migrated, at: start.addingTimeInterval(30)) == 30)
        cache.close()
    }

    @Test func aNewerReadersCacheIsRefusedAsCorrupt() throws {
        _ = try ResponseCache.open(path: path)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v9-from-the-future')") }
        try queue.close()
        #expect(throws: CacheFailure.self) { try ResponseCache.open(path: path) }
        do { _ = try ResponseCache.open(path: path) } catch { #expect(error.reason == .corrupt) }
    }

    @Test func aFileFoundDamagedIsMovedAsideOnlyWhileThePathStillNamesIt() async throws {
        // Given a damaged file found so by two processes, the first of which moved it aside and
        // started a new cache holding an entry
        let folder = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("not a database at all".utf8).write(to: URL(fileURLWithPath: path))
        let damaged = try #require(FileIdentity(path: path))
        let first = try CacheFile.moveAside(path: path, now: start, ifStill: damaged)
        let fresh = try ResponseCache.open(path: path)
        try await fresh.store(entry("a", bytes: 10, at: 0))

        // When the second moves aside the file it found damaged
        let second = try CacheFile.moveAside(path: path, now: start, ifStill: damaged)

        // Then nothing is moved: the new cache stays where it is, with its entry
        #expect(first == path + ".corrupt-1700000000")
        #expect(second == nil)
        #expect(try await ResponseCache.open(path: path).entry(forKey: "a")?.key == "a")
        let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".corrupt-") }
        #expect(aside == ["cache.sqlite.corrupt-1700000000"])
        fresh.close()
    }

    @Test func anotherProgramsDatabaseIsNotWrittenInto() throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let foreign = try DatabaseQueue(path: path)
        try foreign.write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')") }
        try foreign.close()
        do {
            _ = try ResponseCache.open(path: path)
            Issue.record("a foreign database must be refused")
        } catch {
            #expect(error.reason == .corrupt)
        }
        let tables = try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type='table'") }
        #expect(tables == ["notes"], "nothing of reader's was added")
    }

    @Test func statisticsClearAndPrune() async throws {
        let cache = try ResponseCache.open(path: path)
        try await cache.store(entry("old", bytes: 10, at: 0))
        try await cache.store(entry("new", bytes: 20, at: 86_400))
        try await cache.store(entry("post", bytes: 40, at: 86_400, service: "reddit"))
        try await cache.recordUse(.miss, service: "swapi", key: "old", at: start)
        try await cache.recordUse(.hit, service: "swapi", key: "old", at: start)
        try await cache.recordUse(.revalidation, service: "swapi", key: "old", at: start)
        try await cache.recordUse(.hit, service: "reddit", key: "post", at: start)

        let statistics = try await cache.statistics()
        let swapi = try #require(statistics.services["swapi"])
        #expect(swapi.entries == 2 && swapi.bytes == 30 && swapi.hits == 1 && swapi.misses == 1 && swapi.revalidations == 1)
        #expect(swapi.oldest == start && swapi.newest == start.addingTimeInterval(86_400))
        #expect(swapi.hitRatio == 2.0 / 3.0)
        #expect(statistics.total.entries == 3 && statistics.total.bytes == 70 && statistics.total.hits == 2)
        #expect(statistics.fileBytes > 0)

        #expect(try await cache.prune(fetchedBefore: start.addingTimeInterval(3600)) == CacheRemoval(entries: 1, bytes: 10))
        #expect(try await cache.clear(service: "reddit") == CacheRemoval(entries: 1, bytes: 40))
        #expect(try await cache.count() == 1)
        #expect(try await cache.entry(forKey: "new") != nil)
        #expect(try await cache.clear() == CacheRemoval(entries: 1, bytes: 20))
        #expect(try await cache.statistics().services["swapi"]?.hits == 1, "counters survive a clear: they count since creation")
    }

    @Test func statisticsEncodeForScripts() throws {
        // The client lists every service it reads, used or not (ReaderClient.cacheStatistics).
        var statistics = CacheStatistics(path: "/c", createdAt: start)
        statistics.services["swapi"] = .init()
        statistics.services["reddit"] = .init()
        let json = try #require(try JSONSerialization.jsonObject(with: ReaderJSON.makeEncoder().encode(statistics)) as? [String: Any])
        #expect(Set(json.keys) == ["path", "file_bytes", "created_at", "total", "apis"])
        let apis = try #require(json["apis"] as? [String: Any])
        #expect(Set(apis.keys) == ["swapi", "reddit"], "every API appears, used or not")
        #expect((apis["reddit"] as? [String: Any])?["hit_ratio"] is NSNull)
    }
}
