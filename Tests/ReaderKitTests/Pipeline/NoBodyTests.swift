import Foundation
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// A `204 No Content`, and any 2xx without a body, where the endpoint allows none (its response
/// type is ``BodylessDecodable``): read, not D1002; where it needs a body, a failure: H204.
@Suite struct NoBodyTests {
    func decode<Value: Decodable>(_ type: Value.Type, status: Int, headers: HeaderFields = [:]) -> Result<Value, ReaderError> {
        Result { () throws(ReaderError) in
            try ResponseValidator.decode(type, from: HTTPResponse(status: status, headers: headers, body: Data()), url: "http://x/y")
        }
    }

    @Test func a204IsReadWhereTheEndpointAllowsNoBody() throws {
        #expect(try decode(NoContent.self, status: 204).get() == NoContent())
        #expect(try decode(JSONValue.self, status: 204).get() == .null)
        #expect(try decode(Film?.self, status: 204).get() == nil)
        #expect(try decode(NoContent.self, status: 200, headers: ["Content-Type": "text/plain"]).get() == NoContent(),
                "any 2xx without a body, whatever type it claims")
    }

    @Test func aBodyIsStillReadByABodylessType() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"a": 1}"#.utf8))
        #expect(try ResponseValidator.decode(JSONValue.self, from: response, url: "http://x/y") == .object(["a": .integer(1)]))
    }

    /// A 204 is said as the status it is (issue 30 item 22), no longer as JSON that is not (D1002).
    @Test func anEndpointThatNeedsABodyFailsAsThe204ItIs() {
        guard case .failure(let error) = decode(Film.self, status: 204, headers: ["Content-Type": "application/json"]) else {
            Issue.record("a film cannot be read from no body")
            return
        }
        #expect(error.code.description == "H204")
    }

    @Test func a204IsStoredAndReusedThroughTheClient() async throws {
        try await withShutdown(of: ClientHarness { _ in .respond(status: 204, headers: [("Cache-Control", "max-age=600")], body: []) }) { harness in
            try await withShutdown(of: harness.client()) { client in
                let ping = Endpoint<NoContent>(service: "swapi", path: "ping/")
                let first = try await client.load(ping)
                #expect(first.value == NoContent() && first.metadata.source == .network)
                harness.clock.advance(60)
                let second = try await client.load(ping)
                #expect(second.metadata.source == .cache && second.metadata.servedAs == .fresh)
                #expect(await client.notices.drain().isEmpty, "the stored copy is not dropped as damaged")
                #expect(harness.server.requests.count == 1)
            }
        }
    }
}
