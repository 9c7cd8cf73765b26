import Foundation
import ReaderKit
import ReaderTerminal

/// `reader browse swapi`: SWAPI's six collections, one a row with how many it holds (read from
/// its first page, as `reader people` reads it: `…` until known, the code when it cannot be);
/// `/` filters them by name, as every list; `Enter` opens the collection's table.
struct SWAPICollectionsScreen: BrowseScreen {
    let swapi: SWAPIBrowsing

    /// How a collection's count stands.
    enum Count: Sendable, Equatable {
        case loading
        case known(Int, LoadMetadata)
        case failed(code: String)
        /// Offline, with no copy of the collection's first page: no failure to tell by its code.
        case notCached
    }

    static let collections = SWAPICollection.allCases
    private(set) var counts: [SWAPICollection: Count] = [:]
    private(set) var cursor = ListCursor()
    /// The filter typed after `/`.
    private(set) var filter = ""
    /// The collections shown: those whose name holds the filter.
    private(set) var visible: [SWAPICollection] = Self.collections

    init(swapi: SWAPIBrowsing) {
        self.swapi = swapi
    }

    var place: [String] {
        let count = filter.isEmpty ? "\(Self.collections.count) collections" : "\(visible.count) of \(Self.collections.count) collections"
        return ["swapi · \(count)", "swapi"]
    }

    var shown: LoadMetadata? {
        LoadMetadata.combining(Self.collections.compactMap {
            if case .known(_, let metadata)? = counts[$0] { return metadata }
            return nil
        })
    }

    /// The rows are SWAPI's six whatever the network says: a count that fails shows its code in its row.
    var hasContent: Bool { true }
    var service: ServiceName? { SWAPIService.name }
    var filters: Bool { true }

    /// The selected collection; nil when the filter keeps none.
    var selectedCollection: SWAPICollection? { visible.indices.contains(cursor.selected) ? visible[cursor.selected] : nil }

    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        loads(.cacheFirst)
    }

    private func loads(_ kind: LoadKind) -> [ScreenEffect] {
        Self.collections.map { .load(id: "count:" + $0.rawValue, kind, swapi.count(of: $0)) }
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(.enter), .key(.character("l")), .key(.right):
            guard let selectedCollection else { return [] }
            return [.push(SWAPIBrowsing.collectionScreen(selectedCollection, browsing: swapi))]
        case .key(let key):
            _ = cursor.move(key, count: visible.count, height: layout.rows - 1)
        case .filter(let text):
            let keep = selectedCollection
            filter = text
            let words = text.lowercased()
            visible = words.isEmpty ? Self.collections : Self.collections.filter { $0.rawValue.contains(words) }
            cursor.select(keep.flatMap { visible.firstIndex(of: $0) } ?? cursor.selected, count: visible.count, height: layout.rows - 1)
        case .refresh:
            return loads(.refresh)
        case .answer(let id, let answer):
            guard id.hasPrefix("count:"), let collection = SWAPICollection(rawValue: String(id.dropFirst("count:".count))),
                  let result = answer.payload as? LoadResult<Int> else { return [] }
            switch result {
            case .loaded(let count, let metadata): counts[collection] = .known(count, metadata)
            // A copy already shown stays: a refresh that fails does not take it away.
            case .failed(let failure):
                if case .known? = counts[collection] { break }
                counts[collection] = failure.notCached ? .notCached : .failed(code: failure.code)
            }
        case .resized, .appeared, .tick:
            break
        }
        return []
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard !visible.isEmpty else {
            grid.draw(TerminalText.truncate("no collection matches /" + filter, toWidth: layout.columns), x: 0, y: 0)
            return
        }
        let rows = visible.map { collection -> [String] in
            let count = switch counts[collection] ?? .loading {
            case .loading: "…"
            case .known(let count, _): String(count)
            case .failed(let code): code
            case .notCached: "not cached"
            }
            return [collection.rawValue, count]
        }
        let table = Table(columns: [Table.Column(title: "COLLECTION", flexible: true), Table.Column(title: "COUNT", alignRight: true)],
                          rows: rows)
        cursor.draw(table: table.render(width: layout.columns), into: &grid, height: layout.rows - 1)
    }
}
