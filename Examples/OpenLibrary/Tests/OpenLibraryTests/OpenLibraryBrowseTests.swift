import Foundation
import Testing
import TestSupport

/// `reader browse openlibrary/TEXT` in tmux, from `reader-openlibrary`: a plug-in's screens, made
/// on `reader`'s public browse API alone, shown by `reader`'s browser (its bottom line, its keys),
/// against the loopback server.
@Suite struct OpenLibraryBrowseTests {
    /// The first result of the search fixture, as its work record.
    static let work = """
        {"key": "/works/OL27448W", "title": "The Lord of the Rings", "first_publish_date": "1954",
         "subjects": ["Fantasy fiction", "Middle Earth (Imaginary place)"],
         "description": "An epic in three volumes."}
        """

    static func route(_ request: TestServer.Request) -> TestServer.Reply {
        request.path == "/works/OL27448W.json" ? .json(Array(work.utf8)) : OpenLibraryFixtures.route(request)
    }

    /// The bottom line of a 24-row screen.
    static func bottom(_ screen: String) -> Substring {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count > 23 ? lines[23] : ""
    }

    static func start(_ reader: OpenLibraryProcess, _ arguments: String...) async throws -> TmuxTerminal {
        try await TmuxTerminal.start(OpenLibraryProcess.executable("reader-openlibrary"), folder: reader.folder,
                                     environment: reader.environment, owner: reader.scratch, columns: 80, rows: 24, arguments: arguments)
    }

    @Test func aSearchListsItsWorksEnterOpensOneAndQWalksBack() async throws {
        try await withTestServer(Self.route) { server in
            let terminal = try await Self.start(OpenLibraryProcess(server: server), "browse", "openlibrary/lord of the rings")
            let (list, listed) = try await terminal.waitForScreen { Self.bottom($0).hasPrefix("openlibrary/lord of the rings · 3 of 629 works") }
            #expect(listed, "\(list)")
            #expect(list.hasPrefix("The Lord of the Rings · J.R.R. Tolkien (1954)\nThe Fellowship of the Ring"), "\(list)")
            try await terminal.press("Enter")
            let (work, opened) = try await terminal.waitForScreen { Self.bottom($0).hasPrefix("openlibrary/OL27448W · The Lord of the Rings") }
            #expect(opened, "\(work)")
            #expect(work.contains("first published 1954") && work.contains("An epic in three volumes."), "\(work)")
            try await terminal.press("q")
            #expect(try await terminal.waitForScreen { Self.bottom($0).hasPrefix("openlibrary/lord of the rings · 3 of 629 works") }.ok)
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
            #expect(server.requests.map(\.path) == ["/search.json", "/works/OL27448W.json"])
        }
    }

    @Test func aWorkThatIsNotThereIsTheBrowsersBannerWithItsCode() async throws {
        try await withTestServer(Self.route) { server in
            let terminal = try await Self.start(OpenLibraryProcess(server: server), "browse", "openlibrary/OL0W")
            let (banner, shown) = try await terminal.waitForScreen { $0.contains("r to try again · q to quit") }
            #expect(shown, "\(banner)")
            #expect(banner.contains("Open Library has no work OL0W"), "\(banner)")
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
        }
    }
}
