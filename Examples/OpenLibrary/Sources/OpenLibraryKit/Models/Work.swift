import Foundation
import ReaderKit

extension OpenLibrary {
    /// A work: a book in all its editions, as `/works/OL45804W.json` gives it.
    public struct Work: Decodable, Sendable, Equatable {
        /// Its id, `OL45804W`, read from `key`.
        public var id: OpenLibraryID
        public var title: String
        public var subtitle: String?
        /// Its authors' ids, in the record's order; entries that name no author are left out.
        public var authorIDs: [OpenLibraryID]
        /// Its description, as written (Markdown, often several paragraphs).
        public var description: String?
        /// When it was first published, as the record says it (`1970`, `October 1, 1970`).
        public var firstPublishDate: String?
        public var subjects: [String]

        private enum CodingKeys: String, CodingKey {
            case key, title, subtitle, authors, description, subjects
            case firstPublishDate = "first_publish_date"
        }

        /// One entry of `authors`: `{"author": {"key": "/authors/OL34184A"}, "type": {…}}`.
        private struct AuthorRole: Decodable {
            var id: OpenLibraryID?
            private enum CodingKeys: String, CodingKey { case author }
            private struct Reference: Decodable { var key: String }

            init(from decoder: any Decoder) throws {
                // A role without an author reference (older records hold some) is skipped, not an error.
                let reference = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Reference.self, forKey: .author)
                id = reference.flatMap { OpenLibraryID($0.key, kind: .author) }
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let key = try container.decode(String.self, forKey: .key)
            guard let id = OpenLibraryID(key, kind: .work) else {
                throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "not a work's key")
            }
            self.id = id
            title = try container.decode(String.self, forKey: .title)
            subtitle = try container.decodeIfPresent(String.self, forKey: .subtitle)
            authorIDs = (try container.decodeIfPresent([AuthorRole].self, forKey: .authors) ?? []).compactMap(\.id)
            description = try container.decodeText(forKey: .description)
            firstPublishDate = try container.decodeIfPresent(String.self, forKey: .firstPublishDate)
            subjects = try container.decodeStrings(forKey: .subjects)
        }

        public init(id: OpenLibraryID, title: String, subtitle: String? = nil, authorIDs: [OpenLibraryID] = [],
                    description: String? = nil, firstPublishDate: String? = nil, subjects: [String] = []) {
            self.id = id
            self.title = title
            self.subtitle = subtitle
            self.authorIDs = authorIDs
            self.description = description
            self.firstPublishDate = firstPublishDate
            self.subjects = subjects
        }
    }
}
