import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

/// The arguments every SWAPI command takes.
package struct SWAPIQuery: ParsableArguments {
    // As visible as the type, for ArgumentParser (the implicit one is internal).
    package init() {}

    @Argument(help: "Show one resource by its id (the ID column of the list).")
    var id: Int?

    @Option(help: "Which page of the list, from 1 (SWAPI pages hold 10).")
    var page: Int?

    @Option(help: "Only resources whose name (or title) contains this text.")
    var search: String?

    @Flag(help: "Every page, not just one (fetched concurrently, through the cache).")
    var all = false
}

/// A SWAPI command: a list (or a search) of one collection, or one resource by id.
package protocol SWAPICommand: AsyncParsableCommand {
    associatedtype Resource: SWAPIResource & Presentable
    var query: SWAPIQuery { get }
    var options: GlobalOptions { get }
}

extension SWAPICommand {
    package func validate() throws {
        if query.id != nil, query.page != nil || query.search != nil || query.all {
            throw ValidationError("give an id, or --page/--search/--all, not both")
        }
        if query.all, query.page != nil { throw ValidationError("--all reads every page; leave out --page") }
        do {
            if let id = query.id { _ = try SWAPI.resource(Resource.self, id: id) }
            else { _ = try SWAPI.list(Resource.self, page: query.page, search: query.search) }
        } catch {
            throw ValidationError(CLIWording.message(of: error))
        }
    }

    package func run() async throws {
        if let id = query.id {
            try await showDetails(id: id)
            return
        }
        if query.all {
            try await showAllPages()
            return
        }
        let page = query.page ?? 1
        let search = query.search
        let loaded = try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
            try await client.loadList(Resource.self, page: query.page, search: search, options: options.loadOptions)
        }
        try CommandRunner.write([loaded], options: options, jsonItems: { raw in
            (raw["results"]?.arrayValue ?? [], [
                "count": raw["count"] ?? .null, "page": .integer(Int64(page)),
                "has_next": .bool(raw["next"].map { $0 != .null } ?? false),
            ])
        }) { lists in
            let list = lists[0]
            let table = Resource.table(list.results)
            // An empty result is said once: no "page 1 of 1, 0 in all" after it.
            return (list.results.isEmpty ? "nothing found" : table.render(width: Terminal.outputWidth(), style: options.style),
                    list.results.isEmpty ? nil : Self.footer(list, page: page))
        }
    }

    /// `page 2 of 9, 82 in all; next: --page 3, or --all`. The count is bounded where it is
    /// decoded; the arithmetic here cannot overflow on any `Int` all the same.
    package static func footer(_ list: SWAPIPage<Resource>, page: Int) -> String {
        let count = max(0, list.count)
        let pages = max(1, count / 10 + (count % 10 == 0 ? 0 : 1))
        var footer = "page \(page) of \(pages), \(count) in all"
        if list.next != nil, page < Int.max { footer += "; next: --page \(page + 1), or --all" }
        return footer
    }
}

extension SWAPICommand {
    /// One resource, with its linked resources by name: loaded concurrently through the cache
    /// as background work, so a name that cannot be loaded shows as its link, not as a failure.
    private func showDetails(id: Int) async throws {
        let endpoint = try SWAPI.resource(Resource.self, id: id)
        let progress = ProgressLine("naming linked resources")
        let (loaded, names) = try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
            let loaded = try await client.load(endpoint, options: options.loadOptions)
            guard !options.json else { return (loaded, LinkedNames()) }
            let names = await client.names(of: loaded.value.links.flatMap(\.1), options: options.loadOptions,
                                           progress: progress.handler)
            progress.finish()
            return (loaded, names)
        }
        let style = options.style
        let width = Terminal.outputWidth()
        try CommandRunner.writeItem(loaded, options: options, jsonItem: { $0 }) { resource in
            let lines = resource.detailLines(names: names.names, width: width, style: style)
            return (lines.joined(separator: "\n"), SWAPIDetail.unnamedNote(names.failures, readableLater: names.readableLater))
        }
    }

    /// Every page of the list (or the search), as one table, or as one JSON object. The pages
    /// come one at a time (``ReaderClient/forEachPage(_:search:options:progress:_:)``) and each
    /// is let go once taken: the table keeps only its rows, `--json` only the items' bytes
    /// (``PagedJSON``), so that memory does not grow with the pages. Nothing is written until
    /// every page is in: a page that fails leaves stdout empty.
    private func showAllPages() async throws {
        let progress = ProgressLine("reading \(Resource.collection.rawValue)")
        let search = query.search
        if options.json {
            let json = PagedJSON { raw in (raw["results"]?.arrayValue ?? [], ["count": raw["count"] ?? .null]) }
            try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
                defer { progress.finish() }
                try await client.forEachPage(Resource.self, search: search, options: options.loadOptions,
                                             progress: progress.handler) { (page) throws(LoadFailure) in
                    do throws(ReaderError) { try json.add(page) } catch { throw LoadFailure(error: error, decision: .alert) }
                }
            }
            try json.write(to: StandardOutput.write)
            return
        }
        var rows: [[String]] = []
        var pages = 0
        try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
            defer { progress.finish() }
            try await client.forEachPage(Resource.self, search: search, options: options.loadOptions,
                                         progress: progress.handler) { page in
                rows += page.value.results.map(\.tableRow)
                pages += 1
            }
        }
        // An empty result is said once, without a footer.
        guard !rows.isEmpty else { return try CommandRunner.writeTable("nothing found", footer: nil, options: options) }
        try CommandRunner.writeTable(Resource.table(rows: rows).render(width: Terminal.outputWidth(), style: options.style),
                                     footer: "\(rows.count) in all, \(pages) \(pages == 1 ? "page" : "pages")", options: options)
    }
}

/// How a resource shows as a table row and as a detail view.
package protocol Presentable {
    static var columns: [Table.Column] { get }
    var row: [String] { get }
    /// The fields of the detail view, as label and text.
    var details: [(String, String)] { get }
    /// The linked resources of the detail view, as label and links; shown by name.
    var links: [(String, [String])] { get }
}

/// The table and the detail view of a resource, for its command and for `reader browse` alike.
extension Presentable where Self: SWAPIResource {
    package static func table(_ results: [Self]) -> Table {
        table(rows: results.map(\.tableRow))
    }

    static func table(rows: [[String]]) -> Table {
        Table(columns: [Table.Column(title: "ID", alignRight: true)] + columns, rows: rows)
    }

    /// The resource's cells in the table: its id, then its own columns.
    var tableRow: [String] {
        [id.map(String.init) ?? "?"] + row
    }

    /// The fields of the detail view, their text sanitised.
    var shownDetails: [(String, String)] {
        details.map { ($0.0, TerminalText.sanitise($0.1, maxLength: 2000)) }
    }

    /// The detail view: one labelled row a field and a linked collection, values wrapped under
    /// their label (a hanging indent) to `width`; a link without a name shows as `people/5`.
    /// With no width (output to a pipe) each value stays on one line, for the pager or the
    /// script to take whole.
    package func detailLines(names: [String: String], width: Int?, style: Style) -> [String] {
        var rows = shownDetails
        rows += links.map { label, links in
            (label, links.isEmpty ? "none" : links.map { SWAPIDetail.name(of: $0, in: names) }.joined(separator: ", "))
        }
        let labelWidth = SWAPIDetail.labelWidth(rows.map(\.0))
        return rows.flatMap { SWAPIDetail.labelled($0.0, $0.1, labelWidth: labelWidth, width: width, style: style) }
    }
}

/// The pieces of a SWAPI detail view.
enum SWAPIDetail {
    /// The width of the label column: the widest label.
    static func labelWidth(_ labels: [String]) -> Int {
        labels.map { TerminalText.width($0) }.max() ?? 0
    }

    /// `value` under `label` padded to `labelWidth`, wrapped to `width` with a hanging indent
    /// (one line when `width` is nil); an empty label leaves the column blank.
    static func labelled(_ label: String, _ value: String, labelWidth: Int, width: Int?, style: Style) -> [String] {
        let lines = width.map { TerminalText.wrap(value, toWidth: max(10, $0 - labelWidth - 2), breakingLongWords: true) } ?? [value]
        return lines.enumerated().map { index, line in
            (index == 0 && !label.isEmpty ? style.bold(TerminalText.pad(label, toWidth: labelWidth)) : String(repeating: " ", count: labelWidth))
                + (line.isEmpty ? "" : "  " + line)
        }
    }

    /// What a detail view says under it of the links that could not be named; nil when all were.
    /// - Parameter readableLater: the links another run may name (``LinkedNames/readableLater``):
    ///   a sync is offered only for those, never for a not-found or a refusal.
    static func unnamedNote(_ failures: [String: ErrorCode], readableLater: Set<String>) -> String? {
        guard let code = Set(failures.values).sorted(by: { $0.description < $1.description }).first else { return nil }
        let sync = readableLater.isDisjoint(with: failures.keys) ? "" : ". 'reader sync swapi' makes them available offline"
        return "\(failures.count) linked \(failures.count == 1 ? "name" : "names") could not be loaded (\(code)); "
            + "they show as links" + sync
    }

    /// A link's name, sanitised, else the link as `people/5`.
    static func name(of link: String, in names: [String: String]) -> String {
        names[link].map { TerminalText.sanitise($0, maxLength: 100) } ?? shortLink(link)
    }

    /// `people/5` for a link that could not be named.
    static func shortLink(_ link: String) -> String {
        let parts = link.split(separator: "/").suffix(2)
        return TerminalText.sanitise(parts.joined(separator: "/"), maxLength: 40)
    }
}

extension Reader {
    struct Films: SWAPICommand, HelpExamples {
        static let configuration = CommandConfiguration(commandName: "films", abstract: "Star Wars films.")
        static let examples = ["reader films", "reader films 1", "reader films --search hope", "reader films --all --json"]
        typealias Resource = Film
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct People: SWAPICommand, HelpExamples {
        static let configuration = CommandConfiguration(commandName: "people", abstract: "People and characters.")
        static let examples = ["reader people", "reader people --page 2", "reader people --search skywalker", "reader people 1", "reader people --all --offline"]
        typealias Resource = Person
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Planets: SWAPICommand, HelpExamples {
        static let configuration = CommandConfiguration(commandName: "planets", abstract: "Planets.")
        static let examples = ["reader planets", "reader planets --search tat", "reader planets 1", "reader planets --all"]
        typealias Resource = Planet
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Species: SWAPICommand, HelpExamples {
        static let configuration = CommandConfiguration(commandName: "species", abstract: "Species.")
        static let examples = ["reader species", "reader species --search wook", "reader species 3", "reader species --page 2"]
        typealias Resource = ReaderKit.Species
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Starships: SWAPICommand, HelpExamples {
        static let configuration = CommandConfiguration(commandName: "starships", abstract: "Starships.")
        static let examples = ["reader starships", "reader starships --search falcon", "reader starships 10", "reader starships --page 2"]
        typealias Resource = Starship
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }

    struct Vehicles: SWAPICommand, HelpExamples {
        static let configuration = CommandConfiguration(commandName: "vehicles", abstract: "Vehicles (not starships).")
        static let examples = ["reader vehicles", "reader vehicles --search speeder", "reader vehicles 14", "reader vehicles --all --json"]
        typealias Resource = Vehicle
        @OptionGroup var query: SWAPIQuery
        @OptionGroup var options: GlobalOptions
    }
}


extension Film: Presentable {
    package static let columns: [Table.Column] = [.init(title: "EPISODE", alignRight: true), .init(title: "TITLE", flexible: true),
                                          .init(title: "DIRECTOR", minimumWidth: 8, dropOrder: 1), .init(title: "RELEASED", dropOrder: 2)]
    package var row: [String] { [String(episodeID), title, director, releaseDate.description] }
    package var details: [(String, String)] {
        [("Title", title), ("Episode", String(episodeID)), ("Director", director), ("Producer", producer),
         ("Released", releaseDate.description), ("Opening crawl", openingCrawl)]
    }
    package var links: [(String, [String])] {
        [("Characters", characters), ("Planets", planets), ("Starships", starships), ("Vehicles", vehicles), ("Species", species)]
    }
}

extension Person: Presentable {
    package static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "BORN", dropOrder: 4),
                                          .init(title: "GENDER", minimumWidth: 6, dropOrder: 3),
                                          .init(title: "HEIGHT", alignRight: true, dropOrder: 2), .init(title: "MASS", alignRight: true, dropOrder: 1)]
    package var row: [String] { [name, birthYear, gender, height, mass] }
    package var details: [(String, String)] {
        [("Name", name), ("Born", birthYear), ("Gender", gender), ("Height", height), ("Mass", mass),
         ("Hair", hairColor), ("Skin", skinColor), ("Eyes", eyeColor)]
    }
    package var links: [(String, [String])] {
        [("Homeworld", homeworld.map { [$0] } ?? []), ("Films", films), ("Species", species), ("Starships", starships),
         ("Vehicles", vehicles)]
    }
}

extension Planet: Presentable {
    package static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "CLIMATE", minimumWidth: 10, dropOrder: 4),
                                          .init(title: "TERRAIN", minimumWidth: 10, dropOrder: 3),
                                          .init(title: "POPULATION", alignRight: true, dropOrder: 2),
                                          .init(title: "DIAMETER", alignRight: true, dropOrder: 1)]
    package var row: [String] { [name, climate, terrain, population, diameter] }
    package var details: [(String, String)] {
        [("Name", name), ("Climate", climate), ("Terrain", terrain), ("Population", population), ("Diameter", diameter),
         ("Gravity", gravity), ("Day", rotationPeriod), ("Year", orbitalPeriod), ("Surface water", surfaceWater)]
    }
    package var links: [(String, [String])] { [("Residents", residents), ("Films", films)] }
}

extension Species: Presentable {
    package static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "CLASSIFICATION", dropOrder: 3),
                                          .init(title: "DESIGNATION", dropOrder: 1), .init(title: "LANGUAGE", minimumWidth: 8, dropOrder: 2)]
    package var row: [String] { [name, classification, designation, language] }
    package var details: [(String, String)] {
        [("Name", name), ("Classification", classification), ("Designation", designation), ("Language", language),
         ("Average height", averageHeight), ("Average lifespan", averageLifespan)]
    }
    package var links: [(String, [String])] { [("Homeworld", homeworld.map { [$0] } ?? []), ("People", people), ("Films", films)] }
}

extension Starship: Presentable {
    package static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "MODEL", minimumWidth: 10, dropOrder: 2),
                                          .init(title: "CLASS", minimumWidth: 10, dropOrder: 1),
                                          .init(title: "CREW", alignRight: true, dropOrder: 3)]
    package var row: [String] { [name, model, starshipClass, crew] }
    package var details: [(String, String)] {
        [("Name", name), ("Model", model), ("Class", starshipClass), ("Manufacturer", manufacturer),
         ("Cost (credits)", costInCredits), ("Length", length), ("Crew", crew), ("Passengers", passengers),
         ("Hyperdrive", hyperdriveRating), ("MGLT", megalights)]
    }
    package var links: [(String, [String])] { [("Pilots", pilots), ("Films", films)] }
}

extension Vehicle: Presentable {
    package static let columns: [Table.Column] = [.init(title: "NAME", flexible: true), .init(title: "MODEL", minimumWidth: 10, dropOrder: 2),
                                          .init(title: "CLASS", minimumWidth: 10, dropOrder: 1),
                                          .init(title: "CREW", alignRight: true, dropOrder: 3)]
    package var row: [String] { [name, model, vehicleClass, crew] }
    package var details: [(String, String)] {
        [("Name", name), ("Model", model), ("Class", vehicleClass), ("Manufacturer", manufacturer),
         ("Cost (credits)", costInCredits), ("Length", length), ("Crew", crew), ("Passengers", passengers),
         ]
    }
    package var links: [(String, [String])] { [("Pilots", pilots), ("Films", films)] }
}
