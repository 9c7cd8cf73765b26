import Foundation

/// SWAPI's people collection made large, for the memory benchmarks and the tests of reading it
/// page by page: `pages` pages (of about 1 MB by default) in SWAPI's real shape (`count` = 10 ×
/// pages, ten results a page, `next` and `previous` as SWAPI writes them, `search`), each person
/// one of ``SWAPIResources``' people with its own name, id and URL and a `films` list long enough to
/// weigh about 100 KB (3,200 links): a field the models read, so that the decoded values grow with
/// the pages as the bodies do. Each person alone (`/api/people/ID/`, what a sync reads) has a
/// tenth of that list, so that a sync of a hundred pages (a thousand people) stays a matter of
/// seconds.
///
/// Bodies are made when asked for, never held: the server's own memory stays small.
public struct PaddedPeople: Sendable {
    /// How many people a page lists, as SWAPI's pages do.
    public static let pageSize = 10

    /// How many pages the collection has.
    public let pages: Int
    /// The people of the first page, each with its JSON.
    private let templates: [(name: String, json: Data)]
    private let filmsListOnAPage: [UInt8]
    private let filmsListAlone: [UInt8]

    /// How many people the collection holds (`count`): ids run from 1 to this.
    public var count: Int { pages * Self.pageSize }

    /// - Parameters:
    ///   - pages: how many pages the collection has.
    ///   - filmsOnAPage: how many film links each person lists on a page: 3,200 weigh about 100 KB.
    ///   - filmsAlone: how many film links a person lists alone (`/api/people/ID/`).
    public init(pages: Int, filmsOnAPage: Int = 3_200, filmsAlone: Int = 320) {
        self.pages = pages
        let recorded = SWAPIResources.firstPage("people")
        templates = recorded.map { ($0["name"] as? String ?? "?", (try? JSONSerialization.data(withJSONObject: $0)) ?? Data()) }
        func films(_ count: Int) -> [UInt8] {
            Array(("[" + (0..<count).map { "\"https://swapi.dev/api/films/\($0 % 6 + 1)/\"" }.joined(separator: ",") + "]").utf8)
        }
        filmsListOnAPage = films(max(0, filmsOnAPage))
        filmsListAlone = films(max(0, filmsAlone))
    }

    /// The name of person `id` (ids run from 1 to ``count``): the first page's names first, then
    /// those names numbered.
    private func name(of id: Int) -> String {
        guard !templates.isEmpty else { return "Person \(id)" }
        let template = templates[(id - 1) % templates.count].name
        return id <= templates.count ? template : "\(template) \(id)"
    }

    /// Person `id` as JSON, its `films` list the one given.
    private func person(_ id: Int, films: [UInt8]) -> [UInt8] {
        let template = templates.isEmpty ? Data("{}".utf8) : templates[(id - 1) % templates.count].json
        var fields = (try? JSONSerialization.jsonObject(with: template)) as? [String: Any] ?? [:]
        fields["name"] = name(of: id)
        fields["url"] = "https://swapi.dev/api/people/\(id)/"
        // A marker the list takes the place of: serialising a 3,200-string array per person per
        // request would cost the server more than the reader it measures.
        fields["films"] = "@FILMS@"
        let text = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        let marker = Array("\"@FILMS@\"".utf8)
        var bytes = Array(text)
        if let range = bytes.firstRange(of: marker) { bytes.replaceSubrange(range, with: films) }
        return bytes
    }

    /// Answers `/api/people/` (a page, or a search) and `/api/people/ID/`; nil for anything else.
    public func reply(to request: TestServer.Request) -> TestServer.Reply? {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count >= 2, parts[0] == "api", parts[1] == "people" else { return nil }
        if parts.count == 3 {
            guard let id = Int(parts[2]), id >= 1, id <= count else { return Self.notFound }
            return answer(person(id, films: filmsListAlone), etag: "person-\(pages)-\(id)", to: request)
        }
        guard parts.count == 2 else { return Self.notFound }
        var ids = Array(1...max(1, count))
        var searchQuery = ""
        var searchTag = ""
        if let search = request.query["search"] {
            let needle = search.trimmingCharacters(in: .whitespaces).lowercased()
            ids = ids.filter { name(of: $0).lowercased().contains(needle) }
            searchQuery = "search=\(search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&"
            searchTag = "-" + String(needle.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }, radix: 16)
        }
        guard let page = Int(request.query["page"] ?? "1"), let body = pageBody(page, of: ids, searchQuery: searchQuery) else { return Self.notFound }
        return answer(body, etag: "people-\(pages)-\(page)\(searchTag)", to: request)
    }

    /// The body of page `number` of the whole collection, as the server sends it; nil past the end.
    public func body(ofPage number: Int) -> [UInt8]? {
        pageBody(number, of: Array(1...max(1, count)), searchQuery: "")
    }

    private func pageBody(_ page: Int, of ids: [Int], searchQuery: String) -> [UInt8]? {
        let pageCount = max(1, (ids.count + Self.pageSize - 1) / Self.pageSize)
        guard page >= 1, page <= pageCount else { return nil }
        func link(_ number: Int) -> String { "\"https://swapi.dev/api/people/?\(searchQuery)page=\(number)\"" }
        var body = Array("{\"count\": \(ids.count), \"next\": \(page < pageCount ? link(page + 1) : "null"), ".utf8)
        body += "\"previous\": \(page > 1 ? link(page - 1) : "null"), \"results\": [".utf8
        for (position, id) in ids.dropFirst((page - 1) * Self.pageSize).prefix(Self.pageSize).enumerated() {
            if position > 0 { body += ", ".utf8 }
            body += person(id, films: filmsListOnAPage)
        }
        body += "]}".utf8
        return body
    }

    private static var notFound: TestServer.Reply {
        .json(Array(#"{"detail":"Not found"}"#.utf8), status: 404)
    }

    /// The body with an ETag; a matching If-None-Match gets 304, as SWAPI does. The tag names the
    /// page, not a hash of its megabyte: the bodies are made the same way every time.
    private func answer(_ body: [UInt8], etag name: String, to request: TestServer.Request) -> TestServer.Reply {
        let etag = "\"\(name)\""
        if request.headers["if-none-match"] == etag { return .respond(status: 304, headers: [("ETag", etag)], body: []) }
        return .json(body, headers: [("ETag", etag), ("Vary", "Accept, Cookie")])
    }
}
