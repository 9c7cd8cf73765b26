import Foundation
import Testing
import TestSupport
@testable import ReaderKit

/// A load still under way when its client is shut down (a browse screen's background work as the
/// program quits) made a new transport, left for AsyncHTTPClient to find unclosed: a trap, one
/// quit in eight. Once shut down, a client sends nothing more.
@Suite struct ShutDownClientTests {
    @Test func aLoadAfterShutdownSendsNothingAndFails() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let client = ReaderClient(configuration: .init(services: ServiceConfiguration([SWAPIService(baseURL: URL(string: server.baseURL + "/api")!)])),
                                      sleep: { _ in })
            _ = try await client.load(try SWAPI.list(Film.self))
            await client.shutdown()
            let sent = server.requests.count
            let endpoint = try SWAPI.list(Film.self)
            do throws(LoadFailure) {
                _ = try await client.load(endpoint, options: LoadOptions(cacheMode: .refresh))
                Issue.record("a shut-down client loaded")
            } catch {
                #expect(error.error.code.description == "T1000", "\(error.error)")
            }
            #expect(server.requests.count == sent)
        }
    }
}
