import Foundation
import Testing
import TestSupport

/// A fresh stored 404 answers `reader people 9999` without the network, through the built binary
/// (issue 30 item 22): the same error and exit code as the server's 404, word for word; `--refresh`
/// asks again. SWAPI's 404 carries no freshness: heuristically
/// cacheable (RFC 9110 §15.1), it is fresh for the service's day.
@Suite(.processSlot) struct CachedNotFoundEndToEndTests {
    @Test func aFreshNotFoundAnswersWithoutARequest() async throws {
        try await withTestServer { _ in .json(Array(#"{"detail":"Not found"}"#.utf8), status: 404) } body: { server in
            let reader = ReaderProcess(server: server)
            let network = try await reader.run("people", "9999")
            #expect(network.status == 66, "\(network.stderr)")
            #expect(server.requests.count == 1)

            let cached = try await reader.run("people", "9999")
            #expect(server.requests.count == 1, "the stored 404 is the answer: no request")
            #expect(cached.status == 66, "\(cached.stderr)")
            let firstLine = { (text: String) in text.split(separator: "\n").first { $0.hasPrefix("error ") }.map(String.init) }
            #expect(firstLine(cached.stderr) == firstLine(network.stderr), "\(cached.stderr)")
            #expect(cached.stderr.contains("error A404: not found (404)"), "\(cached.stderr)")
            // The same error, and a hint that says it was stored and how to ask again.
            #expect(!network.stderr.contains("--refresh asks again"), "\(network.stderr)")
            #expect(cached.stderr.contains("; the server gave this answer ") && cached.stderr.contains(" ago and it is kept for a while; --refresh asks again"),
                    "\(cached.stderr)")
            let json = try await reader.run("people", "9999", "--json")
            #expect((json.errorJSON?["hint"] as? String)?.hasSuffix("ago and it is kept for a while; --refresh asks again") == true, "\(json.stderr)")
            #expect(server.requests.count == 1)

            let refreshed = try await reader.run("people", "9999", "--refresh")
            #expect(refreshed.status == 66 && server.requests.count == 2, "--refresh asks the server")
        }
    }

    /// `cache list` tells a stored error answer from a copy, in text (its status beside its state,
    /// within 40 columns) and in `--json` (`stored_error`, its ten minutes); `cache stats` does not
    /// count its replay as a hit.
    @Test func cacheListAndStatsTellAStoredErrorFromData() async throws {
        try await withTestServer { request in
            request.path == "/api/films/" ? .json(SWAPIResources.page("films")) : .json(Array(#"{"detail":"Not found"}"#.utf8), status: 404)
        } body: { server in
            var reader = ReaderProcess(server: server)
            #expect(try await reader.run("people", "9999").status == 66)
            #expect(try await reader.run("people", "9999").status == 66, "answered by the stored 404")
            #expect(try await reader.run("films").status == 0)
            #expect(server.requests.filter { $0.path.hasSuffix("/people/9999/") }.count == 1)

            let listed = try #require(try await reader.run("cache", "list", "--json").json?["entries"] as? [[String: Any]])
            let notFound = try #require(listed.first { ($0["url"] as? String)?.hasSuffix("/people/9999/") == true })
            let films = try #require(listed.first { ($0["url"] as? String)?.hasSuffix("/films/") == true })
            #expect(notFound["stored_error"] as? Bool == true && notFound["status"] as? Int == 404 && notFound["state"] as? String == "fresh")
            #expect((notFound["http_cache"] as? [String: Any])?["freshness_lifetime_seconds"] as? Int == 600, "ten minutes, not SWAPI's day")
            #expect(films["stored_error"] as? Bool == false && films["state"] as? String == "fresh")

            reader.environment["COLUMNS"] = "40"
            let table = try await reader.run("cache", "list")
            let lines = table.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.contains { $0.hasSuffix("  fresh 404") }, "the row's state: \(table.stdout)")
            #expect(lines.allSatisfy { $0.count <= 40 }, "\(table.stdout)")
            #expect(lines.joined(separator: " ").contains("(fresh 404) is a stored error answer"), "the note says what the status means: \(table.stdout)")

            let stats = try #require(try await reader.run("cache", "stats", "--json").json)
            let swapi = try #require((stats["apis"] as? [String: Any])?["swapi"] as? [String: Any])
            #expect(swapi["hits"] as? Int == 0, "the replayed 404 is no hit: \(swapi)")
        }
    }
}
