import Foundation
import ReaderKit
import ReaderTerminal

/// `reader browse swapi/people/1`, or a resource opened from a table or a link: its fields as
/// `reader people 1` shows them, then its linked resources by name, one a line under their label
/// (`Films  A New Hope`, then `The Empire Strikes Back` under it). `j`/`k` move among the linked
/// names, the selected one in reverse video; `Enter` opens it, a detail screen of its own kind.
/// A name not yet loaded, or that cannot be, shows as its link (`planets/1`), and opens all the same.
struct SWAPIDetailScreen<Resource: SWAPIResource & Presentable>: BrowseScreen {
    let id: Int
    let swapi: SWAPIBrowsing

    private(set) var resource: Resource?
    private(set) var shown: LoadMetadata?
    /// The names of the links, as they come.
    private(set) var names: [String: String] = [:]
    /// The links that could not be named, with why.
    private(set) var unnamed: [String: ErrorCode] = [:]
    /// The links among ``unnamed`` another run may name (``LinkedNames/readableLater``).
    private var readableLater: Set<String> = []
    /// The links whose names were asked for (and not failed since a refresh).
    private var asked: Set<String> = []
    /// How many names loads were started: each has an id of its own, so that a second one (for
    /// the links a revalidated copy adds) does not replace the first.
    private var namesLoads = 0
    /// The selected link's index in ``linkList``.
    private(set) var selected = 0
    /// The first line on screen.
    private(set) var top = 0

    init(id: Int, swapi: SWAPIBrowsing) {
        self.id = id
        self.swapi = swapi
    }

    private var path: String { "swapi/\(Resource.collection.rawValue)/\(id)" }

    var place: [String] {
        guard let resource else { return [path] }
        return ["\(path) · \(TerminalText.sanitise(resource.displayName, maxLength: 100))", path]
    }

    var hasContent: Bool { resource != nil }
    var service: ServiceName? { SWAPIService.name }
    var keys: [KeyHelp] { [KeyHelp("j k", "move among the linked names"), KeyHelp("Enter", "open the selected name")] }

    /// Every link, in the order shown.
    var linkList: [String] { resource?.links.flatMap(\.1) ?? [] }

    /// The selected link, if any.
    var selectedLink: String? { linkList.indices.contains(selected) ? linkList[selected] : nil }

    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        [.load(id: "resource", .cacheFirst, swapi.resource(Resource.self, id: id))]
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(let key):
            return press(key, in: layout)
        case .refresh:
            // Names that failed are asked for again once the resource is in.
            asked = Set(names.keys)
            return [.load(id: "resource", .refresh, swapi.resource(Resource.self, id: id))]
        case .answer(let id, let answer):
            return receive(answer, id: id, in: layout)
        case .resized, .appeared:
            select(selected, in: layout)
        case .filter, .tick:
            break
        }
        return []
    }

    private mutating func press(_ key: Key, in layout: ScreenLayout) -> [ScreenEffect] {
        let count = linkList.count
        switch key {
        case .enter, .character("l"), .right:
            guard let link = selectedLink else { return [] }
            guard let screen = SWAPIBrowsing.detailScreen(forLink: link, browsing: swapi) else {
                return [.say("not a SWAPI link: \(SWAPIDetail.shortLink(link))")]
            }
            return [.push(screen)]
        case .character("j"), .down:
            if count == 0 { scroll(by: 1, in: layout) } else { select(selected + 1, in: layout) }
        case .character("k"), .up:
            if count == 0 { scroll(by: -1, in: layout) } else { select(selected - 1, in: layout) }
        case .character("g"), .home:
            top = 0
            select(0, in: layout)
        case .character("G"), .end:
            scroll(by: Int(Int32.max), in: layout)
            select(count - 1, in: layout)
        case .pageDown, .control("d"):
            scroll(by: max(1, layout.rows), in: layout)
        case .pageUp, .control("u"):
            scroll(by: -max(1, layout.rows), in: layout)
        default:
            break
        }
        return []
    }

    private mutating func receive(_ answer: ScreenAnswer, id: String, in layout: ScreenLayout) -> [ScreenEffect] {
        if id == "resource", let result = answer.payload as? LoadResult<Resource> {
            guard case .loaded(let value, let metadata) = result else { return [] }
            let keep = selectedLink
            resource = value
            shown = metadata
            select(keep.flatMap { linkList.firstIndex(of: $0) } ?? selected, in: layout)
            var missing: [String] = []
            for link in linkList where names[link] == nil && asked.insert(link).inserted { missing.append(link) }
            guard !missing.isEmpty else { return [] }
            namesLoads += 1
            return [.load(id: "names:\(namesLoads)", .current, swapi.names(of: missing))]
        }
        if id.hasPrefix("names:"), let loaded = answer.payload as? LinkedNames {
            names.merge(loaded.names) { $1 }
            for link in loaded.names.keys { unnamed[link] = nil }
            unnamed.merge(loaded.failures) { $1 }
            readableLater.subtract(loaded.names.keys)
            readableLater.subtract(loaded.failures.keys)
            readableLater.formUnion(loaded.readableLater)
        }
        return []
    }

    /// The lines of the detail at `width`, and the lines each link takes.
    private func text(width: Int) -> (lines: [String], links: [Range<Int>], valueColumn: Int) {
        guard let resource else { return ([], [], 0) }
        let fields = resource.shownDetails
        let labelWidth = SWAPIDetail.labelWidth(fields.map(\.0) + resource.links.map(\.0))
        var lines = fields.flatMap { SWAPIDetail.labelled($0.0, $0.1, labelWidth: labelWidth, width: width, style: .plain) }
        var links: [Range<Int>] = []
        for (label, group) in resource.links {
            guard !group.isEmpty else {
                lines += SWAPIDetail.labelled(label, "none", labelWidth: labelWidth, width: width, style: .plain)
                continue
            }
            for (index, link) in group.enumerated() {
                let start = lines.count
                lines += SWAPIDetail.labelled(index == 0 ? label : "", SWAPIDetail.name(of: link, in: names),
                                              labelWidth: labelWidth, width: width, style: .plain)
                links.append(start..<lines.count)
            }
        }
        if let note = SWAPIDetail.unnamedNote(unnamed, readableLater: readableLater) { lines += TerminalText.wrap(note, toWidth: max(10, width), breakingLongWords: true) }
        return (lines, links, labelWidth + 2)
    }

    /// Selects link `index` (bounded to the links), scrolling its lines into view.
    private mutating func select(_ index: Int, in layout: ScreenLayout) {
        let (lines, links, _) = text(width: layout.columns)
        selected = max(0, min(index, links.count - 1))
        let height = max(1, layout.rows)
        if links.indices.contains(selected) {
            let range = links[selected]
            if range.upperBound > top + height { top = range.upperBound - height }
            if range.lowerBound < top { top = range.lowerBound }
        }
        top = max(0, min(top, lines.count - height))
    }

    /// Scrolls by `lines` (bounded to the text); the selection follows onto the screen.
    private mutating func scroll(by lines: Int, in layout: ScreenLayout) {
        let (text, links, _) = text(width: layout.columns)
        let height = max(1, layout.rows)
        let previous = top
        top = max(0, min(top + lines, text.count - height))
        // At an end the view cannot move: the selection goes to the last (first) name in view.
        if top == previous, !links.isEmpty {
            let onScreen = links.indices.filter { (top..<top + height).contains(links[$0].lowerBound) }
            if let first = onScreen.first, let last = onScreen.last { selected = lines > 0 ? last : first }
            return
        }
        guard links.indices.contains(selected), !(top..<top + height).contains(links[selected].lowerBound) else { return }
        let onScreen = links.indices.filter { (top..<top + height).contains(links[$0].lowerBound) }
        if let first = onScreen.first, let last = onScreen.last { selected = lines > 0 ? first : last }
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard resource != nil else {
            grid.draw("loading \(path)…", x: 0, y: 0)
            return
        }
        let (lines, links, valueColumn) = text(width: layout.columns)
        let selectedLines = links.indices.contains(selected) ? links[selected] : 0..<0
        for row in 0..<max(0, min(layout.rows, lines.count - top)) {
            let line = top + row
            let width = grid.draw(lines[line], x: 0, y: row)
            if selectedLines.contains(line) {
                grid.setStyle(CellStyle(reverse: true), x: valueColumn, y: row, width: width - valueColumn)
            }
        }
    }
}
