import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// A `stale-while-revalidate` copy answers at once, through the built binary: the revalidation
/// behind it does not hold the output back (found by the attack on issue 23, where the answer
/// waited for the revalidation, up to the whole timeout), and still reaches the cache before
/// reader exits.
@Suite(.processSlot) struct StaleWhileRevalidateEndToEndTests {
    @Test
    func theAnswerIsWrittenWhileTheRevalidationBehindItIsStillOut() async throws {
        // A revalidation is held until the test has seen reader's output; one that comes after is
        // answered at once. Either way the answer cannot have waited for it.
        let state = NIOLockedValueBox((holding: false, seen: false, held: [@Sendable (TestServer.Reply) -> Void]()))
        let confirmed = TestServer.Reply.respond(status: 304, headers: [("Cache-Control", "max-age=600")], body: [])
        try await withTestServer { request in
            guard request.path.hasSuffix("/films/"), case .respond(let status, let headers, let body) = SampleAPI.route(request) else {
                return SampleAPI.route(request)
            }
            // The recording's own Date would age the copy past any window: only its type and validator are kept.
            let fresh = TestServer.Reply.respond(status: status, headers: headers.filter { ["content-type", "etag"].contains($0.0.lowercased()) }
                + [("Cache-Control", "max-age=0, stale-while-revalidate=1000")], body: body)
            let (holding, seen) = state.withLockedValue { ($0.holding, $0.seen) }
            guard holding else { return fresh }
            if seen { return confirmed }
            return .deferred { answer in
                let answerNow = state.withLockedValue { current -> Bool in
                    if current.seen { return true }
                    current.held.append(answer)
                    return false
                }
                if answerNow { answer(confirmed) }
            }
        } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            state.withLockedValue { $0.holding = true }

            // Were the answer to wait for the revalidation, it would wait out the 90 s timeout, the
            // revalidation would fail, and the last run below would need a request.
            let (running, sawText) = try await reader.launch(["films", "--timeout", "90s"], untilStandardErrorContains: "A New Hope",
                                                             in: .standardOutput) { _ in
                // Seen: now let the revalidation through, confirmed.
                let held = state.withLockedValue { current in
                    current.seen = true
                    defer { current.held = [] }
                    return current.held
                }
                for answer in held { answer(confirmed) }
            }
            let result = await running.wait()
            #expect(sawText && result.status == 0, "\(result.stderr)")
            #expect(server.requests.count == 2, "the revalidation was sent, behind the answer")

            // It reached the cache before reader exited: the next run needs no request.
            state.withLockedValue { $0.holding = false }
            #expect(try await reader.run("films").status == 0)
            #expect(server.requests.count == 2)
        }
    }

    /// What a server put in a header reaches `cache list --json` escaped, as in every `--json`
    /// (found by the attack on issue 23: JSONEncoder wrote U+202E and the C1 controls raw).
    @Test func cacheListJSONEscapesWhatTheServerSent() async throws {
        try await withTestServer { request in
            guard case .respond(let status, let headers, let body) = SampleAPI.route(request) else { return SampleAPI.route(request) }
            return .respond(status: status, headers: headers.filter { $0.0.lowercased() != "etag" } + [("ETag", "\"a\u{202E}b\u{85}c\"")], body: body)
        } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            let list = try await reader.run("cache", "list", "--json")
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains(#"a\u202eb\u0085c"#), "\(list.stdout)")
            #expect(!list.stdout.contains("\u{202E}") && !list.stdout.contains("\u{85}"))
        }
    }
}
