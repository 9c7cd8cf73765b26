import Foundation
import Testing
import TestSupport

/// The built `openlibrary` executable against a loopback Open Library: what it prints, what it
/// asks the server, and the exit code ReaderKit gives each failure.
@Suite struct OpenLibraryCommandTests {
    static let fantasticMrFox = """
        Fantastic Mr Fox
        by Roald Dahl
        first published 1970
        subjects: Animals, Hunger, Juvenile fiction, Foxes, Fiction, Tunnels and 4 more

        Three farmers, Boggis, Bunce and Bean, set out to catch the fox who steals from their farms.

        Mr Fox digs deeper, and feeds his family and his neighbours underground.

        """

    @Test func aWorkIsReadFromTheNetworkWithItsAuthorAndTheUserAgentOpenLibraryAsksFor() async throws {
        // Given
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let command = OpenLibraryProcess(server: server, contact: "books@example.org")

            // When
            let result = try await command.run("work", "OL45804W")

            // Then
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == Self.fantasticMrFox)
            #expect(result.stderr == "")
            #expect(server.requests.map(\.target) == ["/works/OL45804W.json", "/authors/OL34184A.json"])
            #expect(server.requests.map { $0.headers["user-agent"] } == Array(repeating: "openlibrary-example/0.1.0 (ReaderKit; books@example.org)", count: 2))
        }
    }

    @Test func withoutAContactTheUserAgentNamesTheApplicationAlone() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server, contact: nil).run("author", "ol23919a")

            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == """
                J. K. Rowling
                born 31 July 1965

                Joanne Rowling, who writes as J. K. Rowling, is a British author best known for the Harry Potter series.

                """)
            // The id is asked for as Open Library writes it, whatever case it was typed in.
            #expect(server.requests.map(\.target) == ["/authors/OL23919A.json"])
            #expect(server.requests.first?.headers["user-agent"] == "openlibrary-example/0.1.0 (ReaderKit)")
        }
    }

    @Test func aSecondRunIsServedFromTheCacheWithoutAskingTheServer() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let command = OpenLibraryProcess(server: server)
            let first = try await command.run("work", "OL45804W")
            #expect(first.status == 0, "\(first.stderr)")
            #expect(server.requests.count == 2)

            let second = try await command.run("work", "OL45804W")

            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout == Self.fantasticMrFox)
            #expect(second.stderr == "")
            #expect(server.requests.count == 2)
        }
    }

    @Test func whenTheServerIsGoneTheCachedCopyIsShownWithANotice() async throws {
        // Given a copy read earlier, and a server that no longer accepts connections
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let command = OpenLibraryProcess(server: server)
            #expect(try await command.run("work", "OL45804W").status == 0)
            await server.shutdown()

            // When the network is asked (--refresh) and refuses
            let result = try await command.run("work", "OL45804W", "--refresh")

            // Then the copy is shown, and stderr says why it is a copy
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == Self.fantasticMrFox)
            let notices = result.stderr.split(separator: "\n")
            #expect(!notices.isEmpty && notices.allSatisfy { $0.hasPrefix("notice T1004: showing cached data from ") }, "\(result.stderr)")
            #expect(result.stderr.contains("cannot connect to 127.0.0.1:\(server.port): nothing accepted the connection"), "\(result.stderr)")
        }
    }

    @Test func anUnreachableServiceWithNothingCachedIsHintedInThisCommandsWords() async throws {
        // A port bound and not listening: the connection is refused.
        let reserved = try TestServer.ReservedPort()
        defer { close(reserved.socket) }
        let result = try await OpenLibraryProcess(baseURL: "http://127.0.0.1:\(reserved.port)").run("work", "OL45804W")

        #expect(result.status == 75)
        #expect(result.stdout == "")
        #expect(result.stderr == """
            error T1004: cannot connect to 127.0.0.1:\(reserved.port): nothing accepted the connection
              hint: check your connection and the service address (OPENLIBRARY_URL), and try again; \
            nothing is cached for this request yet, so --offline cannot show it either

            """)
    }

    @Test func aWorkOpenLibraryDoesNotHaveIsA404InItsOwnWords() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server).run("work", "OL0W")

            #expect(result.status == 66)
            #expect(result.stdout == "")
            #expect(result.stderr == """
                error A404: Open Library has no work OL0W
                  hint: check the id: a work's id is OL, digits and W, such as OL45804W

                """)
            #expect(server.requests.map(\.target) == ["/works/OL0W.json"])
        }
    }

    @Test func anErrorBodyOnAnotherStatusIsReadAsOpenLibrarysOwn() async throws {
        // Infobase's bad_data, which it sends with a 400.
        try await withTestServer { _ in .json(OpenLibraryFixtures.bytes("error_400_bad_data.json"), status: 400) } body: { server in
            let result = try await OpenLibraryProcess(server: server).run("work", "OL45804W")

            #expect(result.status == 76)
            #expect(result.stderr.hasPrefix("""
                error A400: the server answered 400 Bad Request: the server says "bad_data: expected /type/int, found /type/string"

                """), "\(result.stderr)")
            // A client error is the request's fault: not asked again.
            #expect(server.requests.count == 1)
        }
    }

    @Test func aServerErrorPageIsAnHTTPStatusNotAnErrorBody() async throws {
        // A 500 without Retry-After is not retried, so the command ends at once.
        try await withTestServer { _ in
            .respond(status: 500, headers: [("Content-Type", "text/html")], body: Array("<html><title>500</title></html>".utf8))
        } body: { server in
            let result = try await OpenLibraryProcess(server: server).run("search", "dahl")

            #expect(result.status == 69)
            #expect(result.stderr.hasPrefix("error H500: the server answered 500 Internal Server Error\n"), "\(result.stderr)")
            #expect(server.requests.count == 1)
        }
    }

    @Test func offlineWithoutACopyFailsWithoutTouchingTheNetwork() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server).run("work", "OL45804W", "--offline")

            #expect(result.status == 69)
            #expect(result.stdout == "")
            #expect(result.stderr.hasPrefix("error C1001: offline, and nothing is cached for this request\n"), "\(result.stderr)")
            #expect(server.requests.isEmpty)
        }
    }

    @Test func offlineWithACopyShowsItWithTheServerGone() async throws {
        // A copy that is never fresh (no-cache): only --offline shows it without asking the network.
        try await withTestServer { request in
            guard case .respond(let status, let headers, let body) = OpenLibraryFixtures.route(request) else { return .close }
            return .respond(status: status, headers: headers + [("Cache-Control", "no-cache")], body: body)
        } body: { server in
            let command = OpenLibraryProcess(server: server)
            #expect(try await command.run("search", "lord of the rings", "--limit", "3").status == 0)
            await server.shutdown()

            let result = try await command.run("search", "lord of the rings", "--limit", "3", "--offline")

            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == """
                OL27448W    1954  The Lord of the Rings — J.R.R. Tolkien
                OL14933414W 1954  The Fellowship of the Ring — J.R.R. Tolkien
                OL5720023W  2001  The Lord of the Rings Official Movie Guide — Brian Sibley, J.R.R. Tolkien

                """)
            #expect(result.stderr == "3 of 629 works\n")
            #expect(server.requests.count == 1)
        }
    }

    @Test func aSearchAsksForItsTextLimitAndFieldsOnSearchJSON() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server).run("search", "  lord of the rings ", "--limit", "3")

            #expect(result.status == 0, "\(result.stderr)")
            let request = try #require(server.requests.first)
            #expect(request.path == "/search.json")
            #expect(request.query == ["q": "lord of the rings", "limit": "3",
                                      "fields": "key,title,author_name,author_key,first_publish_year,edition_count"])
        }
    }

    @Test func aSearchThatFindsNothingSaysSo() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server).run("search", "qwxzv no such book")

            #expect(result.status == 0)
            #expect(result.stdout == "nothing found\n")
            #expect(result.stderr == "")
        }
    }

    @Test func jsonIsOpenLibrarysRecordWithWhereItCameFrom() async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server).run("work", "OL45804W", "--json")

            #expect(result.status == 0, "\(result.stderr)")
            let item = result.json?["item"] as? [String: Any]
            let meta = result.json?["meta"] as? [String: Any]
            #expect(item?["title"] as? String == "Fantastic Mr Fox")
            #expect(item?["key"] as? String == "/works/OL45804W")
            #expect(meta?["source"] as? String == "network")
            #expect(meta?["url"] as? String == "\(server.baseURL)/works/OL45804W.json")
            // The record alone is the answer: no author is read for it.
            #expect(server.requests.count == 1)
        }
    }

    @Test(arguments: [
        (["work", "OL23919A"], "error R1001: OL23919A is an author's id; a work's id ends in W, such as OL45804W"),
        (["work", "45804"], "error R1001: \"45804\" is not a work's id: OL, digits and W, such as OL45804W"),
        (["author", "OL12345678901A"], "error R1001: \"OL12345678901A\" is not an author's id: OL, digits and A, such as OL23919A"),
        (["search", "   "], "error R1001: the search needs some text"),
        (["search", "dahl", "--limit", "101"], "error R1001: --limit must be a whole number from 1 to 100, got 101"),
        (["work", "OL45804W", "--bogus"], "error R1001: Unknown option '--bogus'"),
        (["work", "OL45804W", "--offline", "--refresh"], "error R1001: --offline and --refresh cannot be used together"),
    ])
    func argumentsOpenLibraryCannotHaveAreRefusedBeforeAnyRequest(arguments: [String], firstLine: String) async throws {
        try await withTestServer(OpenLibraryFixtures.route) { server in
            let result = try await OpenLibraryProcess(server: server).run(arguments)

            #expect(result.status == 64)
            #expect(result.stderr.split(separator: "\n").map(String.init) == [
                firstLine, "  hint: see 'openlibrary help' for the arguments each command takes; 'openlibrary search TEXT' shows works' ids",
            ], "\(result.stderr)")
            #expect(server.requests.isEmpty)
        }
    }

    @Test(arguments: [
        (["OPENLIBRARY_URL": "ftp://openlibrary.org"], "error R1002: OPENLIBRARY_URL is not an http or https URL with a host: \"ftp://openlibrary.org\""),
        (["OPENLIBRARY_CONTACT": "me) X-Injected: yes"],
         "error R1002: OPENLIBRARY_CONTACT must be an email address or URL of at most 100 printable ASCII characters, without parentheses"),
    ])
    func aBrokenEnvironmentIsAConfigurationError(variables: [String: String], firstLine: String) async throws {
        var command = OpenLibraryProcess()
        command.environment.merge(variables) { $1 }
        let result = try await command.run("work", "OL45804W")
        #expect(result.status == 78)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == firstLine, "\(result.stderr)")
    }
}
