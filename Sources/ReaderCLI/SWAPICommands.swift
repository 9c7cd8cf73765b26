import ArgumentParser
import Foundation
import ReaderKit

/// The arguments every SWAPI command takes.
struct SWAPIQuery: ParsableArguments {
    @Argument(help: "Show one resource by its id (the ID column of the list).")
    var id: Int?

    @Option(help: "Which page of the list, from 1 (SWAPI pages hold 10).")
    var page: Int?

    @Option(help: "Only resources whose name (or title) contains this text.")
    var search: String?
}

/// A SWAPI command: a list (or a search) of one collection, or one resource by id.
protocol SWAPICommand: AsyncParsableCommand {
    associatedtype Resource: SWAPIResource & Presentable
    var query: SWAPIQuery { get }
    var options: GlobalOptions { get }
}

extension SWAPICommand {
    func validate() throws {
        if query.id != nil, query.page != nil || query.search != nil {
            throw ValidationError("give an id, or --page/--search, not both")
        }
        do {
            if let id = query.id { _ = try SWAPI.resource(Resource.self, id: id) }
            else { _ = try SWAPI.list(Resource.self, page: query.page, search: query.search) }
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() async throws {
        if let id = query.id {
            try await CommandRunner.run(try SWAPI.resource(Resource.self, id: id), options: options,
                                        jsonItems: { .single($0) }, render: { resource in
                let width = resource.details.map { TerminalText.width($0.0) }.max() ?? 0
                let lines = resource.details.map { label, value in
                    TerminalText.pad(label, toWidth: width) + "  " + TerminalText.sanitise(value, maxLength: 2000)
                }
                return (lines.joined(separator: "\n"), nil)
            })
            return
        }
        let page = query.page ?? 1
        try await CommandRunner.run(try SWAPI.list(Resource.self, page: query.page, search: query.search), options: options,
                                    jsonItems: { raw in .list(raw["results"]?.arrayValue ?? [], meta: [
                                        "count": raw["count"] ?? .null, "page": .integer(Int64(page)),
                                        "has_next": .bool(raw["next"].map { $0 != .null } ?? false),
                                    ]) }, render: { list in
            let table = Table(columns: [Table.Column(title: "ID", alignRight: true)] + Resource.columns,
                              rows: list.results.map { [$0.id.map(String.init) ?? "?"] + $0.row })
            let pages = max(1, (list.count + 9) / 10)
            var footer = "page \(page) of \(pages), \(list.count) in all"
            if list.next != nil { footer += "; next: --page \(page + 1)" }
            return (list.results.isEmpty ? "nothing found" : table.render(width: Terminal.outputWidth()), footer)
        })
    }
}

/// How a resource shows as a table row and as a detail view.
protocol Presentable {
    static var columns: [Table.Column] { get }
    var row: [String] { get }
    var details: [(String, String)] { get }
}

extension Reader {
    struct Films: SWAPICommand {
        static let configuration = CommandConfiguration(abstract: "Star Wars films.")
        typealias Resource = Film
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct People: SWAPICommand {
        static let configuration = CommandConfiguration(abstract: "People and characters.")
        typealias Resource = Person
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Planets: SWAPICommand {
        static let configuration = CommandConfiguration(abstract: "Planets.")
        typealias Resource = Planet
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Species: SWAPICommand {
        static let configuration = CommandConfiguration(abstract: "Species.")
        typealias Resource = ReaderKit.Species
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Starships: SWAPICommand {
        static let configuration = CommandConfiguration(abstract: "Starships.")
        typealias Resource = Starship
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Vehicles: SWAPICommand {
        static let configuration = CommandConfiguration(abstract: "Vehicles (not starships).")
        typealias Resource = Vehicle
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }
}

private func count(_ links: [String]) -> String { String(links.count) }

extension Film: Presentable {
    static let columns: [Table.Column] = [.init(title: "EPISODE", alignRight: true), .init(title: "TITLE", flexible: true),
                                          .init(title: "DIRECTOR"), .init(title: "RELEASED")]
    var row: [String] { [String(episodeID), title, director, releaseDate.description] }
    var details: [(String, String)] {
        [("Title", title), ("Episode", String(episodeID)), ("Director", director), ("Producer", producer),
         ("Released", releaseDate.description), ("Characters", count(characters)), ("Planets", count(planets)),
         ("Starships", count(starships)), ("Vehicles", count(vehicles)), ("Species", count(species)),
         ("Opening crawl", openingCrawl)]
    }
}

extension Person: Presentable {
    static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "BORN"), .init(title: "GENDER"),
                                          .init(title: "HEIGHT", alignRight: true), .init(title: "MASS", alignRight: true)]
    var row: [String] { [name, birthYear, gender, height, mass] }
    var details: [(String, String)] {
        [("Name", name), ("Born", birthYear), ("Gender", gender), ("Height", height), ("Mass", mass),
         ("Hair", hairColor), ("Skin", skinColor), ("Eyes", eyeColor), ("Films", count(films))]
    }
}

extension Planet: Presentable {
    static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "CLIMATE"), .init(title: "TERRAIN"),
                                          .init(title: "POPULATION", alignRight: true), .init(title: "DIAMETER", alignRight: true)]
    var row: [String] { [name, climate, terrain, population, diameter] }
    var details: [(String, String)] {
        [("Name", name), ("Climate", climate), ("Terrain", terrain), ("Population", population), ("Diameter", diameter),
         ("Gravity", gravity), ("Day", rotationPeriod), ("Year", orbitalPeriod), ("Surface water", surfaceWater),
         ("Residents", count(residents)), ("Films", count(films))]
    }
}

extension Species: Presentable {
    static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "CLASSIFICATION"),
                                          .init(title: "DESIGNATION"), .init(title: "LANGUAGE")]
    var row: [String] { [name, classification, designation, language] }
    var details: [(String, String)] {
        [("Name", name), ("Classification", classification), ("Designation", designation), ("Language", language),
         ("Average height", averageHeight), ("Average lifespan", averageLifespan), ("People", count(people)),
         ("Films", count(films))]
    }
}

extension Starship: Presentable {
    static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "MODEL"), .init(title: "CLASS"),
                                          .init(title: "CREW", alignRight: true)]
    var row: [String] { [name, model, starshipClass, crew] }
    var details: [(String, String)] {
        [("Name", name), ("Model", model), ("Class", starshipClass), ("Manufacturer", manufacturer),
         ("Cost (credits)", costInCredits), ("Length", length), ("Crew", crew), ("Passengers", passengers),
         ("Hyperdrive", hyperdriveRating), ("MGLT", megalights), ("Pilots", count(pilots)), ("Films", count(films))]
    }
}

extension Vehicle: Presentable {
    static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "MODEL"), .init(title: "CLASS"),
                                          .init(title: "CREW", alignRight: true)]
    var row: [String] { [name, model, vehicleClass, crew] }
    var details: [(String, String)] {
        [("Name", name), ("Model", model), ("Class", vehicleClass), ("Manufacturer", manufacturer),
         ("Cost (credits)", costInCredits), ("Length", length), ("Crew", crew), ("Passengers", passengers),
         ("Pilots", count(pilots)), ("Films", count(films))]
    }
}
