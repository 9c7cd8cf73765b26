import Foundation
import ReaderKit
import ReaderTerminal

/// `reader browse swapi/people`: a collection's table as `reader people --all` renders it (every
/// page, loaded as that command loads them; the columns give way on a narrow terminal as the
/// command's do), the selected row in reverse video. `/` filters by name (or title); `Enter`
/// opens the resource's detail.
struct SWAPICollectionScreen<Resource: SWAPIResource & Presentable>: BrowseScreen {
    let swapi: SWAPIBrowsing

    private(set) var resources: [Resource] = []
    private(set) var shown: LoadMetadata?
    /// Whether nothing has come yet.
    private(set) var loading = true
    /// The filter typed after `/`.
    private(set) var filter = ""
    /// The resources shown: those the filter keeps.
    private(set) var visible: [Resource] = []
    private(set) var cursor = ListCursor()
    /// The table of ``visible`` laid out at a width, a line a row after the header: made when
    /// the rows or the width change, never when drawn, so that a frame (a tick's, each second)
    /// costs the rows on screen, not the whole collection's layout (10,000 rows idle at ~0).
    private(set) var laidOut: (columns: Int, lines: [Substring])?

    init(swapi: SWAPIBrowsing) {
        self.swapi = swapi
    }

    private var name: String { Resource.collection.rawValue }

    var place: [String] {
        let title = "swapi/" + name
        let count = loading && resources.isEmpty ? "loading"
            : filter.isEmpty ? "\(resources.count) \(name)" : "\(visible.count) of \(resources.count) \(name)"
        return ["\(title) · \(count)", title]
    }

    var hasContent: Bool { !resources.isEmpty }
    var service: ServiceName? { SWAPIService.name }
    var filters: Bool { true }

    /// The selected resource, if any.
    var selectedResource: Resource? { visible.indices.contains(cursor.selected) ? visible[cursor.selected] : nil }

    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        [.load(id: "list", .cacheFirst, swapi.allPages(Resource.self))]
    }

    /// The rows resources take: all but the header.
    private func listHeight(_ layout: ScreenLayout) -> Int { max(1, layout.rows - 1) }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(.enter), .key(.character("l")), .key(.right):
            guard let id = selectedResource?.id else { return [] }
            return [.push(SWAPIDetailScreen<Resource>(id: id, swapi: swapi))]
        case .key(let key):
            _ = cursor.move(key, count: visible.count, height: listHeight(layout))
        case .refresh:
            return [.load(id: "list", .refresh, swapi.allPages(Resource.self))]
        case .filter(let text):
            filter = text
            applyFilter(keeping: selectedResource?.url, in: layout)
        case .resized, .appeared:
            if laidOut?.columns != layout.columns { layOut(in: layout) }
            cursor.select(cursor.selected, count: visible.count, height: listHeight(layout))
        case .tick:
            break
        case .answer(let id, let answer):
            guard id == "list", let result = answer.payload as? LoadResult<SWAPIPage<Resource>> else { return [] }
            loading = false
            guard case .loaded(let page, let metadata) = result else { return [] }
            let keep = selectedResource?.url
            resources = page.results
            shown = metadata
            applyFilter(keeping: keep, in: layout)
        }
        return []
    }

    /// Shows the resources whose name (or title) holds the filter, the one selected kept selected when it is still shown.
    private mutating func applyFilter(keeping url: String?, in layout: ScreenLayout) {
        let words = filter.lowercased()
        visible = words.isEmpty ? resources : resources.filter { $0.displayName.lowercased().contains(words) }
        let index = url.flatMap { url in visible.firstIndex { $0.url == url } } ?? cursor.selected
        cursor.select(index, count: visible.count, height: listHeight(layout))
        layOut(in: layout)
    }

    /// Lays the whole list out at once, so that the columns keep their widths while it scrolls.
    private mutating func layOut(in layout: ScreenLayout) {
        laidOut = (layout.columns, Resource.table(visible).render(width: layout.columns).split(separator: "\n", omittingEmptySubsequences: false))
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard !visible.isEmpty else {
            let text = loading ? "loading swapi/\(name)…" : resources.isEmpty ? "no \(name)" : "nothing matches /\(filter)"
            grid.draw(text, x: 0, y: 0)
            return
        }
        if let laidOut, laidOut.columns == layout.columns {
            cursor.draw(lines: laidOut.lines, into: &grid, height: listHeight(layout))
        } else {
            cursor.draw(table: Resource.table(visible).render(width: layout.columns), into: &grid, height: listHeight(layout))
        }
    }
}
