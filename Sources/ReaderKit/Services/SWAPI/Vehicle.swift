import Foundation

/// A vehicle that is not a starship (`/vehicles/{id}/`).
public struct Vehicle: SWAPIResource {
    public static let collection = SWAPICollection.vehicles

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
    public var vehicleClass: String
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
        case vehicleClass = "vehicle_class"
    }
}
