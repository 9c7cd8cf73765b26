import Foundation

/// A species (`/species/{id}/`).
public struct Species: SWAPIResource {
    public static let collection = SWAPICollection.species

    public var name: String
    public var classification: String
    public var designation: String
    public var averageHeight: String
    public var skinColors: String
    public var hairColors: String
    public var eyeColors: String
    public var averageLifespan: String
    /// The homeworld's URL; SWAPI sends null for species without one (droids).
    public var homeworld: String?
    public var language: String
    public var people: [String]
    public var films: [String]
    public var created: Date
    public var edited: Date
    public var url: String

    public var displayName: String { name }

    enum CodingKeys: String, CodingKey {
        case name, classification, designation, homeworld, language, people, films, created, edited, url
        case averageHeight = "average_height"
        case skinColors = "skin_colors"
        case hairColors = "hair_colors"
        case eyeColors = "eye_colors"
        case averageLifespan = "average_lifespan"
    }
}
