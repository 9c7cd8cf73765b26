import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// A resource's links that could not be named say whether another run (a sync) may name them:
/// a service that failed for a while may, a not-found never will.
@Suite struct LinkedNamesTests {
    @Test func onlyTheLinksAnotherRunMayNameAreReadableLater() async throws {
        let person = Array(#"{"name":"Luke Skywalker","url":"https://swapi.dev/api/people/1/"}"#.utf8)
        try await withShutdown(of: ClientHarness { request in
            switch request.path {
            case "/api/people/1/": .respond(status: 200, headers: [("Content-Type", "application/json")], body: person)
            case "/api/people/2/": .respond(status: 404, headers: [("Content-Type", "application/json")], body: Array(#"{"detail":"Not found"}"#.utf8))
            default: .respond(status: 503, headers: [("Content-Type", "text/html")], body: Array("<p>down</p>".utf8))
            }
        }) { harness in
            await withShutdown(of: harness.client(retryPolicy: RetryPolicy(maximumRetries: 0))) { client in
                let base = harness.server.baseURL + "/api/people/"
                let names = await client.names(of: [base + "1/", base + "2/", base + "3/"])
                #expect(names.names == [base + "1/": "Luke Skywalker"])
                #expect(names.failures == [base + "2/": ErrorCode(.api, 404), base + "3/": ErrorCode(.http, 503)])
                #expect(names.readableLater == [base + "3/"])
            }
        }
    }
}
