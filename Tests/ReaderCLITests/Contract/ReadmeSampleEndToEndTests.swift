import Foundation
import Testing
import TestSupport

/// The guide's sample of a detail view is, line for line, what the built `reader` prints at 100
/// columns (DocumentationExamplesTests runs every example; this one is compared whole).
@Suite(.processSlot) struct ReadmeSampleEndToEndTests {
    /// SWAPI's names for the people of film 1 whom no fixture holds (the fixtures' pages hold
    /// people 1 to 10): each is answered on people/1's shape under its own name.
    static let peopleOfFilmOneBeyondTheFixtures = [12: "Wilhuff Tarkin", 13: "Chewbacca", 14: "Han Solo", 15: "Greedo",
                                                   16: "Jabba Desilijic Tiure", 18: "Wedge Antilles", 19: "Jek Tono Porkins",
                                                   81: "Raymus Antilles"]

    /// films/1 and each resource it links, from the fixtures: one item of a recorded page.
    static func linkedResources() throws -> [String: [UInt8]] {
        var resources: [String: [UInt8]] = ["/api/films/1/": Fixtures.bytes("swapi/films_1.json")]
        for page in ["people_page1", "planets_page1", "starships_page1", "vehicles_page1", "species_page1"] {
            let json = try JSONSerialization.jsonObject(with: Data(Fixtures.bytes("swapi/\(page).json"))) as? [String: Any]
            for item in json?["results"] as? [[String: Any]] ?? [] {
                guard let url = item["url"] as? String, let path = URL(string: url)?.path else { continue }
                resources[path.hasSuffix("/") ? path : path + "/"] = Array(try JSONSerialization.data(withJSONObject: item))
            }
        }
        var person = try #require(try JSONSerialization.jsonObject(with: Data(Fixtures.bytes("swapi/people_1.json"))) as? [String: Any])
        for (id, name) in peopleOfFilmOneBeyondTheFixtures {
            person["name"] = name
            person["url"] = "https://swapi.dev/api/people/\(id)/"
            resources["/api/people/\(id)/"] = Array(try JSONSerialization.data(withJSONObject: person))
        }
        return resources
    }

    /// The lines of the guide's code block that starts with `$ COMMAND`, up to the next `$ ` or
    /// the block's end.
    static func sample(of command: String) throws -> [String] {
        let readme = try String(contentsOf: PackageRoot.appending("docs/GUIDE.md"), encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let start = try #require(lines.firstIndex { $0 == "$ \(command)" || $0.hasPrefix("$ \(command) ") })
        return Array(lines[(start + 1)...].prefix { !$0.hasPrefix("$ ") && $0 != "```" }).filter { !$0.isEmpty }
    }

    @Test(.replaysRecordings) func theFilmsOneSampleIsTheRealOutputAtAHundredColumns() async throws {
        let resources = try Self.linkedResources()
        try await withTestServer { request in
            resources[request.path].map { .json($0) } ?? .respond(status: 404, headers: [], body: [])
        } body: { server in
            var reader = ReaderProcess(server: server)
            reader.environment["COLUMNS"] = "100"
            let result = try await reader.run("films", "1")
            #expect(result.status == 0 && result.stderr.isEmpty, "\(result.stderr)")
            let shown = result.stdout.split(separator: "\n").map(String.init)
            #expect(shown.contains { $0.hasPrefix("Characters     Luke Skywalker") })
            #expect(try Self.sample(of: "COLUMNS=100 reader films 1") == shown)
        }
    }
}
