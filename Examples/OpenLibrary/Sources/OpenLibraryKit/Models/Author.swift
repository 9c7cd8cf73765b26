import Foundation
import ReaderKit

extension OpenLibrary {
    /// An author, as `/authors/OL23919A.json` gives it.
    public struct Author: Decodable, Sendable, Equatable {
        /// Its id, `OL23919A`, read from `key`.
        public var id: OpenLibraryID
        public var name: String
        /// The dates as the record writes them (`31 July 1965`).
        public var birthDate: String?
        public var deathDate: String?
        public var bio: String?

        private enum CodingKeys: String, CodingKey {
            case key, name, bio
            case birthDate = "birth_date"
            case deathDate = "death_date"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let key = try container.decode(String.self, forKey: .key)
            guard let id = OpenLibraryID(key, kind: .author) else {
                throw DecodingError.dataCorruptedError(forKey: .key, in: container, debugDescription: "not an author's key")
            }
            self.id = id
            name = try container.decode(String.self, forKey: .name)
            birthDate = try container.decodeIfPresent(String.self, forKey: .birthDate)
            deathDate = try container.decodeIfPresent(String.self, forKey: .deathDate)
            bio = try container.decodeText(forKey: .bio)
        }

        public init(id: OpenLibraryID, name: String, birthDate: String? = nil, deathDate: String? = nil, bio: String? = nil) {
            self.id = id
            self.name = name
            self.birthDate = birthDate
            self.deathDate = deathDate
            self.bio = bio
        }
    }
}
