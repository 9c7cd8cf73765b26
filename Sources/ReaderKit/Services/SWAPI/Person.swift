import Foundation

/// A person or character (`/people/{id}/`).
///
/// Measures stay as SWAPI sends them (`"1,358"`, `"unknown"`); `heightCentimetres` and
/// `massKilograms` read them as numbers where they are numbers.
public struct Person: SWAPIResource {
    public static let collection = SWAPICollection.people

    public var name: String
    public var height: String
    public var mass: String
    public var hairColor: String
    public var skinColor: String
    public var eyeColor: String
    public var birthYear: String
    public var gender: String
    public var homeworld: String?
    public var films: [String]
    public var species: [String]
    public var vehicles: [String]
    public var starships: [String]
    public var created: Date
    public var edited: Date
    public var url: String

    public var displayName: String { name }
    /// The height in centimetres, or nil when SWAPI says `unknown`.
    public var heightCentimetres: Double? { SWAPINumber.parse(height) }
    /// The mass in kilograms (`"1,358"` reads as 1358), or nil when SWAPI says `unknown`.
    public var massKilograms: Double? { SWAPINumber.parse(mass) }

    enum CodingKeys: String, CodingKey {
        case name, height, mass, gender, homeworld, films, species, vehicles, starships, created, edited, url
        case hairColor = "hair_color"
        case skinColor = "skin_color"
        case eyeColor = "eye_color"
        case birthYear = "birth_year"
    }
}
