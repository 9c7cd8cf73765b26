import Foundation
import OpenLibraryKit
import ReaderCLI
import ReaderKit
import ReaderTerminal

/// `reader browse openlibrary/TEXT`: the works a search finds, a line each (title, authors,
/// first year), the selected one in reverse video; `Enter` opens the work. Made on `reader`'s
/// public browse API alone, as a plug-in from outside would.
struct OpenLibrarySearchScreen: BrowseScreen {
    /// What was searched for.
    let text: String
    /// The client; nil in a screen's tests, where no work is run.
    let client: ReaderClient?

    private(set) var results: [OpenLibrary.SearchResult] = []
    private(set) var found = 0
    private(set) var shown: LoadMetadata?
    private(set) var loading = true
    private(set) var selected = 0
    /// The first result on screen.
    private(set) var top = 0

    var place: [String] {
        let title = "openlibrary/\(TerminalText.sanitise(text, maxLength: 40))"
        return [loading && results.isEmpty ? "\(title) · loading" : "\(title) · \(results.count) of \(found) works", title]
    }

    var hasContent: Bool { !results.isEmpty }
    var service: ServiceName? { OpenLibrary.serviceName }
    var keys: [KeyHelp] { [KeyHelp("Enter", "open the work")] }

    func start(in layout: ScreenLayout) -> [ScreenEffect] { [search(.cacheFirst)] }

    private func search(_ kind: LoadKind) -> ScreenEffect {
        let (client, text) = (client, text)
        return .load(id: "search", kind) { options in
            await ScreenAnswer.load(through: client, options: options) { () throws(ReaderError) in try OpenLibrary.search(text, limit: 50) }
        }
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(.enter), .key(.character("l")), .key(.right):
            guard results.indices.contains(selected) else { return [] }
            return [.push(OpenLibraryWorkScreen(id: results[selected].id, client: client))]
        case .key(.character("j")), .key(.down):
            select(selected + 1, rows: layout.rows)
        case .key(.character("k")), .key(.up):
            select(selected - 1, rows: layout.rows)
        case .refresh:
            return [search(.refresh)]
        case .answer("search", let answer):
            guard let result = answer.payload as? LoadResult<OpenLibrary.SearchPage> else { return [] }
            loading = false
            if case .loaded(let page, let metadata) = result {
                results = page.results
                found = page.numberFound
                shown = metadata
                select(selected, rows: layout.rows)
            }
        case .resized:
            select(selected, rows: layout.rows)
        case .key, .answer, .filter, .appeared, .tick:
            break
        }
        return []
    }

    /// Selects result `index`, kept in the list and on screen.
    private mutating func select(_ index: Int, rows: Int) {
        selected = max(0, min(index, results.count - 1))
        if selected < top { top = selected }
        if selected >= top + rows { top = selected - rows + 1 }
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard !results.isEmpty else {
            grid.draw(loading ? "searching…" : "no works found", x: 0, y: 0)
            return
        }
        for row in 0..<min(layout.rows, results.count - top) {
            let result = results[top + row]
            let authors = result.authorNames.isEmpty ? "" : " · " + result.authorNames.joined(separator: ", ")
            let year = result.firstPublishYear.map { " (\($0))" } ?? ""
            let line = TerminalText.sanitise(result.title + authors + year)
            grid.draw(TerminalText.truncate(line, toWidth: layout.columns), x: 0, y: row)
            if top + row == selected { grid.setStyle(CellStyle(reverse: true), y: row) }
        }
    }
}
