import Foundation
import OpenLibraryKit
import ReaderKit
import Testing
import TestSupport

/// Open Library through a ``ReaderClient``, as a library user would read it: a real cache file in
/// a temporary folder, the loopback server, and a clock and a sleeper of the test's own.
extension ReaderClient: ShutsDown {}

@Suite struct OpenLibraryClientTests {
    /// A moment to start from; the clients below see time only through it.
    static let start = Date(timeIntervalSince1970: 1_780_000_000)

    /// Removed with this test's instance of the suite.
    let scratch = TemporaryFolder("openlibrary-client")
    var cachePath: String { scratch.url.appendingPathComponent("cache/cache.sqlite").path }

    func client(_ server: TestServer, at now: Date = start) throws -> ReaderClient {
        let service = try OpenLibrary(baseURL: URL(string: server.baseURL)!)
        return ReaderClient(configuration: .init(services: ServiceConfiguration([service]), cachePath: cachePath),
                            sleep: { _ in }, now: { now })
    }

    @Test func aStaleCopyIsServedWhenTheServerRefusesAndSaysSoOnce() async throws {
        // Given a copy read two hours ago (its lifetime is one)
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let fresh = try await withShutdown(of: client(server)) { earlier in
                try await earlier.load(try OpenLibrary.work("OL45804W"))
            }
            #expect(fresh.metadata.source == .network)
            await server.shutdown()

            // When the server no longer accepts connections
            let (loaded, notices) = try await withShutdown(of: client(server, at: Self.start.addingTimeInterval(7_200))) { later in
                (try await later.load(try OpenLibrary.work("OL45804W")), await later.notices.drain())
            }

            // Then the copy is served, stale, with the transport failure's code, in one notice
            #expect(loaded.value.title == "Fantastic Mr Fox")
            #expect(loaded.metadata.source == .cache)
            #expect(loaded.metadata.stale)
            #expect(loaded.metadata.ageSeconds == 7_200)
            #expect(loaded.metadata.errorCode == ErrorCode(.transport, 1004))
            #expect(notices.map(\.notice.kind) == [.staleData])
            #expect(notices.map(\.notice.code) == [ErrorCode(.transport, 1004)])
            #expect(server.requests.count == 1)
        }
    }

    @Test func withinItsLifetimeACopyIsServedWithoutAsking() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            try await withShutdown(of: client(server)) { earlier in
                _ = try await earlier.load(try OpenLibrary.search("lord of the rings", limit: 3))
            }

            // 59 minutes later: within the hour.
            let loaded = try await withShutdown(of: client(server, at: Self.start.addingTimeInterval(59 * 60))) { later in
                try await later.load(try OpenLibrary.search("lord of the rings", limit: 3))
            }

            #expect(loaded.metadata.source == .cache)
            #expect(!loaded.metadata.stale)
            #expect(loaded.value.numberFound == 629)
            #expect(server.requests.count == 1)
        }
    }

    @Test func aMissingWorkFailsWithOpenLibrarysExplanation() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let failure = try await withShutdown(of: client(server)) { client in
                await #expect(throws: LoadFailure.self) { try await client.load(try OpenLibrary.work("OL0W")) }
            }

            #expect(failure?.error.code == ErrorCode(.api, 404))
            #expect(failure?.error.message == "Open Library has no work OL0W")
            #expect(failure?.error.reason == "not_found")
            #expect(failure?.error.exitCode == .notFound)
            #expect(failure?.hints.text == "check the id: a work's id is OL, digits and W, such as OL45804W")
            #expect(server.requests.count == 1)
        }
    }

    @Test func aServerErrorPageIsRetriedThenReportedAsItsStatus() async throws {
        try await withTestServer { _ in OpenLibraryFixtures.unavailable } body: { server in
            let failure = try await withShutdown(of: client(server)) { client in
                await #expect(throws: LoadFailure.self) { try await client.load(try OpenLibrary.author("OL23919A")) }
            }

            // nginx's HTML is no error body of Open Library's: an HTTP status, not an API's answer.
            #expect(failure?.error.code == ErrorCode(.http, 503))
            #expect(failure?.error.exitCode == .unavailable)
            // The first request and the default policy's three retries.
            #expect(server.requests.count == 4)
        }
    }
}
