import Foundation
import ReaderKit

extension OpenLibrary {
    /// One page of `/search.json`: how many works match, and the first of them.
    public struct SearchPage: Decodable, Sendable, Equatable {
        /// How many works match in all (`numFound`), at most a billion.
        public var numberFound: Int
        /// The offset of the first result (`start`).
        public var start: Int
        public var results: [SearchResult]

        private enum CodingKeys: String, CodingKey {
            case numberFound = "numFound"
            case start, docs
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // Required, but a count no page can mean (negative, a fraction, 1e300) is read as
            // unknown rather than trapping or failing the whole answer.
            guard container.contains(.numberFound) else {
                throw DecodingError.keyNotFound(CodingKeys.numberFound, .init(codingPath: container.codingPath, debugDescription: "no numFound"))
            }
            results = try container.decode([SearchResult].self, forKey: .docs)
            numberFound = container.decodeCount(forKey: .numberFound, in: OutsideNumbers.count) ?? results.count
            start = container.decodeCount(forKey: .start, in: OutsideNumbers.count) ?? 0
        }

        public init(numberFound: Int, start: Int = 0, results: [SearchResult]) {
            self.numberFound = numberFound
            self.start = start
            self.results = results
        }
    }

    /// A work found by a search (one of `docs`).
    public struct SearchResult: Decodable, Sendable, Equatable {
        /// The work's id, from `key` (`/works/OL27448W`).
        public var id: OpenLibraryID
        public var title: String
        /// Its authors' names, as the search index has them.
        public var authorNames: [String]
        /// The year of its first edition; nil when unknown or not a year from -5000 to 9999.
        public var firstPublishYear: Int?
        /// How many editions it has; nil when unknown.
        public var editionCount: Int?

        private enum CodingKeys: String, CodingKey {
            case key, title
            case authorNames = "author_name"
            case firstPublishYear = "first_publish_year"
            case editionCount = "edition_count"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let key = try container.decode(String.self, forKey: .key)
            guard let id = OpenLibraryID(key, kind: .work) else {
                throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "not a work's key")
            }
            self.id = id
            title = try container.decode(String.self, forKey: .title)
            authorNames = try container.decodeStrings(forKey: .authorNames)
            firstPublishYear = container.decodeCount(forKey: .firstPublishYear, in: -5_000...9_999)
            editionCount = container.decodeCount(forKey: .editionCount, in: OutsideNumbers.count)
        }

        public init(id: OpenLibraryID, title: String, authorNames: [String] = [], firstPublishYear: Int? = nil, editionCount: Int? = nil) {
            self.id = id
            self.title = title
            self.authorNames = authorNames
            self.firstPublishYear = firstPublishYear
            self.editionCount = editionCount
        }
    }
}
