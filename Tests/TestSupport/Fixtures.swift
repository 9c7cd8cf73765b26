import Foundation

/// The real recorded responses in `../shared/fixtures`, read at test time (never copied here).
///
/// They live outside the repository, so a bare clone has none: a test that replays them says so
/// with the trait `.replaysRecordings` (``mayReplay()``) and is skipped, by name, when they are not here;
/// every other test makes its own data. With `READER_REQUIRE_RECORDINGS=1` (as `.ci/run` sets)
/// their absence fails those tests instead.
public enum Fixtures {
    /// The fixtures folder: `$READER_FIXTURES`, else `../shared/fixtures` beside the package.
    public static var directory: URL {
        if let path = ProcessInfo.processInfo.environment["READER_FIXTURES"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath)  // Tests/TestSupport/Fixtures.swift
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }

    /// Whether the recordings are here: the folder holds the `swapi/` and `reddit/` ones.
    public static var areHere: Bool {
        ["swapi/root.json", "reddit/listing_r_python_hot.json"].allSatisfy {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
    }

    /// Whether a run must have them (`READER_REQUIRE_RECORDINGS=1`): then a test that replays them
    /// fails when they are missing, rather than being skipped.
    public static var areRequired: Bool {
        ProcessInfo.processInfo.environment["READER_REQUIRE_RECORDINGS"] == "1"
    }

    /// Where the recordings were looked for and how to provide them.
    public static var whereTheyComeFrom: String {
        """
        the recorded responses (swapi/, reddit/, reddit-atom/) are not at \(directory.path). They are kept \
        outside this repository: put them in ../shared/fixtures beside the package, or set READER_FIXTURES \
        to their folder (READER_FIXTURES=/path/to/fixtures swift test)
        """
    }

    /// Whether a test that replays the recordings may run (the condition of each test target's
    /// `.replaysRecordings` trait): they are here; or they are not and the run requires them,
    /// which throws (the test fails, saying where they come from).
    public static func mayReplay() throws -> Bool {
        if areHere { return true }
        if areRequired { throw Missing(description: "READER_REQUIRE_RECORDINGS=1, but " + whereTheyComeFrom) }
        return false
    }

    /// The recordings are missing where a run requires them.
    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes of `name`, such as `swapi/films.json`. A missing file is said on stderr, with
    /// where they were looked for, and the bytes are then none, so that the test that asked fails
    /// on what it expected (a test that reads the recordings carries `.replaysRecordings`).
    public static func bytes(_ name: String) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) else {
            missing(areHere ? "the fixture \(name) is missing from \(directory.path)" : whereTheyComeFrom)
            return []
        }
        return Array(data)
    }

    private static func missing(_ what: String) {
        FileHandle.standardError.write(Data("\nerror: \(what).\n".utf8))
    }

    /// The file names in `folder` (`swapi` or `reddit`) with the given extension.
    public static func names(in folder: String, withExtension ext: String) -> [String] {
        // An empty list would let a test over every fixture pass having read none.
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(folder).path) else {
            missing(whereTheyComeFrom)
            return []
        }
        return files.filter { $0.hasSuffix("." + ext) }.sorted().map { "\(folder)/\($0)" }
    }

    /// SWAPI's recorded status and headers for a file, from `swapi/responses.json`.
    public static func swapiResponse(_ file: String) -> (status: Int, headers: [(String, String)]) {
        struct Recorded: Decodable { var file: String; var status: Int; var headers: [String: String] }
        let all = (try? JSONDecoder().decode([Recorded].self, from: Data(bytes("swapi/responses.json")))) ?? []
        guard let match = all.first(where: { $0.file == file }) else { return (200, [("Content-Type", "application/json")]) }
        return (match.status, match.headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Answers like SWAPI and Reddit from the fixtures: SWAPI under `/api/`, Reddit at the root.
    public static func route(_ request: TestServer.Request) -> TestServer.Reply {
        let path = request.path
        let query = request.query
        if path.hasPrefix("/api/") {
            let parts = path.dropFirst("/api/".count).split(separator: "/").map(String.init)
            var file: String?
            switch (parts.first, parts.count) {
            case (nil, 0): file = "root.json"
            case ("people", 2) where parts[1] == "1": file = "people_1.json"
            case ("films", 2) where parts[1] == "1": file = "films_1.json"
            case (_, 2) where SWAPINames.contains(parts[0]): file = "people_9999_not_found.json"
            case ("films", 1): file = "films.json"
            case ("planets", 1) where query["search"] != nil:
                file = query["search"]?.lowercased() == "tat" ? "planets_search_tat.json" : "people_search_empty.json"
            case (_, 1) where query["search"] != nil && SWAPINames.contains(parts[0]): file = "people_search_empty.json"
            case ("people", 1) where query["page"] == "9": file = "people_page9.json"
            case ("people", 1) where query["page"] == nil || query["page"] == "1": file = "people_page1.json"
            case (_, 1) where ["planets", "species", "starships", "vehicles"].contains(parts[0]) && (query["page"] ?? "1") == "1":
                file = "\(parts[0])_page1.json"
            case (_, 1) where SWAPINames.contains(parts[0]): file = "people_9999_not_found.json"
            default: file = nil
            }
            let name = file ?? "unknown_resource_404.html"
            let recorded = swapiResponse(name)
            // Like the real server: a matching If-None-Match is answered 304 with no body.
            if let etag = recorded.headers.first(where: { $0.0 == "ETag" })?.1, request.headers["if-none-match"] == etag {
                return .respond(status: 304, headers: recorded.headers.filter { $0.0 != "Content-Type" }, body: [])
            }
            return .respond(status: recorded.status, headers: recorded.headers, body: bytes("swapi/\(name)"))
        }
        let redditFiles = ["/hot.json": "listing_frontpage_limit5.json", "/r/python/hot.json": "listing_r_python_hot.json",
                           "/r/popular/hot.json": "listing_r_popular_hot_2026.json",
                           "/r/a+b/hot.json": "error_404_not_found_r_a_plus_b.json",
                           "/r/quarantined/hot.json": "error_403_quarantined_reason.json"]
        if let name = redditFiles[path.lowercased()] {
            let status = name.hasPrefix("error_404") ? 404 : name.hasPrefix("error_403") ? 403 : 200
            return .json(bytes("reddit/\(name)"), status: status, headers: [("Cache-Control", "max-age=0, must-revalidate")])
        }
        return .respond(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html><title>404</title></html>".utf8))
    }

    static let SWAPINames: Set<String> = ["films", "people", "planets", "species", "starships", "vehicles"]
}

