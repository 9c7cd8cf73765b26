import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// The library example is `Examples/Films/main.swift`, a target of this package: the text the
/// DocC article "Getting started" shows is that file, and the built program does what it says against a
/// loopback server named by `READER_SWAPI_URL` and `READER_REDDIT_URL`.
@Suite(.processSlot) struct LibraryExampleEndToEndTests {
    static let packageRoot = PackageRoot.url

    /// The built example, beside `reader` in the build folder.
    static let executable = ReaderProcess.executable.deletingLastPathComponent().appendingPathComponent("films-example")

    /// The first six lines the example prints: every film, in episode order.
    static let films = """
        Episode 1: The Phantom Menace (1999-05-19)
        Episode 2: Attack of the Clones (2002-05-16)
        Episode 3: Revenge of the Sith (2005-05-19)
        Episode 4: A New Hope (1977-05-25)
        Episode 5: The Empire Strikes Back (1980-05-17)
        Episode 6: Return of the Jedi (1983-05-25)

        """

    /// r/python's first five posts in the recorded listing, as the example prints them.
    static let posts = """
        129 /r/Python Official Job Board
        1 What's everyone working on this week?
        501 A new version of Wilson's uniform spanning tree algorithm and BFS search animation made with pure python
        77 Sublime Text 3.0 is out!
        8 SpeechPy - A Library for Speech Processing and Recognition

        """

    @Test func theGettingStartedArticleShowsTheExampleFileAsItIs() throws {
        let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("Sources/ReaderKit/ReaderKit.docc/GettingStarted.md"),
                                encoding: .utf8)
        let file = try String(contentsOf: Self.packageRoot.appendingPathComponent("Examples/Films/main.swift"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```\n")[0] }
        let shown = blocks.filter { $0.hasPrefix("// Examples/Films/main.swift") }
        #expect(shown.count == 1, "the article shows the example once")
        #expect(shown.first == file)
        #expect(!file.contains("@testable") && !file.contains("@_spi"), "the public API only")
        #expect(file.split(separator: "\n").filter { $0.hasPrefix("import ") } == ["import Foundation", "import ReaderKit"])
    }

    @Test(.replaysRecordings) func theExampleReadsTheServicesTheEnvironmentNamesAndCachesInTheTemporaryFolder() async throws {
        try await withTestServer(Self.route) { server in
            let example = Self.example(server: server)
            let result = try await example.run(["python"], executable: Self.executable)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == Self.films + Self.posts)
            #expect(result.stderr == "")
            #expect(server.requests.map(\.target) == ["/api/films/", "/r/python/hot.json?limit=5&raw_json=1"])
            #expect(FileManager.default.fileExists(atPath: example.folder.appendingPathComponent("films-example.sqlite").path))
        }
    }

    @Test(.replaysRecordings) func aFailedRequestFallsBackToTheCopyTheExampleCachedAndSaysWhy() async throws {
        let redditIsDown = NIOLockedValueBox(false)
        try await withTestServer { request in
            guard request.path.hasPrefix("/r/"), redditIsDown.withLockedValue({ $0 }) else { return Self.route(request) }
            // A 500 without Retry-After is not retried: the posts cached by the first run are served.
            return .respond(status: 500, headers: [("Content-Type", "text/html")], body: Array("<html>down</html>".utf8))
        } body: { server in
            let example = Self.example(server: server)
            #expect(try await example.run(["python"], executable: Self.executable).status == 0)
            redditIsDown.withLockedValue { $0 = true }
            let result = try await example.run(["python"], executable: Self.executable)
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.prefix(11).joined(separator: "\n") + "\n" == Self.films + Self.posts)
            try #require(lines.count == 14 && lines[13] == "", "\(result.stdout)")
            #expect(lines[11].wholeMatch(of: /\(posts from the cache, [01] s old: the request failed with H500\)/) != nil, "\(lines[11])")
            #expect(lines[12].wholeMatch(of: /notice H500: showing cached data from [01] s ago: the server answered 500 Internal Server Error/) != nil,
                    "\(lines[12])")
            #expect(server.requests.map(\.path) == ["/api/films/", "/r/python/hot.json", "/r/python/hot.json"],
                    "the films were fresh in the cache: SWAPI was asked once")
        }
    }

    @Test(.replaysRecordings) func aFailureIsReportedWithItsCodeAndItsExitCodeAsANumber() async throws {
        try await withTestServer(Self.route) { server in
            let example = Self.example(server: server)
            let notFound = try await example.run(["a+b"], executable: Self.executable)
            #expect(notFound.status == 66)
            #expect(notFound.stdout == Self.films + """
                error A404: r/a+b does not exist
                  hint: check the spelling; Reddit.posts(subreddit: nil) reads the front page
                  exit code 66

                """)

            var misconfigured = example
            misconfigured.environment["READER_SWAPI_URL"] = "ftp://127.0.0.1/api"
            let refused = try await misconfigured.run(["python"], executable: Self.executable)
            #expect(refused.status == 78)
            #expect(refused.stdout == """
                error R1002: READER_SWAPI_URL is not an http or https URL with a host: "ftp://127.0.0.1/api"
                  hint: fix the configuration value named above, or leave it out to use the default
                  exit code 78

                """)
            #expect(server.requests.count == 2, "nothing was asked with a broken configuration")
        }
    }

    /// The example's environment: the server's URLs, and a private temporary folder for its cache.
    static func example(server: TestServer) -> ReaderProcess {
        var process = ReaderProcess(server: server)
        process.environment["READER_CACHE_PATH"] = nil  // reader's, not the example's
        process.environment["TMPDIR"] = process.folder.path
        return process
    }

    /// The fixtures, with Reddit's listing cut to the `limit` asked for, as Reddit cuts it.
    @Sendable static func route(_ request: TestServer.Request) -> TestServer.Reply {
        let reply = Fixtures.route(request)
        guard request.path.hasPrefix("/r/"), let limit = request.query["limit"].flatMap({ Int($0) }),
              case .respond(let status, let headers, let body) = reply,
              var listing = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              var data = listing["data"] as? [String: Any], let children = data["children"] as? [Any],
              children.count > limit,
              let cut = try? JSONSerialization.data(withJSONObject: { data["children"] = Array(children.prefix(limit)); listing["data"] = data; return listing }())
        else { return reply }
        return .respond(status: status, headers: headers, body: Array(cut))
    }
}
