import Foundation
import ReaderKit
import ReaderTerminal

/// The post list of `reader browse`: one row a post as `reader posts` lays it out, the selected
/// row in reverse video, and the bottom line saying where you are and how old the list is.
///
/// A ``Model``: its state changes only in ``update(_:)``; its one effect is the load it was made
/// with, which answers with ``Message``.
struct PostListScreen: Model {
    enum Message: Sendable {
        case loaded([RedditPost], LoadMetadata)
        /// The load failed: its message and code, as the CLI words them.
        case failed(message: String, code: String)
    }

    /// The smallest screen drawn; below it, a line saying so.
    static let smallest = TerminalSize(columns: 40, rows: 10)

    /// Where this is, as the bottom line says it: `r/python`, `front page`.
    let place: String
    let sort: Reddit.Sort
    /// The load of the list, as `reader posts` asks for it.
    let load: @Sendable () async -> Message

    private(set) var posts: [RedditPost] = []
    private(set) var metadata: LoadMetadata?
    private(set) var failure: (message: String, code: String)?
    private(set) var loading = true
    private(set) var selected = 0
    /// The first post on screen.
    private(set) var top = 0
    private(set) var size: TerminalSize
    private(set) var now: Date

    init(place: String, sort: Reddit.Sort, size: TerminalSize, now: Date, load: @escaping @Sendable () async -> Message) {
        self.place = place
        self.sort = sort
        self.size = size
        self.now = now
        self.load = load
    }

    func start() -> [Effect<Message>] {
        [.task(id: "load", load)]
    }

    /// The rows posts take: all but the header and the bottom line.
    private var listHeight: Int { max(1, size.rows - 2) }

    mutating func update(_ event: ProgramEvent<Message>) -> [Effect<Message>] {
        switch event {
        case .key(let key):
            switch key {
            case .character("q"): return [.quit(.finished)]
            case .control("c"): return [.quit(.interrupted)]
            case .character("j"), .down: select(selected + 1)
            case .character("k"), .up: select(selected - 1)
            case .character("g"), .home: select(0)
            case .character("G"), .end: select(posts.count - 1)
            case .pageDown, .control("d"): select(selected + listHeight)
            case .pageUp, .control("u"): select(selected - listHeight)
            default: break
            }
        case .resize(let size):
            self.size = size
            select(selected)
        case .tick(let now):
            self.now = now
        case .message(.loaded(let posts, let metadata)):
            self.posts = posts
            self.metadata = metadata
            failure = nil
            loading = false
            select(selected)
        case .message(.failed(let message, let code)):
            failure = (message, code)
            loading = false
        }
        return []
    }

    /// Selects post `index` (bounded to the list), scrolling it into view.
    private mutating func select(_ index: Int) {
        selected = max(0, min(index, posts.count - 1))
        if selected < top { top = selected }
        if selected >= top + listHeight { top = selected - listHeight + 1 }
        top = max(0, min(top, max(0, posts.count - listHeight)))
    }

    func view(size: TerminalSize) -> Grid {
        var grid = Grid(size: size)
        guard size.columns >= Self.smallest.columns, size.rows >= Self.smallest.rows else {
            let lines = TerminalText.wrap("terminal too small: 40×10 at least", toWidth: size.columns, breakingLongWords: true)
            for (row, line) in lines.prefix(size.rows).enumerated() { grid.draw(line, x: 0, y: row) }
            return grid
        }
        if posts.isEmpty {
            drawPlaceholder(into: &grid)
        } else {
            let lines = Reader.Posts.table(posts, now: now).render(width: size.columns).split(separator: "\n", omittingEmptySubsequences: false)
            grid.draw(lines.first ?? "", x: 0, y: 0, style: CellStyle(dim: true))
            for row in 0..<min(listHeight, posts.count - top) {
                let index = top + row
                grid.draw(lines.count > index + 1 ? lines[index + 1] : "", x: 0, y: row + 1)
                if index == selected { grid.setStyle(CellStyle(reverse: true), y: row + 1) }
            }
        }
        drawBottomLine(into: &grid)
        return grid
    }

    /// In place of the list: that it is loading, that there are no posts, or the failure.
    private func drawPlaceholder(into grid: inout Grid) {
        if loading {
            grid.draw("loading \(place)…", x: 0, y: 0)
        } else if let failure {
            var row = 0
            for line in TerminalText.wrap(TerminalText.sanitise(failure.message), toWidth: grid.size.columns) + [failure.code]
            where row < listHeight {
                grid.draw(line, x: 0, y: row, style: line == failure.code ? CellStyle(bold: true) : .plain)
                row += 1
            }
        } else {
            grid.draw("no posts", x: 0, y: 0)
        }
    }

    /// The last row: where you are on the left, how old the list is on the right. The note
    /// comes first (its code is what to act on); the left gives up the count, then the sort.
    private func drawBottomLine(into grid: inout Grid) {
        let y = grid.size.rows - 1
        let width = grid.size.columns
        var note = metadata.flatMap { FreshnessNote.text(for: $0, now: now) }
        if !posts.isEmpty, let failure { note = "\(note ?? "not refreshed") · \(failure.code)" }
        let right = note.map { TerminalText.truncate($0, toWidth: width - 12) } ?? ""
        let room = width - TerminalText.width(right) - (right.isEmpty ? 0 : 1)
        let count = loading && posts.isEmpty ? "loading" : "\(posts.count) posts"
        let forms = ["\(place) · \(sort.rawValue) · \(count)", "\(place) · \(sort.rawValue)", place]
        let left = forms.first { TerminalText.width($0) <= room } ?? TerminalText.truncate(place, toWidth: room)
        grid.draw(left, x: 0, y: y)
        if !right.isEmpty { grid.draw(right, x: width - TerminalText.width(right), y: y) }
    }
}
