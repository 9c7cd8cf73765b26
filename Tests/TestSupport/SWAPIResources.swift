import Foundation

/// SWAPI's resources as the tests write them, in the shape SWAPI answers with (the fields and
/// kinds of `swapi/*_page1.json` in the recordings, which the models read): the first page of
/// each collection under its real names, so that a test runs on a bare clone, where the
/// recordings are not.
public enum SWAPIResources {
    /// The names of the first page of each collection (the titles of the films), in id order.
    public static let firstPageNames: [String: [String]] = [
        "people": ["Luke Skywalker", "C-3PO", "R2-D2", "Darth Vader", "Leia Organa", "Owen Lars", "Beru Whitesun lars",
                   "R5-D4", "Biggs Darklighter", "Obi-Wan Kenobi"],
        "planets": ["Tatooine", "Alderaan", "Yavin IV", "Hoth", "Dagobah", "Bespin", "Endor", "Naboo", "Coruscant", "Kamino"],
        "films": ["A New Hope", "The Empire Strikes Back", "Return of the Jedi", "The Phantom Menace", "Attack of the Clones",
                  "Revenge of the Sith"],
        "species": ["Human", "Droid", "Wookie", "Rodian", "Hutt", "Yoda's species", "Trandoshan", "Mon Calamari", "Ewok", "Sullustan"],
        "starships": ["CR90 corvette", "Star Destroyer", "Sentinel-class landing craft", "Death Star", "Millennium Falcon",
                      "Y-wing", "X-wing", "TIE Advanced x1", "Executor", "Rebel transport"],
        "vehicles": ["Sand Crawler", "T-16 skyhopper", "X-34 landspeeder", "TIE/LN starfighter", "Snowspeeder", "TIE bomber",
                     "AT-AT", "AT-ST", "Storm IV Twin-Pod cloud car", "Sail barge"],
    ]

    /// The first page of `collection`, each resource a JSON object with its id's URL.
    public static func firstPage(_ collection: String) -> [[String: Any]] {
        (firstPageNames[collection] ?? []).enumerated().map { resource(collection, id: $0.offset + 1, name: $0.element) }
    }

    /// The first page of `collection` as SWAPI sends it: `count` (``SWAPIDataSet/sizes``), `next`,
    /// `previous` and the ``firstPage(_:)`` resources.
    public static func page(_ collection: String) -> [UInt8] {
        let count = SWAPIDataSet.sizes[collection] ?? 0
        let results = firstPage(collection)
        let page: [String: Any] = ["count": count, "previous": NSNull(), "results": results,
                                   "next": count > results.count ? "https://swapi.dev/api/\(collection)/?page=2" as Any : NSNull()]
        return Array((try? JSONSerialization.data(withJSONObject: page, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }

    /// Resource `id` of `collection`, named `name`: every field SWAPI sends, with values of its kinds.
    public static func resource(_ collection: String, id: Int, name: String) -> [String: Any] {
        func links(_ to: String, _ ids: [Int]) -> [String] { ids.map { "https://swapi.dev/api/\(to)/\($0)/" } }
        var fields: [String: Any] = [
            "created": "2014-12-09T13:50:51.644000Z", "edited": "2014-12-20T21:17:56.891000Z",
            "url": "https://swapi.dev/api/\(collection)/\(id)/",
        ]
        let films = links("films", [1, 2, 3])
        switch collection {
        case "films":
            fields.merge(["title": name, "episode_id": [4, 5, 6, 1, 2, 3][(id - 1) % 6],
                          "opening_crawl": "It is a period of civil war.\r\nRebel spaceships, striking\r\nfrom a hidden base.",
                          "director": "George Lucas", "producer": "Gary Kurtz, Rick McCallum",
                          "release_date": "19\(77 + (id - 1) % 6 * 3)-05-25",
                          "characters": links("people", [1, 2, 3]), "planets": links("planets", [1, 2]),
                          "starships": links("starships", [2, 3, 5]), "vehicles": links("vehicles", [4, 6]),
                          "species": links("species", [1, 2])]) { $1 }
        case "people":
            fields.merge(["name": name, "height": "\(150 + id % 50)", "mass": "\(60 + id % 40)", "hair_color": "blond",
                          "skin_color": "fair", "eye_color": "blue", "birth_year": "19BBY", "gender": "male",
                          "homeworld": "https://swapi.dev/api/planets/1/", "films": films, "species": [String](),
                          "vehicles": links("vehicles", [14]), "starships": links("starships", [12])]) { $1 }
        case "planets":
            fields.merge(["name": name, "rotation_period": "23", "orbital_period": "304", "diameter": "10465",
                          "climate": "arid", "gravity": "1 standard", "terrain": "desert", "surface_water": "1",
                          "population": "200000", "residents": links("people", [1, 2]), "films": films]) { $1 }
        case "species":
            fields.merge(["name": name, "classification": "mammal", "designation": "sentient", "average_height": "180",
                          "skin_colors": "caucasian, black", "hair_colors": "blonde, brown", "eye_colors": "brown, blue",
                          "average_lifespan": "120", "homeworld": "https://swapi.dev/api/planets/9/", "language": "Galactic Basic",
                          "people": links("people", [1, 2]), "films": films]) { $1 }
        default:  // starships and vehicles
            fields.merge(["name": name, "model": name, "manufacturer": "Corellian Engineering Corporation",
                          "cost_in_credits": "3500000", "length": "150", "max_atmosphering_speed": "950", "crew": "30-165",
                          "passengers": "600", "cargo_capacity": "3000000", "consumables": "1 year",
                          "pilots": [String](), "films": films]) { $1 }
            if collection == "starships" {
                fields.merge(["hyperdrive_rating": "2.0", "MGLT": "60", "starship_class": "corvette"]) { $1 }
            } else {
                fields["vehicle_class"] = "wheeled"
            }
        }
        return fields
    }

    /// SWAPI's page for a path it does not know: HTML, status 404.
    public static let notFoundPage = Array("""
        <!doctype html>
        <html lang="en">
        <head>
          <title>Not Found</title>
        </head>
        <body>
          <h1>Not Found</h1><p>The requested resource was not found on this server.</p>
        </body>
        </html>

        """.utf8)
}
