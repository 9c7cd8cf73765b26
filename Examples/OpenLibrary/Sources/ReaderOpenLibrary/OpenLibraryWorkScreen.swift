import Foundation
import OpenLibraryKit
import ReaderCLI
import ReaderKit
import ReaderTerminal

/// A work in `reader browse`: its title, first publication, subjects and description, as
/// `reader work ID` loads it (one cache entry for both).
struct OpenLibraryWorkScreen: BrowseScreen {
    let id: OpenLibraryID
    /// The client; nil in a screen's tests, where no work is run.
    let client: ReaderClient?

    private(set) var work: OpenLibrary.Work?
    private(set) var shown: LoadMetadata?
    /// The first line on screen.
    private(set) var top = 0

    var place: [String] {
        let title = work.map { " · " + TerminalText.sanitise($0.title, maxLength: 60) } ?? ""
        return ["openlibrary/\(id)\(title)", "openlibrary/\(id)"]
    }

    var hasContent: Bool { work != nil }
    var service: ServiceName? { OpenLibrary.serviceName }

    func start(in layout: ScreenLayout) -> [ScreenEffect] { [load(.cacheFirst)] }

    private func load(_ kind: LoadKind) -> ScreenEffect {
        let (client, id) = (client, id)
        return .load(id: "work", kind) { options in
            await ScreenAnswer.load(through: client, options: options) { () throws(ReaderError) in try OpenLibrary.work(id.description) }
        }
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(.character("j")), .key(.down):
            top = min(top + 1, max(0, lines(width: layout.columns).count - layout.rows))
        case .key(.character("k")), .key(.up):
            top = max(0, top - 1)
        case .refresh:
            return [load(.refresh)]
        case .answer("work", let answer):
            if case .loaded(let work, let metadata)? = answer.payload as? LoadResult<OpenLibrary.Work> {
                self.work = work
                shown = metadata
            }
        case .key, .answer, .filter, .resized, .appeared, .tick:
            break
        }
        return []
    }

    /// The work's lines at `width`, each with its style.
    func lines(width: Int) -> [(String, CellStyle)] {
        guard let work else { return [] }
        func wrapped(_ text: String, _ style: CellStyle = .plain) -> [(String, CellStyle)] {
            TerminalText.wrap(TerminalText.sanitise(text), toWidth: width, breakingLongWords: true).map { ($0, style) }
        }
        var lines = wrapped(work.title, CellStyle(bold: true))
        if let subtitle = work.subtitle { lines += wrapped(subtitle) }
        if let first = work.firstPublishDate { lines += wrapped("first published \(first)", CellStyle(dim: true)) }
        if !work.subjects.isEmpty { lines += wrapped("subjects: " + work.subjects.prefix(10).joined(separator: ", "), CellStyle(dim: true)) }
        if let description = work.description {
            lines.append(("", .plain))
            for paragraph in description.split(separator: "\n", omittingEmptySubsequences: true) { lines += wrapped(String(paragraph)) }
        }
        return lines
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard work != nil else {
            grid.draw("loading \(id)…", x: 0, y: 0)
            return
        }
        for (row, line) in lines(width: layout.columns).dropFirst(top).prefix(layout.rows).enumerated() {
            grid.draw(line.0, x: 0, y: row, style: line.1)
        }
    }
}
