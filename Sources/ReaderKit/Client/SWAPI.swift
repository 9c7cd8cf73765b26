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
            guard !trimmed.isEmpty else { throw .invalidArgument("--search needs some text") }
            guard trimmed.count <= 100, trimmed.unicodeScalars.allSatisfy({ TerminalText.isVisible($0) }) else {
                throw .invalidArgument("--search takes at most 100 printable characters")
            }
            query.append(URLQueryItem(name: "search", value: trimmed))
        }
        if let page {
            guard page >= 1, page <= 10_000 else { throw .invalidArgument("--page must be a whole number from 1, got \(page)") }
            query.append(URLQueryItem(name: "page", value: String(page)))
        }
        return Endpoint(api: .swapi, path: "\(Resource.collection.rawValue)/", query: query)
    }

    /// One resource by id, such as `films/1/`.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` when `id` is not positive.
    public static func resource<Resource: SWAPIResource>(_ type: Resource.Type, id: Int) throws(ReaderError) -> Endpoint<Resource> {
        guard id >= 1, id <= 1_000_000 else { throw .invalidArgument("the id must be a whole number from 1, got \(id)") }
        return Endpoint(api: .swapi, path: "\(Resource.collection.rawValue)/\(id)/")
    }
}
