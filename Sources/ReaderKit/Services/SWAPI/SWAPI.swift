import Foundation

/// Endpoints of the Star Wars API.
public enum SWAPI {
    /// A page of a collection, or a search in it.
    /// - Parameters:
    ///   - type: the resource type, such as `Film.self`.
    ///   - page: the page number, from 1.
    ///   - search: text to search the collection's name (or title) for.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` when `page` is not positive or `search` is unusable.
    public static func list<Resource: SWAPIResource>(
        _ type: Resource.Type, page: Int? = nil, search: String? = nil
    ) throws(ReaderError) -> Endpoint<SWAPIPage<Resource>> {
        var query: [URLQueryItem] = []
        if let search {
            let trimmed = search.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { throw .invalidArgument("\(name: "search") needs some text") }
            guard trimmed.count <= 100, trimmed.unicodeScalars.allSatisfy({ TerminalText.isVisible($0) }) else {
                throw .invalidArgument("\(name: "search") takes at most 100 printable characters")
            }
            query.append(URLQueryItem(name: "search", value: trimmed))
        }
        if let page {
            guard page >= 1, page <= 10_000 else { throw .invalidArgument("\(name: "page") must be a whole number from 1 to 10000, got \(page)") }
            // Page 1 is the list itself: one URL, so one cache entry, however it was asked for.
            if page > 1 { query.append(URLQueryItem(name: "page", value: String(page))) }
        }
        return Endpoint(service: SWAPIService.name, path: "\(Resource.collection.rawValue)/", query: query)
    }

    /// One resource by id, such as `films/1/`.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` when `id` is not positive.
    public static func resource<Resource: SWAPIResource>(_ type: Resource.Type, id: Int) throws(ReaderError) -> Endpoint<Resource> {
        guard id >= 1, id <= 1_000_000 else { throw .invalidArgument("the id must be a whole number from 1 to 1000000, got \(id)") }
        return Endpoint(service: SWAPIService.name, path: "\(Resource.collection.rawValue)/\(id)/")
    }
}

extension SWAPI {
    /// The API's root, which lists its collections: what `reader status` asks to see that SWAPI answers.
    public static let root = Endpoint<JSONValue>(service: SWAPIService.name, path: "")

    /// The most pages `--all` and sync read of one collection: 1,000 (10,000 resources).
    public static let maximumPages = 1_000

    /// How many pages a collection holds, from its first page: its count over the page size,
    /// or 1 when the page says there is no next one. Capped at ``maximumPages``, so that a lying
    /// count cannot make reader ask for millions of pages; a load that meets the cap says so (R1005).
    public static func pageCount<Resource>(of firstPage: SWAPIPage<Resource>) -> Int {
        guard firstPage.next != nil, !firstPage.results.isEmpty else { return 1 }
        let size = firstPage.results.count
        // A library user may build a page by hand: its count is clamped here too.
        let count = min(max(firstPage.count, 0), OutsideNumbers.count.upperBound)
        return min(maximumPages, max(2, (count + size - 1) / size))
    }

    /// The endpoint of a link SWAPI gives (`https://swapi.dev/api/people/1/`), against the
    /// configured base: only the collection and the id are taken from it, so a link cannot
    /// point reader at another host. Nil when the link is not a resource of a known collection.
    public static func endpoint(forLink link: String) -> Endpoint<SWAPINamedResource>? {
        let parts = link.split(separator: "?", maxSplits: 1).first?.split(separator: "/") ?? []
        guard parts.count >= 2, let collection = SWAPICollection(rawValue: String(parts[parts.count - 2])),
              let id = Int(parts[parts.count - 1]), id >= 1, id <= 1_000_000 else { return nil }
        return Endpoint(service: SWAPIService.name, path: "\(collection.rawValue)/\(id)/")
    }
}

/// Any SWAPI resource, read only for its name (or a film's title).
public struct SWAPINamedResource: Decodable, Sendable, Hashable {
    public var displayName: String

    private enum CodingKeys: String, CodingKey { case name, title }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let name = try container.decodeIfPresent(String.self, forKey: .name) { displayName = name }
        else { displayName = try container.decode(String.self, forKey: .title) }
    }
}
