import Foundation

/// A planet (`/planets/{id}/`).
public struct Planet: SWAPIResource {
    public static let collection = SWAPICollection.planets

    public var name: String
    public var rotationPeriod: String
    public var orbitalPeriod: String
    public var diameter: String
    public var climate: String
    public var gravity: String
    public var terrain: String
    public var surfaceWater: String
    public var population: String
    public var residents: [String]
    public var films: [String]
    public var created: Date
    public var edited: Date
    public var url: String

    public var displayName: String { name }
    /// The population as a number, or nil when SWAPI says `unknown`.
    public var populationCount: Double? { SWAPINumber.parse(population) }
    /// The diameter in kilometres, or nil when SWAPI says `unknown`.
    public var diameterKilometres: Double? { SWAPINumber.parse(diameter) }

    enum CodingKeys: String, CodingKey {
        case name, diameter, climate, gravity, terrain, population, residents, films, created, edited, url
        case rotationPeriod = "rotation_period"
        case orbitalPeriod = "orbital_period"
        case surfaceWater = "surface_water"
    }
}
