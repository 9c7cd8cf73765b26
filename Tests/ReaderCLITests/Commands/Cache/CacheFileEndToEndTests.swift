import Foundation
import Testing
import TestSupport

/// The cache file: private, and never the reason a command fails.
@Suite(.processSlot) struct CacheFileEndToEndTests {
    @Test func theCacheFileIsPrivate() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            let file = try FileManager.default.attributesOfItem(atPath: reader.cachePath)
            let folder = try FileManager.default.attributesOfItem(atPath: (reader.cachePath as NSString).deletingLastPathComponent)
            #expect((file[.posixPermissions] as? Int) == 0o600)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
        }
    }

    @Test func whatIsStoredEndsUpInTheFileItselfAndAReadLeavesTheFileAsItWas() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            // Stored, then copied out of the log on exit: the file alone holds the films.
            let afterStore = try #require(FileManager.default.contents(atPath: reader.cachePath))
            #expect(afterStore.range(of: Data("A New Hope".utf8)) != nil)
            // A read records its use in the log only: no copy, no fsync, the file unchanged...
            #expect(try await reader.run("films", "--offline").status == 0)
            #expect(FileManager.default.contents(atPath: reader.cachePath) == afterStore)
            // ...and the use is still counted.
            let stats = try await reader.run("cache", "stats", "--json")
            #expect(stats.status == 0 && stats.stdout.contains("\"hits\":1"), "\(stats.stdout)")
        }
    }

    @Test func readsAloneDoNotGrowTheLogWithoutBound() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            // Each read records its use in the log; past the threshold the next exit empties it.
            for _ in 1...40 { #expect(try await reader.run("films", "--offline").status == 0) }
            let log = try FileManager.default.attributesOfItem(atPath: reader.cachePath + "-wal")[.size] as? Int ?? 0
            // 256 KB (the threshold the README gives), plus room for the reads since the last truncation.
            #expect(log <= 320 * 1024, "the log is \(log) bytes")
            let stats = try await reader.run("cache", "stats", "--json")
            #expect(stats.stdout.contains("\"hits\":40"), "every use is still counted: \(stats.stdout)")
        }
    }

    @Test func aCacheThatCannotBeOpenedIsWarnedAboutOnceAndTheCommandCarriesOn() async throws {
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            let blocker = reader.folder.appendingPathComponent("a-file")
            _ = FileManager.default.createFile(atPath: blocker.path, contents: Data("x".utf8))
            reader.environment["READER_CACHE_PATH"] = blocker.path + "/cache.sqlite"
            let result = try await reader.run("films")
            #expect(result.status == 0)
            #expect(result.stdout.contains("A New Hope"))
            #expect(result.stderr.components(separatedBy: "warning C100").count == 2)
        }
    }
}
