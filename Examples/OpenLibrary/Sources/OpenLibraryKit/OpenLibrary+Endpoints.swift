import Foundation
import ReaderKit

extension OpenLibrary {
    /// The most results one search asks for: Open Library gives up to 1,000, but more than a
    /// hundred titles is not something a person reads.
    public static let maximumSearchLimit = 100

    /// The search results' fields this package reads; asking for these only keeps the answer small.
    static let searchFields = "key,title,author_name,author_key,first_publish_year,edition_count"

    /// A work: `works/OL45804W` (`.json` is added by ``adapt(_:)``).
    /// - Parameter id: `OL45804W`, `ol45804w` or `/works/OL45804W`.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` when `id` is not a work's id.
    public static func work(_ id: String) throws(ReaderError) -> Endpoint<Work> {
        let id = try OpenLibraryID.parse(id, as: .work)
        return Endpoint(service: serviceName, path: "works/\(id)")
    }

    /// An author: `authors/OL23919A`.
    /// - Parameter id: `OL23919A`, `ol23919a` or `/authors/OL23919A`.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` when `id` is not an author's id.
    public static func author(_ id: String) throws(ReaderError) -> Endpoint<Author> {
        let id = try OpenLibraryID.parse(id, as: .author)
        return Endpoint(service: serviceName, path: "authors/\(id)")
    }

    /// The works whose title, author or subjects match `text`: `search?q=…&limit=…&fields=…`.
    /// - Parameters:
    ///   - text: what to look for: at most 200 printable characters, trimmed of spaces.
    ///   - limit: how many results, 1 to ``maximumSearchLimit``.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for empty or unprintable text, or a limit out of range.
    public static func search(_ text: String, limit: Int = 10) throws(ReaderError) -> Endpoint<SearchPage> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw .invalidArgument("the search needs some text") }
        // Sanitising changes only what a terminal would not show as it is: control characters,
        // escapes, bidi overrides, line breaks. Text it leaves alone is printable.
        guard trimmed.count <= 200, TerminalText.sanitise(trimmed) == trimmed else {
            throw .invalidArgument("the search takes at most 200 printable characters on one line")
        }
        guard (1...maximumSearchLimit).contains(limit) else {
            throw .invalidArgument("\(name: "limit") must be a whole number from 1 to \(maximumSearchLimit), got \(limit)")
        }
        return Endpoint(service: serviceName, path: "search", query: [
            URLQueryItem(name: "q", value: trimmed),
            URLQueryItem(name: "limit", value: String(limit)),
            URLQueryItem(name: "fields", value: searchFields),
        ])
    }
}
