import Foundation
import ReaderKit
import ReaderTerminal

/// A post and its comment tree in `reader browse`, as `reader comments` renders them (the same
/// ``CommentTree``: prose wrapped, code kept, numbered link notes, "N more replies not loaded"),
/// scrollable.
///
/// - The cursor is on the post or on a comment, whose header is in reverse video: `j`/`k` move
///   between comments, `J`/`K` between top-level ones (`J` from the post goes to the first, `K`
///   from the first to the post);
///   `PgDn`/`PgUp` scroll a page, the cursor going to the first comment in view.
/// - `Space` folds the comment under the cursor with all its replies to its header, marked
///   `[+N]` (N replies hidden), or unfolds it.
/// - Comments written after the previous visit are marked `new` on their header; the visit is
///   recorded once, when the comments first come, so that `r` measures against the same one.
///   A first visit marks nothing.
/// - The lines are made on a load, a resize or a fold, never when drawn: drawing copies the
///   rows on screen.
struct PostScreen: BrowseScreen {
    /// The post as the list had it: its title is shown while its comments load.
    let post: RedditPost
    let reddit: RedditBrowsing
    /// Whether ``post`` is what a list said of it; false for a post opened by its id
    /// (`reader browse t3_2xmo63`), of which nothing is known before its page comes.
    let listed: Bool

    /// The post and its comments, once loaded.
    private(set) var page: RedditCommentPage?
    private(set) var shown: LoadMetadata?
    /// Whether the visit has been asked to be recorded (once: the comments' first answer).
    private(set) var visitRecorded = false
    /// The visit before this one, once recorded; nil on a first visit or before the answer.
    private(set) var previousVisit: Visit?
    /// The folded comments, by id: kept across a reload.
    private(set) var folded: Set<String> = []
    /// The selected comment's id; nil when the post is selected.
    private(set) var selectedID: String?
    /// The first row on screen.
    private(set) var top = 0
    /// The rows, made from the comments at the width they were made for.
    private(set) var rows: [Row] = []
    /// What the cursor can be on, in order: the post, then each comment not inside a fold.
    private(set) var anchors: [Anchor] = []
    private(set) var selected = 0
    /// The comments written after the previous visit.
    private(set) var newCount = 0
    private var blocks: [CommentBlock] = []
    private var postRows: [Row] = []
    private var renderedWidth = 0

    /// One row of the screen.
    struct Row: Sendable, Equatable {
        var text: String
        var style: CellStyle
        /// Cells styled apart from the row's: a comment's author, its `new` or `[+N]` mark.
        var accents: [Accent] = []
    }

    struct Accent: Sendable, Equatable {
        var column: Int
        var width: Int
        var style: CellStyle
    }

    /// A place for the cursor: the post (``block`` nil) or a comment, and the rows it takes.
    struct Anchor: Sendable, Equatable {
        var block: Int?
        var id: String?
        var topLevel: Bool
        var firstRow: Int
        /// Rows of its header (reversed when selected).
        var headerRows: Int
        /// Its last row, replies left out.
        var lastRow: Int
    }

    static let metaStyle = CellStyle(dim: true)
    static let markStyle = CellStyle(bold: true, foreground: .yellow)

    init(post: RedditPost, reddit: RedditBrowsing) {
        self.post = post
        self.reddit = reddit
        listed = true
    }

    /// The post of id `id` (as ``Reddit/postID(_:)`` gives it), opened directly.
    init(postID id: String, reddit: RedditBrowsing) {
        post = RedditPost(id: id, name: "t3_" + id, title: "t3_" + id, author: "", subreddit: "", score: 0, numComments: 0,
                          createdUTC: Date(timeIntervalSince1970: 0), permalink: "/comments/\(id)/")
        self.reddit = reddit
        listed = false
    }

    var place: [String] {
        if page == nil, !listed { return ["t3_\(post.id) · loading", "t3_\(post.id)"] }
        let shownPost = page?.post ?? post
        let subreddit = "r/" + CommentTree.clean(shownPost.subreddit)
        // A feed's post has no count: what is loaded is said, never a number made up.
        let comments = shownPost.numComments.map { CommentTree.count($0, "comment", "comments") }
            ?? page.map { CommentTree.count($0.comments.comments.count, "comment", "comments") + " in the feed" } ?? "comments"
        let new = newCount > 0 ? " · \(newCount) new" : ""
        return ["\(subreddit) · \(CommentTree.clean(shownPost.title)) · \(comments)\(new)",
                "\(subreddit) · \(comments)\(new)", subreddit]
    }

    var hasContent: Bool { page != nil }
    var service: ServiceName? { RedditService.name }

    var keys: [KeyHelp] {
        [KeyHelp("Space", "fold or unfold the comment and its replies"),
         KeyHelp("J / K", "next / previous top-level comment"),
         KeyHelp("o", "open the post's link ($BROWSER)")]
    }


    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        [.load(id: "comments", .cacheFirst, reddit.comments(of: post.id))]
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(let key):
            return press(key, in: layout)
        case .refresh:
            return [.load(id: "comments", .refresh, reddit.comments(of: post.id))]
        case .resized:
            if page != nil, layout.columns != renderedWidth { render(in: layout) }
            select(selected, in: layout)
        case .answer(let id, let answer):
            return receive(answer, id: id, in: layout)
        case .filter, .appeared, .tick:
            break
        }
        return []
    }

    private mutating func receive(_ answer: ScreenAnswer, id: String, in layout: ScreenLayout) -> [ScreenEffect] {
        switch id {
        case "comments":
            // A failure with comments shown leaves them: the bottom line says why they are old.
            guard case .loaded(let page, let metadata)? = answer.payload as? LoadResult<RedditCommentPage> else { return [] }
            self.page = page
            shown = metadata
            render(in: layout)
            guard !visitRecorded else { return [] }
            visitRecorded = true
            return [.run(id: "visit", reddit.recordVisit(to: post.id, comments: page.post.numComments ?? page.comments.comments.count))]
        case "visit":
            guard let visit = answer.payload as? Visit? else { return [] }
            previousVisit = visit
            if page != nil { render(in: layout) }
            return []
        default:
            return []
        }
    }

    private mutating func press(_ key: Key, in layout: ScreenLayout) -> [ScreenEffect] {
        let height = max(1, layout.rows)
        switch key {
        case .character("j"), .down: select(selected + 1, in: layout)
        case .character("k"), .up: select(selected - 1, in: layout)
        case .character("J"):
            select(anchors.indices.dropFirst(selected + 1).first { anchors[$0].topLevel } ?? selected, in: layout)
        case .character("K"):
            // From the first top-level comment, back to the post.
            select(anchors.indices.prefix(selected).last { anchors[$0].topLevel || $0 == 0 } ?? selected, in: layout)
        case .character("g"), .home: select(0, in: layout)
        case .character("G"), .end:
            // The end of the thread, the last comment's header kept on screen.
            select(anchors.count - 1, in: layout)
            top = min(maxTop(height), anchors.last?.firstRow ?? 0)
        case .pageDown, .control("d"): scroll(to: top + height, in: layout)
        case .pageUp, .control("u"): scroll(to: top - height, in: layout)
        case .character(" "):
            guard let id = selectedID else { return [] }
            if folded.remove(id) == nil { folded.insert(id) }
            if let block = anchors[selected].block { blocks[block].header = header(of: block, now: layout.now) }
            layOut()
            select(selected, in: layout)
        case .character("o"):
            let shownPost = page?.post ?? post
            return [.open(url: shownPost.url ?? "https://www.reddit.com" + shownPost.permalink)]
        default:
            break
        }
        return []
    }

    // MARK: - The lines

    private func isNew(_ comment: RedditComment?) -> Bool {
        guard let comment, let previousVisit else { return false }
        return comment.createdUTC > previousVisit.openedAt
    }

    /// The mark on a comment's header: `new`, `[+N]` when folded (N replies hidden), both, or
    /// none.
    private func mark(of block: Int) -> String? {
        guard let comment = blocks[block].comment else { return nil }
        var marks: [String] = []
        if isNew(comment) { marks.append("new") }
        if folded.contains(comment.id) {
            let hidden = blocks[(block + 1)...].prefix(blocks[block].replies).count { $0.comment != nil }
            marks.append("[+\(hidden)]")
        }
        return marks.isEmpty ? nil : marks.joined(separator: " ")
    }

    /// The block's header with its mark.
    private func header(of block: Int, now: Date) -> [String] {
        guard let comment = blocks[block].comment else { return blocks[block].header }
        return CommentTree.commentHeader(comment, depth: blocks[block].depth, now: now, width: renderedWidth, style: .plain,
                                         mark: mark(of: block))
    }

    /// Makes the lines anew at the layout's width.
    private mutating func render(in layout: ScreenLayout) {
        guard let page else { return }
        renderedWidth = layout.columns
        postRows = Self.rows(of: page.post, now: layout.now, width: renderedWidth)
        // Said once, above them: a feed's comments come flat, and are shown so.
        if page.comments.isFromFeed, !page.comments.comments.isEmpty {
            postRows += [Row(text: "", style: .plain),
                         Row(text: "comments as Reddit's Atom feed gives them: in its order, with no nesting", style: Self.metaStyle)]
        }
        blocks = CommentTree.blocks(page.comments.children, depth: 0, now: layout.now, width: renderedWidth, style: .plain)
        for index in blocks.indices {
            guard let comment = blocks[index].comment, isNew(comment) || folded.contains(comment.id) else { continue }
            blocks[index].header = header(of: index, now: layout.now)
        }
        newCount = blocks.count { isNew($0.comment) }
        layOut()
        select(anchors.firstIndex { $0.id == selectedID } ?? selected, in: layout)
    }

    /// The post's rows: its title bold, its meta line dim, its link in colour.
    private static func rows(of post: RedditPost, now: Date, width: Int) -> [Row] {
        let parts = CommentTree.headerParts(post, now: now, width: width, style: .plain)
        let content = CellStyle(foreground: post.isSelf == true ? nil : .cyan)
        return parts.title.map { Row(text: $0, style: CellStyle(bold: true)) } + parts.meta.map { Row(text: $0, style: metaStyle) }
            + parts.content.map { Row(text: $0, style: content) }
    }

    /// The rows and anchors from the blocks and the folds (no text is made here).
    private mutating func layOut() {
        rows = postRows
        anchors = [Anchor(block: nil, id: nil, topLevel: false, firstRow: 0, headerRows: postRows.count { $0.style.bold },
                          lastRow: max(0, postRows.count - 1))]
        rows.append(Row(text: "", style: .plain))
        if blocks.isEmpty { rows.append(Row(text: "no comments yet", style: Self.metaStyle)) }
        var index = 0
        while index < blocks.count {
            let block = blocks[index]
            if block.opensThread, index > 0 { rows.append(Row(text: "", style: .plain)) }
            let first = rows.count
            let isFolded = block.comment.map { folded.contains($0.id) } ?? false
            let mark = mark(of: index)
            for (number, line) in block.header.enumerated() {
                rows.append(Self.headerRow(line, author: block.comment != nil && number == 0,
                                           mark: number == block.header.count - 1 ? mark : nil))
            }
            if !isFolded { rows += block.body.map { Row(text: $0, style: .plain) } }
            if let comment = block.comment {
                anchors.append(Anchor(block: index, id: comment.id, topLevel: block.depth == 0, firstRow: first,
                                      headerRows: block.header.count, lastRow: rows.count - 1))
            }
            index += isFolded ? 1 + block.replies : 1
        }
    }

    /// A header line, dim, with the author (which starts the first line) bold and the mark
    /// (which ends the last) in colour.
    private static func headerRow(_ line: String, author: Bool, mark: String?) -> Row {
        var row = Row(text: line, style: metaStyle)
        let indent = line.prefix { $0 == " " }.count
        if author {
            let name = line.dropFirst(indent).prefix { $0 != " " }
            row.accents.append(Accent(column: indent, width: TerminalText.width(name), style: CellStyle(bold: true)))
        }
        if let mark, line.hasSuffix(mark) {
            let width = TerminalText.width(mark)
            row.accents.append(Accent(column: TerminalText.width(line) - width, width: width, style: markStyle))
        }
        return row
    }

    // MARK: - The cursor and the view

    private func maxTop(_ height: Int) -> Int { max(0, rows.count - height) }

    /// Puts the cursor on anchor `index` (bounded), scrolling so that its rows show, its
    /// header first when they cannot all.
    private mutating func select(_ index: Int, in layout: ScreenLayout) {
        guard !anchors.isEmpty else { return }
        let height = max(1, layout.rows)
        selected = max(0, min(index, anchors.count - 1))
        let anchor = anchors[selected]
        selectedID = anchor.id
        if anchor.firstRow < top {
            top = anchor.firstRow
        } else if anchor.lastRow >= top + height {
            top = min(anchor.firstRow, anchor.lastRow - height + 1)
        }
        top = max(0, min(top, maxTop(height)))
    }

    /// Scrolls so that row `row` is the first on screen (bounded); the cursor goes to the first
    /// header in view, else stays on what the top row belongs to.
    private mutating func scroll(to row: Int, in layout: ScreenLayout) {
        guard !anchors.isEmpty else { return }
        let height = max(1, layout.rows)
        let previous = top
        top = max(0, min(row, maxTop(height)))
        // At an end the view cannot move: the cursor goes to the last (first) comment in view,
        // as a pager's does, so that what is on screen can be reached.
        if top == previous, row != previous {
            selected = row > previous ? max(0, anchors.partitioningIndex { $0.firstRow >= top + height } - 1) : 0
            selectedID = anchors[selected].id
            return
        }
        let firstInView = anchors.partitioningIndex { $0.firstRow >= top }
        if firstInView < anchors.count, anchors[firstInView].firstRow < top + height {
            selected = firstInView
        } else {
            selected = max(0, firstInView - 1)
        }
        selectedID = anchors[selected].id
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard page != nil else {
            guard listed else {
                grid.draw("loading t3_\(post.id)…", x: 0, y: 0, style: Self.metaStyle)
                return
            }
            // While the comments load: the post as the list had it.
            let waiting = Self.rows(of: post, now: layout.now, width: layout.columns)
                + [Row(text: "", style: .plain), Row(text: "loading comments…", style: Self.metaStyle)]
            for (y, row) in waiting.prefix(max(0, layout.rows)).enumerated() { grid.draw(row.text, x: 0, y: y, style: row.style) }
            return
        }
        let anchor = anchors.indices.contains(selected) ? anchors[selected] : nil
        let highlighted = anchor.map { $0.firstRow..<($0.firstRow + $0.headerRows) } ?? 0..<0
        for y in 0..<max(0, min(layout.rows, rows.count - top)) {
            let row = rows[top + y]
            grid.draw(row.text, x: 0, y: y, style: row.style)
            if highlighted.contains(top + y) {
                grid.setStyle(CellStyle(reverse: true), y: y)
                continue
            }
            for accent in row.accents { grid.setStyle(accent.style, x: accent.column, y: y, width: accent.width) }
        }
    }
}

extension RandomAccessCollection {
    /// The first index whose element is in the second part of a collection partitioned by
    /// `belongs` (false for every element before it, true from it on): a binary search.
    func partitioningIndex(where belongs: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongs(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
