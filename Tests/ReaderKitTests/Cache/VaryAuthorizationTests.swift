import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// `Vary: Authorization` compares whether a credential was sent (issue 30 item 23): the
/// authenticator adds it as the request goes out, after the fields the cache judged were made, so
/// both cases were stored as "sent none" and a copy fetched with a token answered a request without.
@Suite struct VaryAuthorizationTests {
    let scratch = TemporaryFolder("reader-vary-authorization")
    var cachePath: String { scratch.url.appendingPathComponent("cache/cache.sqlite").path }

    typealias Widgets = ServiceExtensionPointTests.Widgets
    typealias Widget = ServiceExtensionPointTests.Widget

    func client(_ service: Widgets) -> ReaderClient {
        ReaderClient(configuration: .init(services: ServiceConfiguration([service]), cachePath: cachePath, timeout: .seconds(30)),
                     sleep: { _ in })
    }

    @Test func aCopyFetchedWithACredentialDoesNotAnswerARequestWithout() async throws {
        try await withTestServer { _ in
            .json(Array(#"{"id": 5, "name": "gear"}"#.utf8), headers: [("Cache-Control", "max-age=3600"), ("Vary", "Authorization")])
        } body: { server in
            let base = URL(string: server.baseURL + "/v2")!
            let tokens = ServiceExtensionPointTests.Tokens(origin: Origin(URL(string: server.baseURL)!)!)
            try await withShutdown(of: client(Widgets(baseURL: base, authenticator: tokens))) { client in
                _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/5"))
                // Fresh, and asked for with a credential again: from the cache.
                _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/5"))
            }
            #expect(server.requests.count == 1)
            let stored = try await ResponseCache.open(path: cachePath).listing().map(\.entry.varyRequest)
            #expect(stored == ["authorization: present"])
            // Without a credential: the copy does not match, the network is asked.
            try await withShutdown(of: client(Widgets(baseURL: base))) { client in
                _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/5"))
            }
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.headers["authorization"] == nil)
        }
    }
}
