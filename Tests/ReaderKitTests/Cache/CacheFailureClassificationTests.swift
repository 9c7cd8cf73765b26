import Foundation
import GRDB
import Testing
@testable import ReaderKit
import TestSupport

/// What a cache failure is, told from typed values rather than from its words: another process's
/// lock from SQLite's result code, a newer reader's file from the migration check that found it;
/// the error classified kept with the failure. Real SQLite files in a temporary folder.
@Suite struct CacheFailureClassificationTests {
    /// Removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-classify")
    var path: String { scratch.url.appendingPathComponent("cache/cache.sqlite").path }
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func anotherConnectionsWriteLockIsBusyFromSQLitesResultCode() async throws {
        // Given a cache, and a second connection holding its write lock
        let cache = try ResponseCache.open(path: path)
        try await cache.store(CacheEntry(key: "k", service: "swapi", url: "k", status: 200, body: Data("{}".utf8), fetchedAt: now))
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true
        let blocker = try DatabaseQueue(path: path, configuration: configuration)
        try blocker.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }

        // When a write that does not wait for the lock (busy timeout 0: a read's record of its use) runs
        var thrown: CacheFailure?
        do { try await cache.recordUse(.hit, service: "swapi", key: "k", at: now) } catch { thrown = error }
        try blocker.inDatabase { db in try db.execute(sql: "ROLLBACK") }
        try blocker.close()
        cache.close()

        // Then the failure is busy, as SQLite said, with SQLite's error kept
        let failure = try #require(thrown)
        #expect(failure.reason == .unwritable)
        #expect(failure.isBusy)
        #expect(!failure.isNewerSchema)
        let underlying = try #require(failure.underlyingError as? DatabaseError)
        #expect(underlying.resultCode == .SQLITE_BUSY)
    }

    @Test func busyIsToldByTheResultCodeNotByTheWords() {
        let busy = CacheFailure(classifying: DatabaseError(resultCode: .SQLITE_BUSY_SNAPSHOT, message: "x"), path: "/c")
        let locked = CacheFailure(classifying: DatabaseError(resultCode: .SQLITE_LOCKED, message: "x"), path: "/c")
        let readOnly = CacheFailure(classifying: DatabaseError(resultCode: .SQLITE_READONLY, message: "x"), path: "/c")
        #expect(busy.isBusy && busy.reason == .unwritable, "an extended code of SQLITE_BUSY is busy")
        #expect(locked.isBusy && locked.reason == .unwritable)
        #expect(!readOnly.isBusy && readOnly.reason == .unwritable)
        // A failure that only reads like a busy one (its words copied, no SQLite error) is not.
        let words = CacheFailure(.unwritable, path: "/c", detail: busy.detail)
        #expect(!words.isBusy)
        #expect(words == busy, "== compares what is shown, not the error kept")
    }

    @Test func aFileWithAMigrationThisBuildDoesNotKnowIsANewerSchema() async throws {
        // Given a cache whose migrations table has a row this build does not know
        try ResponseCache.open(path: path).close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99-from-the-future')") }
        try queue.close()

        // When it is opened, then it is refused as a newer reader's, the migrations named
        var thrown: CacheFailure?
        do { _ = try ResponseCache.open(path: path) } catch { thrown = error }
        let failure = try #require(thrown)
        #expect(failure.reason == .corrupt)
        #expect(failure.isNewerSchema)
        #expect(!failure.isBusy)
        #expect(failure.underlyingError as? CacheFailure.NewerSchema == CacheFailure.NewerSchema(unknownMigrations: ["v99-from-the-future"]))
        #expect(failure.detail == #"made by a newer reader: unknown migrations ["v99-from-the-future"]"#)
    }

    @Test func aNewerSchemaThrownByItselfIsClassifiedAsOne() {
        let newer = CacheFailure.NewerSchema(unknownMigrations: ["v7"])
        let failure = CacheFailure(classifying: newer, path: "/c")
        #expect(failure.reason == .corrupt && failure.isNewerSchema)
        // Words that mention "newer" are not a newer schema.
        let words = CacheFailure(classifying: NSError(domain: "x", code: 1, userInfo: [NSLocalizedDescriptionKey: "a newer file"]), path: "/c")
        #expect(words.reason == .unavailable && !words.isNewerSchema)
    }
}
