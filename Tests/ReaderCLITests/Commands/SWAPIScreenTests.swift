import Foundation
import ReaderTerminal
import Testing
import TestSupport
@testable import ReaderCLI
@testable import ReaderKit

/// `reader browse swapi`'s screens as a model and a view: the six collections with their
/// counts, a collection's table, a resource's detail with its linked names, each fed the
/// answers a load would give (decoded from the recorded fixtures) and keys, with no client.
@Suite struct SWAPIScreenTests {
    static let small = ScreenLayout(columns: 40, rows: 9, now: Date(timeIntervalSince1970: 1_790_000_000))
    static let large = ScreenLayout(columns: 80, rows: 23, now: Date(timeIntervalSince1970: 1_790_000_000))
    static let swapi = SWAPIBrowsing(client: nil)

    static func metadata(stale: Bool = false) -> LoadMetadata {
        LoadMetadata(source: .cache, stale: stale, fetchedAt: Date(timeIntervalSince1970: 1_789_990_000), ageSeconds: 10_000,
                     errorCode: nil, url: "https://swapi.dev/api/")
    }

    static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try ReaderJSON.makeDecoder().decode(type, from: Data(Fixtures.bytes(name)))
    }

    static func loaded<Value: Sendable>(_ value: Value) -> ScreenAnswer {
        ScreenAnswer(LoadResult<Value>.loaded(value, metadata()), report: .loaded(metadata()))
    }

    static func text(_ screen: some BrowseScreen, _ layout: ScreenLayout) -> String {
        var grid = Grid(size: TerminalSize(columns: layout.columns, rows: layout.rows))
        screen.draw(into: &grid, in: layout)
        return grid.text
    }

    /// The rows of `screen` drawn in reverse video, the spaces after their text left out.
    static func reversed(_ screen: some BrowseScreen, _ layout: ScreenLayout) -> [String] {
        var grid = Grid(size: TerminalSize(columns: layout.columns, rows: layout.rows))
        screen.draw(into: &grid, in: layout)
        return (0..<layout.rows).compactMap { row in
            let cells = (0..<layout.columns).filter { grid[x: $0, y: row].style.reverse }
            guard let first = cells.first, let last = cells.last else { return nil }
            var text = (first...last).map { grid[x: $0, y: row].grapheme }.joined()
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
    }

    /// What each effect is, written out: `load list cacheFirst`, `push swapi/people/1`.
    static func describe(_ effects: [ScreenEffect]) -> [String] {
        effects.map { effect in
            switch effect {
            case .load(let id, let kind, _): "load \(id) \(kind)"
            case .run(let id, _): "run \(id)"
            case .cancel(let id): "cancel \(id)"
            case .dropQueued(let id): "drop \(id)"
            case .push(let screen): "push \(screen.place.last ?? "") \(type(of: screen))"
            case .open(let url): "open \(url)"
            case .say(let text): "say \(text)"
            }
        }
    }

    // MARK: - The collections

    @Test func collectionsStartWithTheSixCountsFromTheCacheFirst() {
        let screen = SWAPICollectionsScreen(swapi: Self.swapi)
        #expect(Self.describe(screen.start(in: Self.large)) == [
            "load count:films cacheFirst", "load count:people cacheFirst", "load count:planets cacheFirst",
            "load count:species cacheFirst", "load count:starships cacheFirst", "load count:vehicles cacheFirst",
        ])
        #expect(Self.text(screen, Self.small) == """
            COLLECTION  COUNT
            films           …
            people          …
            planets         …
            species         …
            starships       …
            vehicles        …


            """)
        #expect(Self.reversed(screen, Self.small) == ["films           …"])
        // Across the row, to the last column.
        var grid = Grid(size: TerminalSize(columns: 40, rows: 9))
        screen.draw(into: &grid, in: Self.small)
        #expect(grid[x: 0, y: 1].style.reverse && grid[x: 39, y: 1].style.reverse && !grid[x: 39, y: 2].style.reverse)
    }

    @Test(.replaysRecordings) func collectionsShowEachCountAsItComesAndTheCodeOfOneThatFails() throws {
        var screen = SWAPICollectionsScreen(swapi: Self.swapi)
        let people = try Self.decode(SWAPIPage<Person>.self, "swapi/people_page1.json")
        _ = screen.handle(.answer(id: "count:people", Self.loaded(people.count)), in: Self.large)
        let films = try Self.decode(SWAPIPage<Film>.self, "swapi/films.json")
        _ = screen.handle(.answer(id: "count:films", Self.loaded(films.count)), in: Self.large)
        let notCached = BrowseFailure(.cache(CacheFailure(.notCached, path: "cache.sqlite", detail: "")))
        _ = screen.handle(.answer(id: "count:vehicles", ScreenAnswer(LoadResult<Int>.failed(notCached))), in: Self.large)
        let timedOut = BrowseFailure(.transport(TransportFailure(.timedOut, host: "swapi.dev", detail: "")))
        _ = screen.handle(.answer(id: "count:starships", ScreenAnswer(LoadResult<Int>.failed(timedOut))), in: Self.large)
        // Offline with nothing cached is said in words; a failure by its code.
        #expect(Self.text(screen, Self.large) == """
            COLLECTION       COUNT
            films                6
            people              82
            planets              …
            species              …
            starships        T1001
            vehicles    not cached
            """ + String(repeating: "\n", count: 16))
        #expect(screen.place == ["swapi · 6 collections", "swapi"])
        #expect(screen.shown?.stale == false)
    }

    @Test func enterOnACollectionOpensItsTable() {
        var screen = SWAPICollectionsScreen(swapi: Self.swapi)
        _ = screen.handle(.key(.character("j")), in: Self.small)
        #expect(Self.reversed(screen, Self.small) == ["people          …"])
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/people SWAPICollectionScreen<Person>"])
        _ = screen.handle(.key(.character("G")), in: Self.small)
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/vehicles SWAPICollectionScreen<Vehicle>"])
        #expect(Self.describe(screen.handle(.refresh, in: Self.small)).first == "load count:films refresh")
    }

    /// `/` on `reader browse swapi`: the collections are a list, filtered as every list is.
    @Test func theCollectionsAreFilteredByName() {
        var screen = SWAPICollectionsScreen(swapi: Self.swapi)
        #expect(screen.filters)
        _ = screen.handle(.key(.character("j")), in: Self.small)
        _ = screen.handle(.filter("p"), in: Self.small)
        #expect(screen.place == ["swapi · 4 of 6 collections", "swapi"])
        #expect(Self.text(screen, Self.small) == """
            COLLECTION  COUNT
            people          …
            planets         …
            species         …
            starships       …




            """)
        #expect(Self.reversed(screen, Self.small) == ["people          …"], "the one selected stays selected")
        _ = screen.handle(.filter("star"), in: Self.small)
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/starships SWAPICollectionScreen<Starship>"])
        _ = screen.handle(.filter("xyz"), in: Self.small)
        #expect(Self.text(screen, Self.small).hasPrefix("no collection matches /xyz\n"))
        #expect(screen.handle(.key(.enter), in: Self.small).isEmpty)
        _ = screen.handle(.filter(""), in: Self.small)
        #expect(screen.place == ["swapi · 6 collections", "swapi"])
    }

    // MARK: - A collection

    @Test(.replaysRecordings) func aCollectionLoadsEveryPageAndDrawsTheCommandsTable() throws {
        var screen = SWAPICollectionScreen<Person>(swapi: Self.swapi)
        #expect(Self.describe(screen.start(in: Self.large)) == ["load list cacheFirst"])
        #expect(Self.text(screen, Self.small).hasPrefix("loading swapi/people…\n"))
        #expect(!screen.hasContent)
        let page = try Self.decode(SWAPIPage<Person>.self, "swapi/people_page1.json")
        #expect(screen.handle(.answer(id: "list", Self.loaded(page)), in: Self.large).isEmpty)
        #expect(screen.place == ["swapi/people · 10 people", "swapi/people"])
        #expect(Self.text(screen, Self.large) == """
            ID  NAME                BORN     GENDER  HEIGHT  MASS
             1  Luke Skywalker      19BBY    male       172    77
             2  C-3PO               112BBY   n/a        167    75
             3  R2-D2               33BBY    n/a         96    32
             4  Darth Vader         41.9BBY  male       202   136
             5  Leia Organa         19BBY    female     150    49
             6  Owen Lars           52BBY    male       178   120
             7  Beru Whitesun lars  47BBY    female     165    75
             8  R5-D4               unknown  n/a         97    32
             9  Biggs Darklighter   24BBY    male       183    84
            10  Obi-Wan Kenobi      57BBY    male       182    77
            """ + String(repeating: "\n", count: 12))
        // At 40 columns the columns give way as `reader people` gives them: MASS, then HEIGHT.
        #expect(Self.text(screen, Self.small) == """
            ID  NAME                BORN     GENDER
             1  Luke Skywalker      19BBY    male
             2  C-3PO               112BBY   n/a
             3  R2-D2               33BBY    n/a
             4  Darth Vader         41.9BBY  male
             5  Leia Organa         19BBY    female
             6  Owen Lars           52BBY    male
             7  Beru Whitesun lars  47BBY    female
             8  R5-D4               unknown  n/a
            """)
        #expect(Self.reversed(screen, Self.small) == [" 1  Luke Skywalker      19BBY    male"])
        // At 50, MASS alone gives way: HEIGHT is whole, not cut at the edge.
        let fifty = ScreenLayout(columns: 50, rows: 2, now: Self.small.now)
        #expect(Self.text(screen, fifty) == """
            ID  NAME                BORN     GENDER  HEIGHT
             1  Luke Skywalker      19BBY    male       172
            """)
    }

    /// Idle is idle: 10,000 rows are laid out when they come, when the filter or the width
    /// changes, never at a frame (a tick's, each second, used to lay the whole table out again).
    @Test(.replaysRecordings) func aLongCollectionIsLaidOutOnceNotAtEveryFrame() throws {
        let recorded = try Self.decode(SWAPIPage<Person>.self, "swapi/people_page1.json").results
        let people = (0..<10_000).map { number in
            var person = recorded[number % recorded.count]
            person.name = "Person \(number)"
            person.url = "https://swapi.dev/api/people/\(number + 1)/"
            return person
        }
        var screen = SWAPICollectionScreen<Person>(swapi: Self.swapi)
        _ = screen.handle(.answer(id: "list", Self.loaded(SWAPIPage(count: people.count, next: nil, previous: nil, results: people))), in: Self.large)
        #expect(screen.laidOut?.columns == 80)
        #expect(screen.laidOut?.lines.count == 10_001)
        let before = Self.text(screen, Self.large)
        #expect(before.split(separator: "\n")[1].contains(" Person 0 "))
        _ = screen.handle(.tick, in: Self.large)
        #expect(Self.text(screen, Self.large) == before)
        // The width changes: laid out again at the new one; the filter: only what it keeps.
        _ = screen.handle(.resized, in: Self.small)
        #expect(screen.laidOut?.columns == 40)
        #expect(Self.text(screen, Self.small).split(separator: "\n").allSatisfy { $0.count <= 40 })
        _ = screen.handle(.filter("person 999"), in: Self.small)
        #expect(screen.laidOut?.lines.count == 12, "the header, 999 and 9990…9999")
    }

    @Test(.replaysRecordings) func aCollectionScrollsFiltersAndOpensTheSelectedResource() throws {
        var screen = SWAPICollectionScreen<Person>(swapi: Self.swapi)
        let page = try Self.decode(SWAPIPage<Person>.self, "swapi/people_page1.json")
        _ = screen.handle(.answer(id: "list", Self.loaded(page)), in: Self.small)
        _ = screen.handle(.key(.character("G")), in: Self.small)
        #expect(Self.text(screen, Self.small).split(separator: "\n").last == "10  Obi-Wan Kenobi      57BBY    male")
        #expect(Self.reversed(screen, Self.small) == ["10  Obi-Wan Kenobi      57BBY    male"])
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/people/10 SWAPIDetailScreen<Person>"])

        _ = screen.handle(.filter("LARS"), in: Self.small)
        #expect(screen.place == ["swapi/people · 2 of 10 people", "swapi/people"])
        #expect(Self.text(screen, Self.small) == """
            ID  NAME                BORN   GENDER
             6  Owen Lars           52BBY  male
             7  Beru Whitesun lars  47BBY  female






            """)
        _ = screen.handle(.key(.down), in: Self.small)
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/people/7 SWAPIDetailScreen<Person>"])
        // The filter cleared, the same person stays selected.
        _ = screen.handle(.filter(""), in: Self.small)
        #expect(Self.reversed(screen, Self.small) == [" 7  Beru Whitesun lars  47BBY    female"])
        _ = screen.handle(.filter("yoda"), in: Self.small)
        #expect(Self.text(screen, Self.small).hasPrefix("nothing matches /yoda\n"))
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == [])
        #expect(Self.describe(screen.handle(.refresh, in: Self.small)) == ["load list refresh"])
    }

    // MARK: - A resource

    /// Luke's links named as `reader people 1` would name them from the fixtures; the vehicle
    /// and the starship the fixtures lack could not be.
    static func lukesNames() -> LinkedNames {
        var names = LinkedNames()
        names.names = [
            "https://swapi.dev/api/planets/1/": "Tatooine",
            "https://swapi.dev/api/films/1/": "A New Hope", "https://swapi.dev/api/films/2/": "The Empire Strikes Back",
            "https://swapi.dev/api/films/3/": "Return of the Jedi", "https://swapi.dev/api/films/6/": "Revenge of the Sith",
            "https://swapi.dev/api/vehicles/14/": "Snowspeeder", "https://swapi.dev/api/starships/12/": "X-wing",
        ]
        names.failures = ["https://swapi.dev/api/vehicles/30/": ErrorCode(.cache, 1001),
                          "https://swapi.dev/api/starships/22/": ErrorCode(.cache, 1001)]
        names.readableLater = Set(names.failures.keys)
        return names
    }

    /// Luke's fields as `reader people 1` shows them, each line ending with a line break.
    static let lukesFields = """
        Name       Luke Skywalker
        Born       19BBY
        Gender     male
        Height     172
        Mass       77
        Hair       blond
        Skin       fair
        Eyes       blue

        """

    static func luke() throws -> SWAPIDetailScreen<Person> {
        var screen = SWAPIDetailScreen<Person>(id: 1, swapi: swapi)
        _ = screen.handle(.answer(id: "resource", loaded(try decode(Person.self, "swapi/people_1.json"))), in: large)
        _ = screen.handle(.answer(id: "names:1", ScreenAnswer(lukesNames())), in: large)
        return screen
    }

    @Test(.replaysRecordings) func aResourceLoadsThenAsksForTheNamesOfItsLinks() throws {
        var screen = SWAPIDetailScreen<Person>(id: 1, swapi: Self.swapi)
        #expect(Self.describe(screen.start(in: Self.large)) == ["load resource cacheFirst"])
        #expect(screen.place == ["swapi/people/1"])
        let luke = try Self.decode(Person.self, "swapi/people_1.json")
        #expect(Self.describe(screen.handle(.answer(id: "resource", Self.loaded(luke)), in: Self.large)) == ["load names:1 current"])
        // Until the names come, the links show as links.
        #expect(Self.text(screen, Self.small) == Self.lukesFields + "Homeworld  planets/1")
        // The revalidated copy answering second asks for no name again.
        #expect(Self.describe(screen.handle(.answer(id: "resource", Self.loaded(luke)), in: Self.large)) == [])
        #expect(screen.place == ["swapi/people/1 · Luke Skywalker", "swapi/people/1"])
    }

    @Test(.replaysRecordings) func aResourceShowsItsLinkedNamesGroupedTheFirstSelected() throws {
        let screen = try Self.luke()
        #expect(Self.text(screen, Self.large) == Self.lukesFields + """
            Homeworld  Tatooine
            Films      A New Hope
                       The Empire Strikes Back
                       Return of the Jedi
                       Revenge of the Sith
            Species    none
            Starships  X-wing
                       starships/22
            Vehicles   Snowspeeder
                       vehicles/30
            2 linked names could not be loaded (C1001); they show as links. 'reader sync
            swapi' makes them available offline



            """)
        #expect(Self.reversed(screen, Self.large) == ["Tatooine"])
    }

    @Test(.replaysRecordings) func jAndKMoveAmongTheLinkedNamesAndEnterOpensTheSelectedOne() throws {
        var screen = try Self.luke()
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/planets/1 SWAPIDetailScreen<Planet>"])
        _ = screen.handle(.key(.character("j")), in: Self.small)
        _ = screen.handle(.key(.character("j")), in: Self.small)
        // The second film is on the last row: the screen scrolled to it, Name and Born above the top.
        #expect(Self.text(screen, Self.small) == Self.lukesFields.split(separator: "\n").dropFirst(2).joined(separator: "\n") + """

            Homeworld  Tatooine
            Films      A New Hope
                       The Empire Strikes Back
            """)
        #expect(Self.reversed(screen, Self.small) == ["The Empire Strikes Back"])
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/films/2 SWAPIDetailScreen<Film>"])
        _ = screen.handle(.key(.character("k")), in: Self.small)
        #expect(Self.reversed(screen, Self.small) == ["A New Hope"])
        _ = screen.handle(.key(.character("G")), in: Self.small)
        #expect(Self.reversed(screen, Self.small) == ["vehicles/30"])
        // A name that could not be loaded opens all the same: its screen says why, in place.
        #expect(Self.describe(screen.handle(.key(.enter), in: Self.small)) == ["push swapi/vehicles/30 SWAPIDetailScreen<Vehicle>"])
        _ = screen.handle(.key(.character("g")), in: Self.small)
        #expect(Self.text(screen, Self.small).hasPrefix("Name       Luke Skywalker\n"))
        #expect(Self.reversed(screen, Self.small) == ["Tatooine"])
    }

    @Test(.replaysRecordings) func aNameFromTheServerIsSanitisedBeforeTheScreen() throws {
        var screen = SWAPIDetailScreen<Person>(id: 1, swapi: Self.swapi)
        _ = screen.handle(.answer(id: "resource", Self.loaded(try Self.decode(Person.self, "swapi/people_1.json"))), in: Self.large)
        var names = LinkedNames()
        // A title payload long enough to wrap, were it measured before it was removed.
        let payload = String(repeating: "owned ", count: 20)
        names.names = ["https://swapi.dev/api/planets/1/": "\u{1B}]0;\(payload)\u{07}Tato\u{202E}oine\u{1B}[2J"]
        _ = screen.handle(.answer(id: "names:1", ScreenAnswer(names)), in: Self.large)
        #expect(Self.text(screen, Self.large).split(separator: "\n").dropFirst(8).prefix(2) == ["Homeworld  Tatooine", "Films      films/1"])
        #expect(Self.reversed(screen, Self.large) == ["Tatooine"])
    }

    @Test func aResourceNotLoadedHasNothingToShowSoTheBrowserShowsTheFailure() {
        var screen = SWAPIDetailScreen<Vehicle>(id: 30, swapi: Self.swapi)
        let failure = BrowseFailure(.cache(CacheFailure(.notCached, path: "cache.sqlite", detail: "")))
        #expect(screen.handle(.answer(id: "resource", ScreenAnswer(LoadResult<Vehicle>.failed(failure))), in: Self.small).isEmpty)
        #expect(!screen.hasContent)
        #expect(Self.describe(screen.handle(.refresh, in: Self.small)) == ["load resource refresh"])
    }

    // MARK: - Targets

    @Test func targetsNameACollectionOrAResource() throws {
        #expect(try SWAPIBrowsing.Target(nil) == .collections)
        #expect(try SWAPIBrowsing.Target("people") == .collection(.people))
        #expect(try SWAPIBrowsing.Target("Films/1") == .resource(.films, id: 1))
        let browse = try #require(SWAPIPlugin().browse)
        #expect(!browse.takesUnnamedTargets)
        _ = try browse.prepare("planets", ServiceSettings())
        _ = try browse.prepare(nil, ServiceSettings())
        #expect(SWAPIBrowsing.screen(for: .collection(.planets), browsing: Self.swapi) is SWAPICollectionScreen<Planet>)
        #expect(SWAPIBrowsing.screen(for: .resource(.starships, id: 10), browsing: Self.swapi).place == ["swapi/starships/10"])
    }

    @Test(.replaysRecordings) func anUnknownCollectionIsR1001WithTheOneMeant() throws {
        let browse = try #require(SWAPIPlugin().browse)
        for (target, message) in [
            ("nope", #"swapi has no collection "nope" (it has films, people, planets, species, starships, vehicles)"#),
            ("peple", #"swapi has no collection "peple": did you mean swapi/people? (it has films, people, planets, species, starships, vehicles)"#),
            ("people/luke", "swapi/people/ takes an id, a whole number from 1 to 1000000"),
        ] {
            do {
                _ = try browse.prepare(target, ServiceSettings())
                Issue.record("\(target) was taken")
            } catch {
                #expect(error.code.description == "R1001")
                #expect(CLIWording.message(of: error) == message)
            }
        }
    }

    @Test(.replaysRecordings) func pagesAtTheEndsReachTheLastAndTheFirstName() throws {
        var screen = try Self.luke()
        for _ in 0..<5 { _ = screen.handle(.key(.pageDown), in: Self.small) }
        #expect(Self.reversed(screen, Self.small) == ["vehicles/30"])
        for _ in 0..<5 { _ = screen.handle(.key(.pageUp), in: Self.small) }
        #expect(Self.reversed(screen, Self.small) == ["Tatooine"])
    }

    @Test func theNoteOffersASyncOnlyForNamesASyncCanFill() {
        let notFound = ["https://swapi.dev/api/people/5/": ErrorCode(.api, 404)]
        #expect(SWAPIDetail.unnamedNote(notFound, readableLater: [])
                == "1 linked name could not be loaded (A404); they show as links")
        let offline = ["https://swapi.dev/api/people/5/": ErrorCode(.cache, 1001), "https://swapi.dev/api/people/6/": ErrorCode(.cache, 1001)]
        #expect(SWAPIDetail.unnamedNote(offline, readableLater: ["https://swapi.dev/api/people/6/"])
                == "2 linked names could not be loaded (C1001); they show as links. 'reader sync swapi' makes them available offline")
        #expect(SWAPIDetail.unnamedNote([:], readableLater: []) == nil)
    }
}
