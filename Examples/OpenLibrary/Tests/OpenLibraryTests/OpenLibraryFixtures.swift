import Foundation
import TestSupport

/// The answers in `Examples/OpenLibrary/Fixtures`, made by hand in Open Library's shape, and a
/// server route that gives them as Open Library would.
enum OpenLibraryFixtures {
    /// `Examples/OpenLibrary/Fixtures`, found from this file.
    static let directory = URL(fileURLWithPath: #filePath)  // …/Examples/OpenLibrary/Tests/OpenLibraryTests/this file
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The bytes of `name`; a missing fixture ends the run saying where it was looked for.
    static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
            FileHandle.standardError.write(Data("error: the fixture \(name) is not in \(directory.path)\n".utf8))
            exit(78)
        }
        return Array(data)
    }

    static func data(_ name: String) -> Data { Data(bytes(name)) }

    /// Answers like Open Library: two authors, one work, one search with results and others
    /// with none; any other record is Infobase's `notfound`, as the real site answers.
    static func route(_ request: TestServer.Request) -> TestServer.Reply {
        switch request.path {
        case "/works/OL45804W.json": return .json(bytes("works_OL45804W.json"))
        case "/authors/OL34184A.json": return .json(bytes("authors_OL34184A.json"))
        case "/authors/OL23919A.json": return .json(bytes("authors_OL23919A.json"))
        case "/works/OL0W.json": return .json(bytes("error_404_notfound_works_OL0W.json"), status: 404)
        case "/search.json":
            return .json(bytes(request.query["q"] == "lord of the rings" ? "search_lord_of_the_rings.json" : "search_empty.json"))
        default:
            return .respond(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html><title>404</title></html>".utf8))
        }
    }

    /// nginx's page for a service that is down, as Open Library's front end sends it.
    static let unavailable = TestServer.Reply.respond(
        status: 503, headers: [("Content-Type", "text/html")], body: bytes("error_503.html"))
}
