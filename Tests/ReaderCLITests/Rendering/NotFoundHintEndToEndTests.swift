import Foundation
import Testing
import TestSupport

/// A not-found is about the name or id only when the API says so (issue 30 item 16): SWAPI's own
/// `{"detail":"Not found"}`. A web server's 404 page is what a wrong address gets for the root or
/// a collection (`READER_SWAPI_URL` without `/api`), and the hint points at the address setting.
@Suite(.processSlot) struct NotFoundHintEndToEndTests {
    @Test(.replaysRecordings) func aNotFoundPageThatIsNotTheAPIsPointsAtTheAddress() async throws {
        try await withTestServer { _ in
            .respond(status: 404, headers: [("Content-Type", "text/html; charset=utf-8")], body: Fixtures.bytes("swapi/unknown_resource_404.html"))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "2")
            #expect(result.status == 66, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error H404:"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: check the service address (READER_SWAPI_URL"), "\(result.stderr)")
            #expect(result.stderr.contains("the not-found is not the service's own, so the name or id may be right"), "\(result.stderr)")
            #expect(!result.stderr.contains("check the name or id"), "\(result.stderr)")
        }
    }

    @Test(.replaysRecordings) func theAPIsOwnNotFoundIsAboutTheId() async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("swapi/people_9999_not_found.json"), status: 404) } body: { server in
            let result = try await ReaderProcess(server: server).run("people", "9999")
            #expect(result.stderr.contains("hint: check the name or id"), "\(result.stderr)")
            #expect(!result.stderr.contains("READER_SWAPI_URL"), "\(result.stderr)")
        }
    }
}
