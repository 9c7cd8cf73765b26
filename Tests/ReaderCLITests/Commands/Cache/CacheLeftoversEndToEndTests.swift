import Foundation
import GRDB
import Testing
import TestSupport

/// What was left from the caching work (issue 30 item 23), end to end with the built binary.
@Suite(.processSlot) struct CacheLeftoversEndToEndTests {
    /// A row of grdb_migrations deleted: the migration runs again and meets what it made. The
    /// file is damaged, moved aside and started anew, never C1004 on every run.
    @Test(arguments: ["v1", "v4"])
    func aDeletedMigrationRowMovesTheFileAside(_ migration: String) async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            try await DatabaseQueue(path: reader.cachePath).write { db in
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [migration])
            }
            let damaged = try await reader.run("films", "--refresh")
            #expect(damaged.status == 0, "\(damaged.stderr)")
            #expect(damaged.stderr.contains("the cache file was damaged; it was moved to"), "\(damaged.stderr)")
            #expect(!damaged.stderr.contains("C1004"), "\(damaged.stderr)")
            let folder = (reader.cachePath as NSString).deletingLastPathComponent
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).contains { $0.contains(".corrupt-") })
            // The new file serves the next run, offline.
            let next = try await reader.run("films", "--offline")
            #expect(next.status == 0 && !next.stderr.contains("C100"), "\(next.stderr)")
        }
    }

    /// A row other commands serve is listed (a fetch time stored as a number, which the Codable
    /// decoding reads and `films --offline` serves, was left out).
    @Test func cacheListShowsEveryRowTheOtherCommandsServe() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            try await DatabaseQueue(path: reader.cachePath).write { db in
                try db.execute(sql: "UPDATE response SET fetchedAt = CAST(strftime('%s', fetchedAt) AS INTEGER)")
                #expect(try String.fetchOne(db, sql: "SELECT typeof(fetchedAt) FROM response") == "integer")
            }
            let served = try await reader.run("films", "--offline")
            #expect(served.status == 0 && served.stdout.contains("A New Hope"), "\(served.stderr)")
            let listed = try await reader.run("cache", "list", "--json")
            let urls = (listed.json?["entries"] as? [[String: Any]])?.compactMap { $0["url"] as? String }
            #expect(urls == [server.baseURL + "/api/films/"], "\(listed.stdout) \(listed.stderr)")
        }
    }

    /// `cache clear --service` takes a service whose only trace in the file is its visits.
    @Test func cacheClearKnowsAServiceWithOnlyVisits() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            try await DatabaseQueue(path: reader.cachePath).write { db in
                try db.execute(sql: "INSERT INTO visit (key, api, openedAt) VALUES ('k', 'hackernews', '2026-11-01 10:00:00.000')")
            }
            let cleared = try await reader.run("cache", "clear", "--service", "hackernews")
            #expect(cleared.status == 0, "\(cleared.stderr)")
            #expect(cleared.stdout == "removed 0 entries (0 B)\n", "\(cleared.stdout)")
            let visits = try await DatabaseQueue(path: reader.cachePath).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM visit") }
            #expect(visits == 0)
        }
    }

    /// On a terminal 40 columns wide, no line of `cache list` is wider; the URL is whole across its lines.
    @Test func cacheListFitsFortyColumns() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("people", "1").status == 0)
            let listed = try await reader.runOnTerminal(["cache", "list"], streams: .standardOutput, columns: 40)
            #expect(listed.status == 0, "\(listed.stderr)")
            let lines = listed.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n")
            #expect(lines.count > 2)
            for line in lines { #expect(line.count <= 40, "\(line.count): \(line)") }
            let url = server.baseURL + "/api/people/1/"
            #expect(lines.map { $0.split(separator: " ").first.map(String.init) ?? "" }.joined().contains(url), "\(listed.stdout)")
        }
    }
}
