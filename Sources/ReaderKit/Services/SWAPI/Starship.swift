import Foundation

/// A starship (`/starships/{id}/`).
public struct Starship: SWAPIResource {
    public static let collection = SWAPICollection.starships

    public var name: String
    public var model: String
    public var manufacturer: String
    public var costInCredits: String
    public var length: String
    public var maxAtmospheringSpeed: String
    public var crew: String
    public var passengers: String
    public var cargoCapacity: String
    public var consumables: String
    public var hyperdriveRating: String
    /// Megalights per hour, SWAPI's `MGLT`.
    public var megalights: String
    public var starshipClass: String
    public var pilots: [String]
    public var films: [String]
    public var created: Date
    public var edited: Date
    public var url: String

    public var displayName: String { name }

    enum CodingKeys: String, CodingKey {
        case name, model, manufacturer, length, crew, passengers, consumables, pilots, films, created, edited, url
        case costInCredits = "cost_in_credits"
        case maxAtmospheringSpeed = "max_atmosphering_speed"
        case cargoCapacity = "cargo_capacity"
        case hyperdriveRating = "hyperdrive_rating"
        case megalights = "MGLT"
        case starshipClass = "starship_class"
    }
}
