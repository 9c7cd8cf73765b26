import Foundation
import Testing
import TestSupport

/// Open Library registered into `reader` by one line (`reader-openlibrary`): the app's shell
/// offers it everywhere it offers SWAPI and Reddit, with nothing of the app changed.
@Suite struct RegisteredServiceTests {
    /// Open Library's answers, SWAPI's root and one Reddit listing (the tests' own), all from one loopback server.
    static func route(_ request: TestServer.Request) -> TestServer.Reply {
        switch request.path {
        case "/api/", "/api", "/hot.json": SampleAPI.route(request)
        default: OpenLibraryFixtures.route(request)
        }
    }

    static func reader(_ server: TestServer) -> OpenLibraryProcess {
        var reader = OpenLibraryProcess(server: server)
        reader.program = "reader-openlibrary"
        reader.environment["READER_SWAPI_URL"] = server.baseURL + "/api"
        reader.environment["READER_REDDIT_URL"] = server.baseURL
        return reader
    }

    @Test func statusChecksItBesideTheBuiltInServices() async throws {
        try await withTestServer(Self.route) { server in
            let reader = Self.reader(server)
            let status = try await reader.run("status", "--json")
            #expect(status.status == 0, "\(status.stderr)")
            let services = (status.json?["services"] as? [[String: Any]])?.compactMap { $0["api"] as? String }
            #expect(services == ["swapi", "reddit", "openlibrary"], "\(status.stdout)")
            #expect(status.json?["reachable"] as? Bool == true)
            #expect(server.requests.contains { $0.path == "/search.json" && $0.query["limit"] == "1" }, "\(server.requests.map(\.path))")
        }
    }

    @Test func configShowsItsSettingsAndWhereTheyComeFrom() async throws {
        try await withTestServer(Self.route) { server in
            let reader = Self.reader(server)
            let config = try await reader.run("config", "--json")
            #expect(config.status == 0, "\(config.stderr)")
            let settings = config.json?["settings"] as? [String: [String: Any]]
            #expect(settings?["openlibrary.url"]?["value"] as? String == server.baseURL)
            #expect(settings?["openlibrary.url"]?["from"] as? String == "$OPENLIBRARY_URL")
            #expect(settings?["openlibrary.works"]?["source"] as? String == "default")
            #expect(settings?["swapi.url"]?["value"] as? String == server.baseURL + "/api")
        }
    }

    @Test func syncKeepsItsWorksAndItsCommandReadsThemOffline() async throws {
        try await withTestServer(Self.route) { server in
            let reader = Self.reader(server)
            let sync = try await reader.run("sync", "openlibrary", "OL45804W")
            #expect(sync.status == 0, "\(sync.stderr)")
            #expect(sync.stdout.hasPrefix("sync openlibrary: 1 fetched"), "\(sync.stdout)")
            #expect(server.requests.map(\.path) == ["/works/OL45804W.json"])

            let work = try await reader.run("work", "OL45804W", "--offline")
            #expect(work.status == 0, "\(work.stderr)")
            #expect(work.stdout == "Fantastic Mr Fox\nfirst published 1970\n", "\(work.stdout)")
            let json = try await reader.run("work", "OL45804W", "--offline", "--json")
            #expect((json.json?["meta"] as? [String: Any])?["source"] as? String == "cache", "\(json.stdout)")
            #expect(server.requests.count == 1, "--offline never touches the network")

            // Its failures are reader's: a code, its service's explanation, an exit code.
            let missing = try await reader.run("work", "OL0W")
            #expect(missing.status == 66, "\(missing.stderr)")
            #expect(missing.stderr.contains("Open Library has no work OL0W"), "\(missing.stderr)")

            // A wrong argument is refused before any request, in the service's words.
            let before = server.requests.count
            let wrong = try await reader.run("sync", "openlibrary")
            #expect(wrong.status == 64 && wrong.stderr.contains("openlibrary needs at least one work id"), "\(wrong.stderr)")
            #expect(server.requests.count == before)
        }
    }

    @Test func theHelpAndTheManPageOfferIt() async throws {
        var reader = OpenLibraryProcess()
        reader.program = "reader-openlibrary"
        let help = try await reader.run("--help")
        #expect(help.stdout.contains("work") && help.stdout.contains("Show an Open Library work."), "\(help.stdout)")
        #expect(help.stdout.contains("OPENLIBRARY_URL"), "\(help.stdout)")
        let sync = try await reader.run("sync", "--help")
        let words = sync.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("openlibrary followed by work ids") && words.contains("Open Library's works"), "\(sync.stdout)")
        let manual = try await reader.run("manual")
        #expect(manual.stdout.contains(".B OPENLIBRARY_URL\n") && manual.stdout.contains(".SS reader work"))
    }
}
