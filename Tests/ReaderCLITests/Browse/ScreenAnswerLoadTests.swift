import Foundation
import ReaderCLI
import ReaderKit
import Testing
import TestSupport

/// `ScreenAnswer.load(through:options:_:adjusting:)`, the load step every screen's work takes:
/// the endpoint built, loaded through a real client of the test's server, answered as the screen
/// reads it and as the browser reads it.
@Suite struct ScreenAnswerLoadTests {
    /// A client of the test's server, SWAPI at `/api`, with no cache file.
    static func client(_ server: TestServer) -> ReaderClient {
        ReaderClient(configuration: .init(services: ServiceConfiguration([SWAPIService(baseURL: URL(string: server.baseURL + "/api")!)]),
                                          timeout: .seconds(60)))
    }

    /// The failure the answer shows, the same in the screen's payload and in the browser's report.
    static func failure<Value: Sendable>(_ answer: ScreenAnswer, of _: Value.Type) -> BrowseFailure? {
        guard case .failed(let shown)? = answer.payload as? LoadResult<Value>, case .failed(let reported)? = answer.report,
              shown == reported else { return nil }
        return shown
    }

    /// An argument the service refuses is the failure the screen shows, with its code and the
    /// commands' hint, as a failed load's; and nothing is sent.
    @Test func anErrorBuildingTheEndpointIsTheFailureShownAndNothingIsSent() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let client = Self.client(server)
            let answer = await ScreenAnswer.load(through: client, options: LoadOptions()) { () throws(ReaderError) in
                try SWAPI.resource(Person.self, id: 0)
            }
            let failure = try #require(Self.failure(answer, of: Person.self), "\(answer)")
            #expect(failure.code == "R1001")
            #expect(CLIWording.message(of: failure.error) == "the id must be a whole number from 1 to 1000000, got 0")
            #expect(CLIWording(registry: .builtIn).text(of: failure.hints) == "see 'reader help' for the arguments each command takes")
            #expect(server.requests.isEmpty)
            await client.shutdown()
        }
    }

    /// The endpoint is loaded with the options the browser gave (offline: from the cache only),
    /// and the value reaches the screen adjusted, its metadata with it.
    @Test func theEndpointLoadsWithTheBrowsersOptionsAndTheValueIsAdjusted() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let client = Self.client(server)
            let offline = await ScreenAnswer.load(through: client, options: LoadOptions(cacheMode: .offline)) { () throws(ReaderError) in
                try SWAPI.list(Person.self)
            }
            #expect(Self.failure(offline, of: SWAPIPage<Person>.self)?.code == "C1001")
            #expect(server.requests.isEmpty)

            let answer = await ScreenAnswer.load(through: client, options: LoadOptions()) { () throws(ReaderError) in
                try SWAPI.list(Person.self)
            } adjusting: { page in
                page.results.removeAll { !$0.name.hasPrefix("L") }
            }
            guard case .loaded(let page, let metadata)? = answer.payload as? LoadResult<SWAPIPage<Person>>,
                  case .loaded(let reported, servedInsteadOf: nil)? = answer.report else {
                Issue.record("not loaded: \(answer)")
                return
            }
            #expect(page.results.map(\.name) == ["Luke Skywalker", "Leia Organa"])
            #expect(page.count == 82)
            #expect(metadata.source == .network)
            #expect(reported.source == .network)
            #expect(server.requests.map(\.path) == ["/api/people/"])
            await client.shutdown()
        }
    }

    /// Without a client (a screen's tests) the answer is a failure, never a load that never ends;
    /// an endpoint refused still says why.
    @Test func withoutAClientTheAnswerIsAFailure() async throws {
        let answer = await ScreenAnswer.load(through: nil, options: LoadOptions()) { () throws(ReaderError) in
            try SWAPI.resource(Person.self, id: 1)
        }
        #expect(Self.failure(answer, of: Person.self)?.code == "B1001")
        let refused = await ScreenAnswer.load(through: nil, options: LoadOptions()) { () throws(ReaderError) in
            try SWAPI.resource(Person.self, id: 0)
        }
        #expect(Self.failure(refused, of: Person.self)?.code == "R1001")
    }
}
