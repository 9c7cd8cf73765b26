import Foundation

/// A complete SWAPI in the recordings' shape (written by the tests, ``SWAPIResources``): every collection with its real size (people
/// 82, planets 60, films 6, species 37, vehicles 39, starships 36; people has no 17), in pages of
/// ten with `count`/`next`/`previous`, each resource by id, `search`, ETags answered with 304,
/// and `{"detail":"Not found"}` for what does not exist. The first page's resources are
/// ``SWAPIResources``'; the rest are copies of them with their own name, id and URL.
public final class SWAPIDataSet: Sendable {
    public static let sizes: [String: Int] = ["people": 82, "planets": 60, "films": 6, "species": 37, "vehicles": 39, "starships": 36]

    /// Resources by collection, in id order, as JSON objects.
    private let resources: [String: [(id: Int, body: [UInt8], name: String)]]

    /// - Parameter fromRecordings: the first pages from the real recordings (``Fixtures``), for a
    ///   test that shows their data, instead of the tests' own.
    public init(fromRecordings: Bool = false) {
        var resources: [String: [(id: Int, body: [UInt8], name: String)]] = [:]
        for (collection, size) in Self.sizes {
            let templates = fromRecordings ? Self.recordedFirstPage(collection) : SWAPIResources.firstPage(collection)
            var ids = Array(1...(size + (collection == "people" ? 1 : 0)))
            if collection == "people" { ids.removeAll { $0 == 17 } }
            resources[collection] = ids.enumerated().map { index, id in
                var item = templates[index % templates.count]
                let key = collection == "films" ? "title" : "name"
                if index >= templates.count { item[key] = "\(item[key] as? String ?? "?") \(id)" }
                item["url"] = "https://swapi.dev/api/\(collection)/\(id)/"
                let body = (try? JSONSerialization.data(withJSONObject: item, options: [.sortedKeys])) ?? Data()
                return (id, Array(body), item[key] as? String ?? "")
            }
        }
        self.resources = resources
    }

    /// The first page of `collection` as recorded.
    static func recordedFirstPage(_ collection: String) -> [[String: Any]] {
        let file = collection == "films" ? "swapi/films.json" : "swapi/\(collection)_page1.json"
        let page = (try? JSONSerialization.jsonObject(with: Data(Fixtures.bytes(file)))) as? [String: Any]
        return page?["results"] as? [[String: Any]] ?? []
    }

    /// How many requests a complete sync makes: every page and every resource.
    public var requestsForEverything: Int {
        resources.values.reduce(0) { $0 + ($1.count + 9) / 10 + $1.count }
    }

    /// Answers a request under `/api/` like SWAPI; nil for other paths.
    public func reply(to request: TestServer.Request) -> TestServer.Reply? {
        guard request.path.hasPrefix("/api/") else { return nil }
        let parts = request.path.dropFirst("/api/".count).split(separator: "/").map(String.init)
        guard let collection = parts.first, let all = resources[collection] else {
            return .respond(status: 404, headers: [("Content-Type", "text/html")], body: SWAPIResources.notFoundPage)
        }
        if parts.count == 2 {
            guard let id = Int(parts[1]), let item = all.first(where: { $0.id == id }) else { return notFound }
            return answer(item.body, to: request)
        }
        var matching = all
        var searchQuery = ""
        if let search = request.query["search"] {
            matching = all.filter { $0.name.lowercased().contains(search.lowercased()) }
            searchQuery = "search=\(search)&"
        }
        let page = Int(request.query["page"] ?? "1") ?? 0
        let pages = max(1, (matching.count + 9) / 10)
        guard page >= 1, page <= pages else { return notFound }
        let slice = matching.dropFirst((page - 1) * 10).prefix(10)
        func link(_ number: Int) -> String { "\"https://swapi.dev/api/\(collection)/?\(searchQuery)page=\(number)\"" }
        let body = "{\"count\": \(matching.count), \"next\": \(page < pages ? link(page + 1) : "null"), "
            + "\"previous\": \(page > 1 ? link(page - 1) : "null"), \"results\": ["
            + slice.map { String(decoding: $0.body, as: UTF8.self) }.joined(separator: ", ") + "]}"
        return answer(Array(body.utf8), to: request)
    }

    /// Answers a request like SWAPI under `/api/`, and anything else with an HTML 404.
    public func route(_ request: TestServer.Request) -> TestServer.Reply {
        reply(to: request) ?? .respond(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html><title>404</title></html>".utf8))
    }

    private var notFound: TestServer.Reply {
        .json(Array(#"{"detail":"Not found"}"#.utf8), status: 404)
    }

    /// The body with an ETag of its bytes; a matching If-None-Match gets 304, as SWAPI does.
    private func answer(_ body: [UInt8], to request: TestServer.Request) -> TestServer.Reply {
        var hash: UInt64 = 14_695_981_039_346_656_037
        for byte in body { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        let etag = "\"\(String(hash, radix: 16))\""
        if request.headers["if-none-match"] == etag { return .respond(status: 304, headers: [("ETag", etag)], body: []) }
        return .json(body, headers: [("ETag", etag), ("Vary", "Accept, Cookie")])
    }
}
