import Foundation
@testable import ReaderKit
import ReaderTerminal
import Testing
import TestSupport
@testable import ReaderCLI

/// The post screen of `reader browse` as a pure model: answers and keys in, state, effects and
/// the drawn screen out, written out.
@Suite struct PostScreenTests {
    /// An hour after the small thread's post.
    static let now = Date(timeIntervalSince1970: 1_790_003_600)

    /// A small thread, built as Reddit sends one: two levels of replies under the first
    /// comment and a stub for three more, then two more top-level comments, the last with an
    /// escape sequence (a hyperlink's) in its text.
    static let thread = """
        [{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"id": "p1", "name": "t3_p1", \
        "title": "Folding test", "author": "op", "subreddit": "swift", "score": 5, "num_comments": 6, \
        "created_utc": 1790000000, "permalink": "/r/swift/comments/p1/folding_test/", \
        "url": "https://www.reddit.com/r/swift/comments/p1/folding_test/", "is_self": true, "selftext": "Body text."}}]}},
         {"kind": "Listing", "data": {"children": [%@
           {"kind": "t1", "data": {"id": "c1", "author": "alice", "body": "First top comment.", "score": 3,
            "created_utc": 1790000100, "replies": {"kind": "Listing", "data": {"children": [
              {"kind": "t1", "data": {"id": "c2", "author": "bob", "body": "A reply.", "score": 1,
               "created_utc": 1790000200, "replies": {"kind": "Listing", "data": {"children": [
                 {"kind": "t1", "data": {"id": "c3", "author": "carol", "body": "Deeper reply.", "score": 2,
                  "created_utc": 1790000300, "replies": ""}}]}}}},
              {"kind": "more", "data": {"count": 3, "children": ["x1", "x2", "x3"]}}]}}}},
           {"kind": "t1", "data": {"id": "c4", "author": "dave", "body": "Second top comment.", "score": 1,
            "created_utc": 1790000400, "replies": ""}},
           {"kind": "t1", "data": {"id": "c5", "author": "erin", "body": "Third \\u001b]8;;http://x\\u0007link\\u001b]8;;\\u0007.",
            "score": 1, "created_utc": 1790000500, "replies": ""}}]}}]
        """

    static func page(_ json: String) throws -> RedditCommentPage {
        try ReaderJSON.makeDecoder().decode(RedditCommentPage.self, from: Data(json.utf8))
    }

    /// The small thread, with `extra` comments (each followed by a comma) before the others.
    static func thread(adding extra: String = "") throws -> RedditCommentPage {
        try page(thread.replacingOccurrences(of: "%@", with: extra))
    }

    /// The recorded thread of r/python's post 2xmo63 (43 comments), read from the fixtures.
    static func recorded() throws -> RedditCommentPage {
        try ReaderJSON.makeDecoder().decode(RedditCommentPage.self, from: Data(Fixtures.bytes("reddit/comments_r_python_2xmo63.json")))
    }

    /// The layout of a terminal of `columns` × `rows`: the last row is the browser's.
    static func layout(_ columns: Int, _ rows: Int, now: Date = now) -> ScreenLayout {
        ScreenLayout(columns: columns, rows: rows - 1, now: now)
    }

    static func loaded(_ page: RedditCommentPage) -> ScreenEvent {
        .answer(id: "comments", ScreenAnswer(LoadResult<RedditCommentPage>.loaded(page, LoadMetadata(
            source: .network, stale: false, fetchedAt: now, ageSeconds: 0, errorCode: nil, url: "https://www.reddit.com/comments/p1.json"))))
    }

    static func visit(_ visit: Visit?) -> ScreenEvent {
        .answer(id: "visit", ScreenAnswer(visit))
    }

    /// A screen with `page` loaded (and the visit before it answered, when given).
    static func screen(_ page: RedditCommentPage, in layout: ScreenLayout, visit: Visit?? = .none) -> PostScreen {
        var screen = PostScreen(post: page.post, reddit: RedditBrowsing())
        _ = screen.handle(loaded(page), in: layout)
        if case .some(let visit) = visit { _ = screen.handle(Self.visit(visit), in: layout) }
        return screen
    }

    static func grid(_ screen: PostScreen, _ columns: Int, _ rows: Int) -> Grid {
        var grid = Grid(size: TerminalSize(columns: columns, rows: rows))
        screen.draw(into: &grid, in: layout(columns, rows))
        return grid
    }

    static func text(_ screen: PostScreen, _ columns: Int, _ rows: Int) -> String {
        grid(screen, columns, rows).text
    }

    /// Keys pressed in order; the effects of the last.
    @discardableResult
    static func press(_ keys: [Key], on screen: inout PostScreen, in layout: ScreenLayout) -> [String] {
        var effects: [ScreenEffect] = []
        for key in keys { effects = screen.handle(.key(key), in: layout) }
        return names(effects)
    }

    /// Effects as words (their work is a closure): `load comments cacheFirst`, `run visit`.
    static func names(_ effects: [ScreenEffect]) -> [String] {
        effects.map { effect in
            switch effect {
            case .load(let id, let kind, _): "load \(id) \(kind)"
            case .run(let id, _): "run \(id)"
            case .cancel(let id): "cancel \(id)"
            case .dropQueued(let id): "drop \(id)"
            case .push: "push"
            case .open(let url): "open \(url)"
            case .say(let text): "say \(text)"
            }
        }
    }

    static let smallAt40x10 = """
        Folding test
        r/swift · u/op · 5 points · 6 comments
        1 h ago

        Body text.

        u/alice · 3 points · 58 min ago
          First top comment.
          u/bob · 1 point · 56 min ago

        """

    /// The same, scrolled a row: bob's comment selected, or c4's text scrolled in.
    static let smallAt40x10FromRow1 = """
        r/swift · u/op · 5 points · 6 comments
        1 h ago

        Body text.

        u/alice · 3 points · 58 min ago
          First top comment.
          u/bob · 1 point · 56 min ago
            A reply.

        """

    @Test func untilTheCommentsComeThereIsNothingToShowSoAFailureTakesTheScreen() throws {
        let small = try Self.thread()
        var screen = PostScreen(post: small.post, reddit: RedditBrowsing())
        #expect(Self.names(screen.start(in: Self.layout(40, 10))) == ["load comments cacheFirst"])
        #expect(!screen.hasContent)
        #expect(Self.text(screen, 40, 10) == """
            Folding test
            r/swift · u/op · 5 points · 6 comments
            1 h ago

            Body text.

            loading comments…



            """)
        // Offline and not cached: still nothing to show, so the browser's banner says why.
        let failure = BrowseFailure(.cache(CacheFailure(.notCached, path: "cache.sqlite", detail: "")))
        let failed = screen.handle(.answer(id: "comments", ScreenAnswer(LoadResult<RedditCommentPage>.failed(failure))),
                                   in: Self.layout(40, 10))
        #expect(Self.names(failed).isEmpty)
        #expect(!screen.hasContent)
        #expect(Self.names(screen.handle(Self.loaded(small), in: Self.layout(40, 10))) == ["run visit"])
        #expect(screen.hasContent)
        #expect(Self.text(screen, 40, 10) == Self.smallAt40x10)
    }

    /// `reader browse t3_2xmo63`, or a post's URL, opens the post, as `reader comments` takes it.
    @Test func aPostIsOpenedDirectlyByItsFullnameOrURL() throws {
        let client = ReaderClient(configuration: .init(cachePath: nil))
        func screen(_ target: String) throws -> (any BrowseScreen)? {
            try Reader.Browse.program(for: target, settings: nil).firstScreen(BrowseContext(client: client))
        }
        for target in ["t3_2xmo63", "T3_2xmo63", "https://www.reddit.com/r/Python/comments/2xmo63/a_title/", "www.reddit.com/comments/2xmo63",
                       "https://redd.it/2xmo63", "redd.it/2xmo63"] {
            #expect((try screen(target) as? PostScreen)?.post.id == "2xmo63", "\(target)")
        }
        // A name is a subreddit's, as before (a bare id is one too); what names no post is refused.
        #expect(try screen("python") is PostListScreen)
        #expect(try screen("r/t3_abc") is PostListScreen)
        #expect(throws: ReaderError.self) { try screen("t3_no!") }
        #expect(throws: ReaderError.self) { try screen("https://www.reddit.com/r/python/") }

        let small = try Self.thread()
        var opened = try #require(try screen("t3_\(small.post.id)") as? PostScreen)
        #expect(Self.names(opened.start(in: Self.layout(40, 10))) == ["load comments cacheFirst"])
        #expect(opened.place == ["t3_\(small.post.id) · loading", "t3_\(small.post.id)"])
        #expect(Self.text(opened, 40, 10).hasPrefix("loading t3_\(small.post.id)…\n"))
        #expect(Self.names(opened.handle(Self.loaded(small), in: Self.layout(40, 10))) == ["run visit"])
        #expect(Self.text(opened, 40, 10) == Self.smallAt40x10)
    }

    @Test(.replaysRecordings) func thePostThenItsTreeAsReaderCommentsRendersItThePostSelected() throws {
        let recorded = try Self.recorded()
        let wide = Self.screen(recorded, in: Self.layout(80, 24), visit: .some(nil))
        #expect(Self.text(wide, 80, 24) == """
            A python terminal viewer for browsing reddit
            r/Python · u/civilization_phaze_3 · 256 points · 43 comments · 11 years ago
            https://github.com/michael-lazar/rtv

            u/civilization_phaze_3 · 21 points · 11 years ago
              Hi all,

              I've put together a small python project that facilitates browsing Reddit
              through a terminal window. It works great for text and q&a based subreddits. I
              made this because I wanted something that I could attach to a tmux session and
              keep in the background while working on other things. I found similar projects
              (e.g. AlienFeed), but they didn't support browsing through submission
              comments, which is IMO the most important part! I would love to get any
              feedback that you guys might have.
              u/davoclavo · 12 points · 11 years ago
                Hey! great project, what about making it pip installable so people can try
                it out in a snap?

                Relevant tutorial[1]
                [1] http://peterdowns.com/posts/first-time-with-pypi.html
                u/badsectors · 22 points · 11 years ago
                  Until that happens, anyone can still install it via pip:


            """)
        let grid = Self.grid(wide, 80, 24)
        // The post is selected: its title reversed across the row; its meta line dim, its link in colour.
        #expect(grid[x: 0, y: 0].style == CellStyle(reverse: true) && grid[x: 79, y: 0].style == CellStyle(reverse: true))
        #expect(grid[x: 0, y: 1].style == CellStyle(dim: true))
        #expect(grid[x: 0, y: 2].style == CellStyle(foreground: .cyan))
        // A comment's header: the author bold, the rest dim; its text plain.
        #expect(grid[x: 0, y: 4].style == CellStyle(bold: true) && grid[x: 23, y: 4].style == CellStyle(dim: true))
        #expect(grid[x: 2, y: 5].style == .plain)
        #expect(wide.place == ["r/Python · A python terminal viewer for browsing reddit · 43 comments", "r/Python · 43 comments", "r/Python"])

        let narrow = Self.screen(recorded, in: Self.layout(40, 10), visit: .some(nil))
        #expect(Self.text(narrow, 40, 10) == """
            A python terminal viewer for browsing
            reddit
            r/Python · u/civilization_phaze_3
            256 points · 43 comments · 11 years ago
            https://github.com/michael-lazar/rtv

            u/civilization_phaze_3 · 21 points
            11 years ago
              Hi all,

            """)
    }

    @Test func jAndKMoveFromCommentToCommentScrollingToShowIt() throws {
        var screen = Self.screen(try Self.thread(), in: Self.layout(40, 10), visit: .some(nil))
        let layout = Self.layout(40, 10)
        var steps: [String] = []
        for key in [Key.character("j"), .down, .character("j"), .character("j"), .character("j"), .character("j"),
                    .character("k"), .up] {
            Self.press([key], on: &screen, in: layout)
            steps.append("\(screen.selectedID ?? "post")@\(screen.top)")
        }
        // Each comment scrolls in with its text (c2's ends on row 9, c5's on the last row, 18);
        // going back up needs no scroll while the header is in view.
        #expect(steps == ["c1@0", "c2@1", "c3@3", "c4@7", "c5@10", "c5@10", "c4@10", "c3@10"])
        #expect(Self.text(screen, 40, 10) == """
                u/carol · 2 points · 55 min ago
                  Deeper reply.
              … 3 more replies not loaded

            u/dave · 1 point · 53 min ago
              Second top comment.

            u/erin · 1 point · 51 min ago
              Third link.

            """)
        // The selected comment's header is reversed across the row, and only it.
        let grid = Self.grid(screen, 40, 10)
        #expect(grid[x: 0, y: 0].style == CellStyle(reverse: true) && grid[x: 39, y: 0].style == CellStyle(reverse: true))
        #expect(grid[x: 6, y: 1].style == .plain && grid[x: 0, y: 4].style == CellStyle(bold: true))
    }

    @Test func capitalJAndKGoFromThreadToThreadJFromThePostToTheFirst() throws {
        var screen = Self.screen(try Self.thread(), in: Self.layout(40, 10), visit: .some(nil))
        let layout = Self.layout(40, 10)
        var steps: [String] = []
        for key in "JJJJKKKK" {
            Self.press([.character(key)], on: &screen, in: layout)
            steps.append(screen.selectedID ?? "post")
        }
        #expect(steps == ["c1", "c4", "c5", "c5", "c4", "c1", "post", "post"])
        // From a reply, J goes to the next thread.
        Self.press([.character("j"), .character("j")], on: &screen, in: layout)
        #expect(screen.selectedID == "c2")
        Self.press([.character("J")], on: &screen, in: layout)
        #expect(screen.selectedID == "c4")
    }

    @Test func spaceFoldsTheCommentWithItsRepliesAndUnfoldsIt() throws {
        var screen = Self.screen(try Self.thread(), in: Self.layout(40, 10), visit: .some(nil))
        let layout = Self.layout(40, 10)
        Self.press([.character("j"), .character(" ")], on: &screen, in: layout)
        #expect(screen.folded == ["c1"])
        // Its text, two replies and the stub hidden; the next thread comes up.
        #expect(Self.text(screen, 40, 10) == """
            Folding test
            r/swift · u/op · 5 points · 6 comments
            1 h ago

            Body text.

            u/alice · 3 points · 58 min ago · [+2]

            u/dave · 1 point · 53 min ago

            """)
        // The next comment down is the next thread; the mark is in colour when not selected.
        Self.press([.character("j")], on: &screen, in: layout)
        #expect(screen.selectedID == "c4")
        // c4's text scrolled in, one row.
        #expect(screen.top == 1)
        let grid = Self.grid(screen, 40, 10)
        #expect((34...37).allSatisfy { grid[x: $0, y: 5].style == PostScreen.markStyle })
        #expect(grid[x: 33, y: 5].style == CellStyle(dim: true))
        Self.press([.character("k"), .character(" ")], on: &screen, in: layout)
        #expect(screen.folded.isEmpty && screen.selectedID == "c1")
        #expect(Self.text(screen, 40, 10) == Self.smallAt40x10FromRow1)
    }

    static let previousVisit = Visit(openedAt: Date(timeIntervalSince1970: 1_790_000_200), itemCount: 2)

    @Test func commentsWrittenAfterThePreviousVisitAreMarkedNew() throws {
        // bob's comment was written at the moment of the visit: not new. carol's reply to it is.
        let screen = Self.screen(try Self.thread(), in: Self.layout(80, 24), visit: .some(Self.previousVisit))
        #expect(Self.text(screen, 80, 24) == """
            Folding test
            r/swift · u/op · 5 points · 6 comments · 1 h ago

            Body text.

            u/alice · 3 points · 58 min ago
              First top comment.
              u/bob · 1 point · 56 min ago
                A reply.
                u/carol · 2 points · 55 min ago · new
                  Deeper reply.
              … 3 more replies not loaded

            u/dave · 1 point · 53 min ago · new
              Second top comment.

            u/erin · 1 point · 51 min ago · new
              Third link.






            """)
        #expect(screen.newCount == 3)
        #expect(screen.place[1] == "r/swift · 6 comments · 3 new")
        let grid = Self.grid(screen, 80, 24)
        #expect((32...34).allSatisfy { grid[x: $0, y: 13].style == PostScreen.markStyle })
        #expect(grid[x: 31, y: 13].style == CellStyle(dim: true))
    }

    @Test func aFirstVisitMarksNothing() throws {
        var screen = Self.screen(try Self.thread(), in: Self.layout(80, 24))
        let before = Self.text(screen, 80, 24)
        _ = screen.handle(Self.visit(nil), in: Self.layout(80, 24))
        #expect(screen.newCount == 0)
        #expect(screen.place[1] == "r/swift · 6 comments")
        #expect(Self.text(screen, 80, 24) == before)
        #expect(!before.contains("new"))
    }

    @Test(.replaysRecordings) func aRefreshKeepsTheSelectedCommentAndThePreviousVisit() throws {
        let layout = Self.layout(40, 10)
        var screen = PostScreen(post: try Self.thread().post, reddit: RedditBrowsing())
        // The cache's copy, then the network's: the visit is recorded once.
        #expect(Self.names(screen.handle(Self.loaded(try Self.thread()), in: layout)) == ["run visit"])
        #expect(Self.names(screen.handle(Self.loaded(try Self.thread()), in: layout)).isEmpty)
        _ = screen.handle(Self.visit(Self.previousVisit), in: layout)
        Self.press([.character("J"), .character("J")], on: &screen, in: layout)
        #expect(screen.selectedID == "c4")
        #expect(Self.names(screen.handle(.refresh, in: layout)) == ["load comments refresh"])
        let frank = """
            {"kind": "t1", "data": {"id": "c6", "author": "frank", "body": "Late.", "score": 1, "created_utc": 1790003000, "replies": ""}},
            """
        #expect(Self.names(screen.handle(Self.loaded(try Self.thread(adding: frank)), in: layout)).isEmpty)
        // A comment came before it: the same comment stays selected; the visit measured against is the same.
        #expect(screen.selectedID == "c4" && screen.selected == 5)
        #expect(screen.newCount == 4)
        // Too wide for 40 columns with carol's header, `new` goes to a line of its own, in colour still.
        #expect(Self.text(screen, 40, 10) == """
              u/bob · 1 point · 56 min ago
                A reply.
                u/carol · 2 points · 55 min ago
                new
                  Deeper reply.
              … 3 more replies not loaded

            u/dave · 1 point · 53 min ago · new
              Second top comment.

            """)
        let grid = Self.grid(screen, 40, 10)
        #expect((4...6).allSatisfy { grid[x: $0, y: 3].style == PostScreen.markStyle })
        // frank's comment, first now, is new (written after the visit, which stays the one measured against).
        #expect(screen.rows[6].text == "u/frank · 1 point · 10 min ago · new")
    }

    @Test(.replaysRecordings) func pagesScrollTheCursorToTheFirstCommentInView() throws {
        var screen = Self.screen(try Self.recorded(), in: Self.layout(40, 10), visit: .some(nil))
        let layout = Self.layout(40, 10)
        Self.press([.pageDown], on: &screen, in: layout)
        // No header in view: the cursor is on the comment the view is inside.
        #expect(screen.top == 9 && screen.selectedID == "cp1h67d")
        #expect(Self.text(screen, 40, 10) == """

              I've put together a small python
              project that facilitates browsing
              Reddit through a terminal window. It
              works great for text and q&a based
              subreddits. I made this because I
              wanted something that I could attach
              to a tmux session and keep in the
              background while working on other

            """)
        Self.press([.control("d")], on: &screen, in: layout)
        #expect(screen.top == 18 && screen.selectedID == "cp1k61m")
        Self.press([.pageUp, .control("u")], on: &screen, in: layout)
        #expect(screen.top == 0 && screen.selectedID == nil)
        // The end: the last comment selected, the last row at the bottom.
        Self.press([.character("G")], on: &screen, in: layout)
        #expect(screen.top == 370 && screen.rows.count == 379 && screen.selectedID == "cpxjgae")
        #expect(Self.text(screen, 40, 10) == """
                as well
                >sudo pip install --upgrade --pre
                rtv

                Hope that helps!

            u/CleverEagle · 1 point · 11 years ago
              Just viewed and commented on this post
              with rtv. so meta.

            """)
        Self.press([.character("g")], on: &screen, in: layout)
        #expect(screen.top == 0 && screen.selectedID == nil)
    }

    @Test func aResizeRewrapsKeepingTheSelection() throws {
        var screen = Self.screen(try Self.thread(), in: Self.layout(80, 24), visit: .some(nil))
        Self.press([.character("j"), .character("j")], on: &screen, in: Self.layout(80, 24))
        #expect(screen.rows.count == 18)
        _ = screen.handle(.resized, in: Self.layout(40, 10))
        #expect(screen.selectedID == "c2" && screen.rows.count == 19)
        #expect(Self.text(screen, 40, 10) == Self.smallAt40x10FromRow1)
    }

    @Test(.replaysRecordings) func oOpensThePostsLinkAndTheHelpListsTheKeys() throws {
        var screen = Self.screen(try Self.recorded(), in: Self.layout(80, 24))
        #expect(Self.press([.character("o")], on: &screen, in: Self.layout(80, 24)) == ["open https://github.com/michael-lazar/rtv"])
        #expect(screen.keys.map(\.keys) == ["Space", "J / K", "o"])
    }

    @Test(.replaysRecordings) func pagesAtTheEndsReachTheLastAndTheFirstComment() throws {
        let layout = Self.layout(80, 24)
        var screen = Self.screen(try Self.recorded(), in: layout, visit: .some(nil))
        for _ in 0..<200 { Self.press([.pageDown], on: &screen, in: layout) }
        let last = screen.anchors.count - 1
        #expect(screen.selected == last)
        for _ in 0..<200 { Self.press([.pageUp], on: &screen, in: layout) }
        #expect(screen.selected == 0)
        #expect(screen.selectedID == nil)
    }
}
