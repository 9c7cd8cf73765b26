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
            #expect(cached.stderr == network.stderr, "the same error, word for word")

            let refreshed = try await reader.run("people", "9999", "--refresh")
            #expect(refreshed.status == 66 && server.requests.count == 2, "--refresh asks the server")
        }
    }
}
