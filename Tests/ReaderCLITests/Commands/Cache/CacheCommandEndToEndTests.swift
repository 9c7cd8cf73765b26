import Foundation
import ReaderKit
import Testing
import TestSupport

/// `reader cache` and the freshness options, as a user and a script see them.
@Suite(.processSlot) struct CacheCommandEndToEndTests {
    @Test(.replaysRecordings) func statsExplainTheCacheToPeopleAndScripts() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            let empty = try #require(try await reader.run("cache", "stats", "--json").json)
            #expect((empty["total"] as? [String: Any])?["entries"] as? Int == 0)
            #expect(!FileManager.default.fileExists(atPath: reader.cachePath), "stats on no cache does not create one")

            #expect(try await reader.run("films").status == 0)                       // miss
            #expect(try await reader.run("films").status == 0)                       // hit
            let revalidated = try #require(try await reader.run("films", "--max-age", "0", "--json").json)
            #expect((revalidated["meta"] as? [String: Any])?["source"] as? String == "revalidated")
            #expect(server.requests.count == 2 && server.requests[1].headers["if-none-match"] != nil)
            #expect(try await reader.run("posts", "python").status == 0)             // miss

            let stats = try #require(try await reader.run("cache", "stats", "--json").json)
            let swapi = try #require((stats["apis"] as? [String: Any])?["swapi"] as? [String: Any])
            #expect(swapi["entries"] as? Int == 1 && swapi["hits"] as? Int == 1 && swapi["misses"] as? Int == 1
                    && swapi["revalidations"] as? Int == 1)
            #expect((stats["total"] as? [String: Any])?["entries"] as? Int == 2)
            #expect(stats["path"] as? String == reader.cachePath && (stats["file_bytes"] as? Int ?? 0) > 0)

            let text = try await reader.run("cache", "stats")
            #expect(text.status == 0 && text.stdout.contains("swapi") && text.stdout.contains("HIT RATIO") && text.stdout.contains("67%"))
        }
    }

    @Test(.replaysRecordings) func listShowsEachEntryAsTheHTTPCacheJudgesIt() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            let empty = try await reader.run("cache", "list")
            #expect(empty.status == 0 && empty.stdout == "the cache holds no entries\n", "\(empty.stderr)")
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("posts", "python").status == 0)
            // --json's meta says how the copy answered, and what the cache judged of it
            let again = try #require(try await reader.run("films", "--json").json?["meta"] as? [String: Any])
            #expect(again["source"] as? String == "cache" && again["served_as"] as? String == "fresh")
            let judged = try #require(again["http_cache"] as? [String: Any])
            #expect(judged["lifetime_from"] as? String == "heuristic" && judged["freshness_lifetime_seconds"] as? Int == 86_400)
            #expect(judged["headers"] as? [String: String] == ["etag": "\"0bc6a4246aac177e4793c35c312d1110\"", "vary": "Accept, Cookie"])
            do {
                // An answer the cache may not reuse (a 201 without freshness), under a URL with an escape in it
                let cache = try ResponseCache.open(path: reader.cachePath)
                try await cache.store(CacheEntry(key: "https://example.org/made", service: "openlibrary", url: "https://example.org/\u{1B}[31mmade",
                                           status: 201, body: Data(#"{"id": 1}"#.utf8), fetchedAt: Date().addingTimeInterval(-7200)), sizeLimit: nil)
                cache.close()
            }

            let listed = try #require(try await reader.run("cache", "list", "--json").json)
            let entries = try #require(listed["entries"] as? [[String: Any]])
            #expect(entries.map { $0["service"] as? String } == ["openlibrary", "reddit", "swapi"])
            let (made, posts, films) = (entries[0], entries[1], entries[2])
            #expect(films["url"] as? String == server.baseURL + "/api/films/" && films["state"] as? String == "fresh")
            #expect(films["bytes"] as? Int == Fixtures.bytes("swapi/films.json").count && films["status"] as? Int == 200)
            let filmsCache = try #require(films["http_cache"] as? [String: Any])
            #expect(filmsCache["freshness_lifetime_seconds"] as? Int == 86_400 && filmsCache["lifetime_from"] as? String == "heuristic")
            #expect((filmsCache["headers"] as? [String: String])?["etag"] == "\"0bc6a4246aac177e4793c35c312d1110\"")
            let postsCache = try #require(posts["http_cache"] as? [String: Any])
            #expect(postsCache["freshness_lifetime_seconds"] as? Int == 60 && postsCache["lifetime_from"] as? String == "service-floor")
            #expect((postsCache["headers"] as? [String: String])?["cache-control"] == "max-age=0, must-revalidate")
            #expect(made["state"] as? String == "history-only")
            #expect(((made["http_cache"] as? [String: Any])?["current_age_seconds"] as? Int ?? 0) >= 7200)

            let table = try await reader.run("cache", "list")
            #expect(table.status == 0 && !table.stdout.contains("\u{1B}"), "a URL from the file is sanitised: \(table.stdout)")
            let filmsRow = try #require(table.stdout.split(separator: "\n").first { $0.contains("/api/films/") })
            #expect(filmsRow.contains("swapi") && filmsRow.contains("1 day") && filmsRow.contains("fresh") && filmsRow.contains("ETag"))
            #expect(table.stdout.contains("3 entries"))

            let swapiOnly = try #require(try await reader.run("cache", "list", "--service", "swapi", "--json").json)
            #expect((swapiOnly["entries"] as? [Any])?.count == 1)
            let unknown = try await reader.run("cache", "list", "--service", "gopher")
            #expect(unknown.status == 64 && unknown.stderr.contains("--service gopher: no service of that name"), "\(unknown.stderr)")
        }
    }

    /// The built binary against a server whose answer expired before it was sent (RFC 9111 §4.2.1):
    /// not reused for SWAPI's day, and what it stored is listed stale, with its Expires.
    @Test(.replaysRecordings) func anExpiredAnswerIsAskedForAgainByTheBinary() async throws {
        try await withTestServer { request in
            guard request.path == "/api/films/" else { return .respond(status: 404, headers: [], body: []) }
            return .json(Fixtures.bytes("swapi/films.json"), headers: [("Expires", "0"), ("ETag", "\"v1\"")])
        } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            let again = try #require(try await reader.run("films", "--json").json?["meta"] as? [String: Any])
            #expect(again["source"] as? String == "network", "\(again)")
            #expect(server.requests.count == 2 && server.requests[1].headers["if-none-match"] == "\"v1\"")
            let judged = try #require(again["http_cache"] as? [String: Any])
            #expect(judged["lifetime_from"] as? String == "expires" && judged["freshness_lifetime_seconds"] as? Int == 0)
            let listed = try #require(try await reader.run("cache", "list", "--json").json?["entries"] as? [[String: Any]])
            #expect(listed.map { $0["state"] as? String } == ["stale"])
        }
    }

    @Test(.replaysRecordings) func clearPruneAndPath() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("cache", "path").stdout == reader.cachePath + "\n")
            #expect(try await reader.run("cache", "path", "--json").json?["exists"] as? Bool == false)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("posts", "python").status == 0)

            #expect(try await reader.run("cache", "prune", "--older-than", "1h", "--json").json?["entries"] as? Int == 0)
            let cleared = try await reader.run("cache", "clear", "--service", "reddit")
            #expect(cleared.status == 0 && cleared.stdout.hasPrefix("removed 1 entry"))
            #expect(try await reader.run("posts", "python", "--offline").status == 69)
            #expect(try await reader.run("films", "--offline").status == 0, "the other API's entries stay")
            #expect(try await reader.run("cache", "prune", "--older-than", "0s", "--json").json?["entries"] as? Int == 1)
            #expect(try await reader.run("films", "--offline").status == 69)
            #expect(try await reader.run("cache", "clear", "--api", "gopher").status == 64, "arguments are validated")
            #expect(try await reader.run("cache", "clear", "--service", "SWAPI").status == 0, "a name is taken as typed in any case")
            let both = try await reader.run("cache", "clear", "--service", "swapi", "--api", "reddit")
            #expect(both.status == 64 && both.stderr.contains("--api is --service's first name: give one of them"), "\(both.stderr)")
            let unknown = try await reader.run("cache", "clear", "--service", "gopher")
            #expect(unknown.status == 64 && unknown.stderr.contains("--service gopher: no service of that name"), "\(unknown.stderr)")
        }
    }

    @Test(.replaysRecordings) func clearAndPruneEndWithWhatTheyRemovedOutOfTheFileItself() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("posts", "python").status == 0)
            func logSize() throws -> Int { try FileManager.default.attributesOfItem(atPath: reader.cachePath + "-wal")[.size] as? Int ?? -1 }
            /// The entries of the cache file alone, as a copy or a backup of it without its log holds them.
            func entriesInTheFileAlone() async throws -> Int? {
                let copy = reader.folder.appendingPathComponent("copy-\(UUID().uuidString)/cache.sqlite")
                try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: reader.cachePath, toPath: copy.path)
                let stats = try await reader.run("cache", "stats", "--json", "--cache-path", copy.path)
                return (stats.json?["total"] as? [String: Any])?["entries"] as? Int
            }
            #expect(try await entriesInTheFileAlone() == 2)

            // Each command shuts its client down: the log is copied into the file and emptied.
            let cleared = try await reader.run("cache", "clear", "--api", "reddit")
            #expect(cleared.status == 0 && cleared.stdout.hasPrefix("removed 1 entry"), "\(cleared.stderr)")
            #expect(try logSize() == 0)
            #expect(try await entriesInTheFileAlone() == 1)

            #expect(try await reader.run("cache", "prune", "--older-than", "0s", "--json").json?["entries"] as? Int == 1)
            #expect(try logSize() == 0)
            #expect(try await entriesInTheFileAlone() == 0)
        }
    }

    /// A program built on ReaderKit keeps its own service's entries in the same file:
    /// `reader cache` shows them and clears them by that service's name, and only them.
    @Test(.replaysRecordings) func anotherServicesEntriesAreShownAndClearedByItsName() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            do {
                let cache = try ResponseCache.open(path: reader.cachePath)
                for id in ["OL1W", "OL2W"] {
                    try await cache.store(CacheEntry(key: "https://openlibrary.org/works/\(id).json", service: "openlibrary",
                                               url: "https://openlibrary.org/works/\(id).json", status: 200,
                                               body: Data(#"{"title": "t"}"#.utf8), fetchedAt: Date()), sizeLimit: nil)
                }
                cache.close()
            }
            let stats = try #require(try await reader.run("cache", "stats", "--json").json)
            let apis = try #require(stats["apis"] as? [String: Any])
            #expect(Set(apis.keys) == ["swapi", "reddit", "openlibrary"])
            #expect((apis["openlibrary"] as? [String: Any])?["entries"] as? Int == 2)
            let table = try await reader.run("cache", "stats")
            let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ").first.map(String.init) ?? "" }
            #expect(Array(rows.drop { $0 != "API" }.prefix(5)) == ["API", "swapi", "reddit", "openlibrary", "total"])

            let cleared = try await reader.run("cache", "clear", "--api", "openlibrary")
            #expect(cleared.status == 0 && cleared.stdout.hasPrefix("removed 2 entries"), "\(cleared.stderr)")
            #expect(try await reader.run("films", "--offline").status == 0, "SWAPI's entry stays")
            let unknown = try await reader.run("cache", "clear", "--api", "openlibrary2")
            #expect(unknown.status == 64 && unknown.stderr.contains("R1001") && unknown.stderr.contains("known: swapi, reddit"), "\(unknown.stderr)")
            #expect(try await reader.run("cache", "clear", "--api", "Not A Name").status == 64)
        }
    }

    @Test(.replaysRecordings) func maxStaleRefusesAnOldCopyOffline() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("films", "--offline", "--max-stale", "1h").status == 0)
            let refused = try await reader.run("films", "--offline", "--max-stale", "0s")
            #expect(refused.status == 69 && refused.stderr.contains("error C1005"), "\(refused.stderr)")
            #expect(try await reader.run("films", "--max-wait", "soon").status == 64)
        }
    }
}
