import Foundation
import ReaderKit
import ReaderTerminal

/// `reader browse swapi`: SWAPI's six collections, one a row with how many it holds (read from
/// its first page, as `reader people` reads it: `…` until known, the code when it cannot be);
/// `Enter` opens the collection's table.
struct SWAPICollectionsScreen: BrowseScreen {
    let swapi: SWAPIBrowsing

    /// How a collection's count stands.
    enum Count: Sendable, Equatable {
        case loading
        case known(Int, LoadMetadata)
        case failed(code: String)
    }

    static let collections = SWAPICollection.allCases
    private(set) var counts: [SWAPICollection: Count] = [:]
    private(set) var cursor = ListCursor()

    init(swapi: SWAPIBrowsing) {
        self.swapi = swapi
    }

    var place: [String] { ["swapi · \(Self.collections.count) collections", "swapi"] }

    var shown: LoadMetadata? {
        LoadMetadata.combining(Self.collections.compactMap {
            if case .known(_, let metadata)? = counts[$0] { return metadata }
            return nil
        })
    }

    /// The rows are SWAPI's six whatever the network says: a count that fails shows its code in its row.
    var hasContent: Bool { true }
    var service: ServiceName? { SWAPIService.name }

    /// The selected collection.
    var selectedCollection: SWAPICollection { Self.collections[cursor.selected] }

    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        loads(.cacheFirst)
    }

    private func loads(_ kind: LoadKind) -> [ScreenEffect] {
        Self.collections.map { .load(id: "count:" + $0.rawValue, kind, swapi.count(of: $0)) }
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(.enter), .key(.character("l")), .key(.right):
            return [.push(SWAPIBrowsing.collectionScreen(selectedCollection, browsing: swapi))]
        case .key(let key):
            _ = cursor.move(key, count: Self.collections.count, height: layout.rows - 1)
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
                counts[collection] = .failed(code: failure.code)
            }
        case .filter, .resized, .appeared, .tick:
            break
        }
        return []
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        let rows = Self.collections.map { collection -> [String] in
            let count = switch counts[collection] ?? .loading {
            case .loading: "…"
            case .known(let count, _): String(count)
            case .failed(let code): code
            }
            return [collection.rawValue, count]
        }
        let table = Table(columns: [Table.Column(title: "COLLECTION", flexible: true), Table.Column(title: "COUNT", alignRight: true)],
                          rows: rows)
        cursor.draw(table: table.render(width: layout.columns), into: &grid, height: layout.rows - 1)
    }
}
