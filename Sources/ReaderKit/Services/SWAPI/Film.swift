import Foundation

/// A Star Wars film (`/films/{id}/`).
public struct Film: SWAPIResource {
    public static let collection = SWAPICollection.films

    public var title: String
    public var episodeID: Int
    public var openingCrawl: String
    public var director: String
    public var producer: String
    /// The day of release; SWAPI sends `YYYY-MM-DD`.
    public var releaseDate: CalendarDay
    public var characters: [String]
    public var planets: [String]
    public var starships: [String]
    public var vehicles: [String]
    public var species: [String]
    public var created: Date
    public var edited: Date
    public var url: String

    public var displayName: String { title }

    enum CodingKeys: String, CodingKey {
        case title, director, producer, characters, planets, starships, vehicles, species, created, edited, url
        case episodeID = "episode_id"
        case openingCrawl = "opening_crawl"
        case releaseDate = "release_date"
    }
}
