import Foundation
import Testing
@testable import ReaderCLI
@testable import ReaderKit
import ReaderTerminal

/// The post list of `reader browse` as a model: a state and an event give the next state and
/// effects; a state and a size give the screen, written out.
@Suite struct PostListScreenTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func post(_ number: Int, title: String, score: Int = 10, comments: Int = 2, hoursAgo: Int = 3) -> RedditPost {
        RedditPost(id: "p\(number)", name: "t3_p\(number)", title: title, author: "user\(number)", subreddit: "python",
                   score: score, numComments: comments, createdUTC: now.addingTimeInterval(TimeInterval(-hoursAgo * 3600)),
                   permalink: "/r/python/comments/p\(number)/")
    }

    static let posts = [post(1, title: "First post", score: 1234), post(2, title: "Second post"), post(3, title: "Third post, much longer than the others")]

    static func metadata(stale: Bool = false, age: Int = 0, errorCode: ErrorCode? = nil) -> LoadMetadata {
        LoadMetadata(source: stale ? .cache : .network, stale: stale, fetchedAt: now.addingTimeInterval(TimeInterval(-age)),
                     ageSeconds: age, errorCode: errorCode, url: "https://www.reddit.com/r/python/hot.json")
    }

    static func layout(_ columns: Int = 80, _ rows: Int = 24) -> ScreenLayout {
        ScreenLayout(columns: columns, rows: rows - 1, now: now)
    }

    static func screen() -> PostListScreen {
        PostListScreen(.subreddit("python"), reddit: RedditBrowsing())
    }

    static func listing(_ posts: [RedditPost], after: String? = nil) -> ScreenAnswer {
        ScreenAnswer(LoadResult<RedditListing>.loaded(RedditListing(after: after, children: posts.map { .post($0) }), metadata()))
    }

    static func loaded(_ posts: [RedditPost] = posts, after: String? = nil, layout: ScreenLayout = layout()) -> PostListScreen {
        var screen = screen()
        _ = screen.handle(.answer(id: "list", listing(posts, after: after)), in: layout)
        return screen
    }

    static func text(_ screen: PostListScreen, _ columns: Int = 80, _ rows: Int = 24) -> String {
        var grid = Grid(size: TerminalSize(columns: columns, rows: rows))
        screen.draw(into: &grid, in: layout(columns, rows))
        return grid.text
    }

    /// The loads among `effects`: id and kind.
    static func loads(_ effects: [ScreenEffect]) -> [String] {
        effects.compactMap { if case .load(let id, let kind, _) = $0 { "\(id) \(kind)" } else { nil } }
    }

    @Test func itStartsFromTheCacheAndSaysItIsLoading() {
        let screen = Self.screen()
        #expect(Self.loads(screen.start(in: Self.layout())) == ["list cacheFirst"])
        #expect(Self.text(screen, 40, 10).hasPrefix("loading r/python…"))
        #expect(screen.place == ["r/python · hot · loading", "r/python · hot", "r/python"])
        #expect(!screen.hasContent)
    }

    @Test func theListAt80x24WithTheFirstRowSelectedInReverseVideo() {
        let text = Self.text(Self.loaded())
        #expect(text == """
            SCORE  COMMENTS  AGE  SUBREDDIT  AUTHOR   ID  TITLE
             1234         2  3 h  r/python   u/user1  p1  First post
               10         2  3 h  r/python   u/user2  p2  Second post
               10         2  3 h  r/python   u/user3  p3  Third post, much longer than the …
            \(String(repeating: "\n", count: 19))
            """)
        var grid = Grid(size: TerminalSize(columns: 80, rows: 24))
        Self.loaded().draw(into: &grid, in: Self.layout())
        #expect((0..<80).allSatisfy { grid[x: $0, y: 1].style.reverse })
        #expect(!grid[x: 0, y: 2].style.reverse)
    }

    @Test func theListAt40x10GivesWayToTheTitle() {
        #expect(Self.text(Self.loaded(), 40, 10) == """
            SCORE  ID  TITLE
             1234  p1  First post
               10  p2  Second post
               10  p3  Third post, much longer than…
            \(String(repeating: "\n", count: 5))
            """)
    }

    @Test func keysMoveTheSelectionWithinTheListAndScrollIt() {
        let many = (1...30).map { Self.post($0, title: "Post \($0)") }
        let small = Self.layout(40, 10)
        var screen = Self.loaded(many, layout: small)
        // 8 rows of posts at 40×10 (a header and the bottom line): the ninth scrolls by one.
        for _ in 0..<8 { _ = screen.handle(.key(.character("j")), in: small) }
        #expect(screen.selected == 8)
        #expect(screen.top == 1)
        _ = screen.handle(.key(.pageDown), in: small)
        #expect(screen.selected == 16)
        #expect(screen.top == 9)
        _ = screen.handle(.resized, in: Self.layout())
        #expect(screen.selected == 16)
        #expect(screen.top == 8)
        _ = screen.handle(.key(.end), in: Self.layout())
        #expect(screen.selected == 29)
        _ = screen.handle(.key(.character("k")), in: small)
        _ = screen.handle(.key(.home), in: small)
        #expect(screen.selected == 0)
        #expect(screen.top == 0)
    }

    @Test func theLastRowLoadsTheNextPageShowingLoadingMoreAndAppendsIt() {
        var screen = Self.loaded(after: "t3_p3")
        _ = screen.handle(.key(.character("j")), in: Self.layout())
        let effects = screen.handle(.key(.character("j")), in: Self.layout())
        #expect(Self.loads(effects) == ["more cacheFirst"])
        #expect(screen.loadingMore)
        #expect(Self.text(screen).split(separator: "\n")[4] == "loading more…")
        // A second j at the end asks for nothing more while it comes.
        #expect(Self.loads(screen.handle(.key(.character("j")), in: Self.layout())).isEmpty)
        let next = screen.handle(.answer(id: "more", Self.listing([Self.post(3, title: "dup"), Self.post(4, title: "Fourth")], after: nil)),
                                 in: Self.layout())
        #expect(screen.posts.map(\.id) == ["p1", "p2", "p3", "p4"])
        // On a full screen, the row comes into view below the last post.
        let many = (1...30).map { Self.post($0, title: "Post \($0)") }
        let small = Self.layout(40, 10)
        var full = Self.loaded(many, after: "t3_p30", layout: small)
        #expect(Self.loads(full.handle(.key(.end), in: small)) == ["more cacheFirst", "comments:p24 background",
                                                                  "comments:p25 background", "comments:p26 background", "comments:p27 background",
                                                                  "comments:p28 background", "comments:p29 background", "comments:p30 background"])
        #expect(full.top == 23)
        #expect(Self.text(full, 40, 10).split(separator: "\n", omittingEmptySubsequences: false)[8] == "loading more…")
        #expect(!screen.loadingMore)
        #expect(screen.after == nil)
        // The new post's comments are prefetched; there is no next page to prefetch.
        #expect(Self.loads(next).contains("comments:p4 background"))
        #expect(!Self.loads(next).contains { $0.hasPrefix("next:") })
    }

    /// A quick PgDn: the comments of posts that left the screen before their turn are not asked
    /// for; those in view go next. The four running go on.
    @Test func prefetchDropsWhatScrolledAwayBeforeItsTurnAndWhatIsInViewGoesFirst() {
        let many = (1...100).map { Self.post($0, title: "Post \($0)") }
        let size = TerminalSize(columns: 80, rows: 24)
        var browser = Browser(first: Self.screen(), environment: Browser.Environment(
            loadOptions: { LoadOptions() }, resolve: { _ throws(ReaderError) in Self.screen() }, wording: CLIWording(registry: .current), browserCommand: nil, openURL: { _ in nil }),
            size: size, now: Self.now)
        _ = browser.start()
        let first = browser.update(.message(.answer(screen: 0, id: "list", .foreground(probe: false), Self.listing(many))))
        #expect(BrowserTests.tasks(first).filter { $0.hasPrefix("0:comments:") } == (1...4).map { "0:comments:p\($0)" })
        #expect(browser.waitingInBackground == (5...22).map { "0:comments:p\($0)" })
        for _ in 0..<3 { _ = browser.update(.key(.pageDown)) }
        // On screen now: p46…p67 (22 rows a page, the selected row the last).
        #expect(browser.waitingInBackground == (46...67).map { "0:comments:p\($0)" })
        let answered = browser.update(.message(.answer(screen: 0, id: "comments:p1", .background, ScreenAnswer("comments"))))
        #expect(BrowserTests.tasks(answered) == ["0:comments:p46"])
        // Back up: what was dropped is asked for again, once in view.
        for _ in 0..<3 { _ = browser.update(.key(.pageUp)) }
        #expect(browser.waitingInBackground == (5...22).map { "0:comments:p\($0)" })
    }

    @Test func aShownListPrefetchesTheCommentsOfEveryPostOnScreenAndTheNextPage() {
        var screen = Self.screen()
        let effects = screen.handle(.answer(id: "list", Self.listing(Self.posts, after: "t3_p3")), in: Self.layout())
        #expect(Self.loads(effects) == ["comments:p1 background", "comments:p2 background", "comments:p3 background", "next:t3_p3 background"])
        let runs = effects.compactMap { if case .run(let id, _) = $0 { id } else { nil } }
        #expect(runs == ["visits"])
        // Scrolling brings posts into view: theirs are asked for, once.
        let many = (1...30).map { Self.post($0, title: "Post \($0)") }
        let small = Self.layout(40, 10)
        var list = Self.screen()
        #expect(Self.loads(list.handle(.answer(id: "list", Self.listing(many)), in: small)).count == 8)
        for _ in 0..<7 { #expect(Self.loads(list.handle(.key(.down), in: small)).isEmpty) }
        #expect(Self.loads(list.handle(.key(.down), in: small)) == ["comments:p9 background"])
        _ = list.handle(.key(.home), in: small)
        #expect(Self.loads(list.handle(.key(.pageDown), in: small)).isEmpty)
        #expect(Self.loads(list.handle(.key(.pageDown), in: small)) == (10...17).map { "comments:p\($0) background" })
    }

    @Test func commentsSinceTheLastVisitShowAsNewBesideTheCount() {
        var screen = Self.loaded([Self.post(1, title: "Seen", comments: 12), Self.post(2, title: "Never opened", comments: 5),
                                  Self.post(3, title: "No change", comments: 4)])
        _ = screen.handle(.answer(id: "visits", ScreenAnswer([Visit(openedAt: Self.now, itemCount: 5), nil,
                                                             Visit(openedAt: Self.now, itemCount: 4)] as [Visit?])), in: Self.layout())
        #expect(screen.newComments == ["p1": 7])
        #expect(Self.text(screen).split(separator: "\n")[1] == "   10  12 +7 new  3 h  r/python   u/user1  p1  Seen")
    }

    @Test func enterOpensTheSelectedPostAndOOpensItsLink() {
        var screen = Self.loaded()
        _ = screen.handle(.key(.down), in: Self.layout())
        let effects = screen.handle(.key(.enter), in: Self.layout())
        guard case .push(let next)? = effects.first, let post = next as? PostScreen else { Issue.record("no post pushed"); return }
        #expect(post.post.id == "p2")
        guard case .open(let url)? = screen.handle(.key(.character("o")), in: Self.layout()).first else { Issue.record("no link"); return }
        #expect(url == "https://www.reddit.com/r/python/comments/p2/")
    }

    @Test func sCyclesTheSortAndLoadsIt() {
        var screen = Self.loaded()
        var sorts: [String] = []
        for _ in 0..<5 {
            let effects = screen.handle(.key(.character("S")), in: Self.layout())
            #expect(Self.loads(effects) == ["list cacheFirst"])
            sorts.append(screen.sort.rawValue)
        }
        #expect(sorts == ["new", "top", "rising", "controversial", "hot"])
        #expect(screen.posts.isEmpty)
        #expect(screen.place.first == "r/python · hot · loading")
    }

    @Test func aFilterKeepsMatchingPostsAndTheSelectionOnTheSamePost() {
        var screen = Self.loaded()
        _ = screen.handle(.key(.character("G")), in: Self.layout())
        _ = screen.handle(.filter("THIRD"), in: Self.layout())
        #expect(screen.visible.map(\.id) == ["p3"])
        #expect(screen.selectedPost?.id == "p3")
        #expect(screen.place.first == "r/python · hot · 1 of 3 posts")
        _ = screen.handle(.filter("zzz"), in: Self.layout())
        #expect(Self.text(screen).hasPrefix("no post matches /zzz"))
        _ = screen.handle(.filter(""), in: Self.layout())
        #expect(screen.visible.count == 3)
    }

    @Test func aRefreshKeepsTheSamePostSelected() {
        var screen = Self.loaded()
        _ = screen.handle(.key(.character("j")), in: Self.layout())
        #expect(Self.loads(screen.handle(.refresh, in: Self.layout())) == ["list refresh"])
        _ = screen.handle(.answer(id: "list", Self.listing([Self.post(9, title: "New on top")] + Self.posts)), in: Self.layout())
        #expect(screen.selectedPost?.id == "p2")
        #expect(screen.selected == 2)
    }

    @Test func hostileTitlesReachTheScreenSanitised() {
        let hostile = Self.post(9, title: "evil\u{1B}]0;pwned\u{07} \u{1B}[2Jtitle\u{202E}txt.exe\u{200B}")
        let text = Self.text(Self.loaded([hostile]))
        #expect(text.split(separator: "\n")[1].hasSuffix("evil titletxt.exe"))
        #expect(!text.contains("pwned"))
    }

    @Test func aTargetNamesASubredditAUserOrNothing() throws {
        let client = ReaderClient(configuration: .init(cachePath: nil))
        func screen(_ target: String?) throws -> PostListScreen? {
            try Reader.Browse.program(for: target, settings: nil).firstScreen(BrowseContext(client: client)) as? PostListScreen
        }
        #expect(try screen("python")?.listing == .subreddit("python"))
        #expect(try screen("r/a+b")?.listing == .subreddit("a+b"))
        #expect(try screen(nil)?.listing == .subreddit(nil))
        #expect(try screen(nil)?.title == "front page")
        // A user's posts, newest first as `reader posts --user` lists them.
        #expect(try screen("u/spez")?.listing == .user("spez"))
        #expect(try screen("u/spez")?.sort == .new)
        #expect(throws: ReaderError.self) { try screen("r/no such") }
        #expect(throws: ReaderError.self) { try screen("u/") }
    }

    @Test func theWholeScreenAt200x50() {
        var browser = Browser(first: Self.screen(), environment: Browser.Environment(
            loadOptions: { LoadOptions() }, resolve: { _ throws(ReaderError) in Self.screen() }, wording: CLIWording(registry: .current), browserCommand: nil, openURL: { _ in nil }),
            size: TerminalSize(columns: 200, rows: 50), now: Self.now)
        _ = browser.update(.message(.answer(screen: 0, id: "list", .foreground(probe: false),
                                            ScreenAnswer(LoadResult<RedditListing>.loaded(RedditListing(children: Self.posts.map { .post($0) }),
                                                                                          Self.metadata(stale: true, age: 7200)),
                                                         report: .loaded(Self.metadata(stale: true, age: 7200))))))
        let view = browser.view(size: TerminalSize(columns: 200, rows: 50))
        #expect(view.text == """
            SCORE  COMMENTS  AGE  SUBREDDIT  AUTHOR   ID  TITLE
             1234         2  3 h  r/python   u/user1  p1  First post
               10         2  3 h  r/python   u/user2  p2  Second post
               10         2  3 h  r/python   u/user3  p3  Third post, much longer than the others
            \(String(repeating: "\n", count: 45))r/python · hot · 3 posts\(String(repeating: " ", count: 159))copy from 2 h ago
            """)
        #expect((0..<200).allSatisfy { view[x: $0, y: 1].style.reverse })
    }

    @Test func aPostOrPageTheEndpointRefusesIsAFailureToShowNotALoadThatNeverEnds() async {
        let comments = await RedditBrowsing().comments(of: "L024")(LoadOptions())
        guard case .failed(let failure)? = comments.report, case .failed(let same)? = comments.payload as? LoadResult<RedditCommentPage> else {
            Issue.record("no failure: \(comments)"); return
        }
        #expect(failure.code == "R1001")
        #expect(failure.error.message.contains("L024"))
        #expect(same == failure)
        // An id that `reader comments` would read as a URL is not taken to mean another post.
        for disguised in ["x/comments/abc", "abc\u{1B}]0;x/comments/def\u{07}", "t3_abc"] {
            let answer = await RedditBrowsing().comments(of: disguised)(LoadOptions())
            guard case .failed(let refused)? = answer.report else { Issue.record("\(disguised) taken: \(answer)"); continue }
            #expect(refused.code == "R1001")
        }
        let page = await RedditBrowsing().posts(of: .subreddit("python"), sort: .hot, after: "not a fullname")(LoadOptions())
        guard case .failed(let refused)? = page.report else { Issue.record("no failure: \(page)"); return }
        #expect(refused.code == "R1001")
    }

    @Test func aUsersPostsCycleTheSortsAUserHas() {
        var screen = PostListScreen(.user("spez"), reddit: RedditBrowsing())
        var sorts = [screen.sort]
        for _ in 0..<4 {
            _ = screen.handle(.key(.character("S")), in: Self.layout())
            sorts.append(screen.sort)
        }
        #expect(sorts == [.new, .top, .controversial, .hot, .new])
    }
}

/// `F`: the `/` filter's words asked of Reddit, in a list of their own; and a feed's list drawn
/// without the numbers it does not have.
@Suite struct PostListSearchAndFeedTests {
    @Test func fSearchesTheSubredditForTheFiltersWords() throws {
        var screen = PostListScreenTests.loaded()
        let layout = PostListScreenTests.layout()
        // Nothing typed yet: it says how, and asks nothing.
        let told = screen.handle(.key(.character("F")), in: layout)
        guard case .say(let text)? = told.first else { Issue.record("\(told)"); return }
        #expect(text == "type / and the words first: F searches Reddit for them")
        _ = screen.handle(.filter("second"), in: layout)
        let effects = screen.handle(.key(.character("F")), in: layout)
        guard case .push(let pushed)? = effects.first, let search = pushed as? PostListScreen else { Issue.record("\(effects)"); return }
        #expect(search.listing == .search("second", in: "python"))
        #expect(search.place == ["\"second\" in r/python · relevance · loading", "\"second\" in r/python · relevance", "\"second\" in r/python"])
        #expect(search.keys.contains { $0.keys == "F" })
        let endpoint = try RedditBrowsing.posts(of: search.listing, sort: search.sort, after: nil)
        #expect(endpoint.path == "r/python/search.json")
        #expect(endpoint.query.map { "\($0.name)=\($0.value ?? "")" } == ["q=second", "restrict_sr=1", "sort=relevance", "limit=25", "raw_json=1"])
    }

    /// From the second attack: anonymous feed readers get a few requests before Reddit's 429;
    /// prefetching spent them before the user opened anything.
    @Test func aListFromTheFeedPrefetchesNothing() {
        var screen = PostListScreenTests.screen()
        let layout = PostListScreenTests.layout()
        let listing = RedditListing(after: "t3_p3", children: PostListScreenTests.posts.map { .post($0) }, isFromFeed: true)
        let effects = screen.handle(.answer(id: "list", ScreenAnswer(LoadResult<RedditListing>.loaded(listing, PostListScreenTests.metadata()))), in: layout)
        #expect(PostListScreenTests.loads(effects).isEmpty, "\(PostListScreenTests.loads(effects))")
        // The same list from the API prefetches what is on screen and the next page.
        var api = PostListScreenTests.screen()
        let apiEffects = api.handle(.answer(id: "list", PostListScreenTests.listing(PostListScreenTests.posts, after: "t3_p3")), in: layout)
        #expect(PostListScreenTests.loads(apiEffects).count == 4)
    }

    @Test func aFeedsListHasNoScoreOrCommentsColumn() {
        let posts = PostListScreenTests.posts.map { post -> RedditPost in
            var post = post
            post.score = nil
            post.numComments = nil
            return post
        }
        let text = PostListScreenTests.text(PostListScreenTests.loaded(posts), 80, 6)
        let header = text.split(separator: "\n").first.map(String.init) ?? ""
        #expect(!header.contains("SCORE") && !header.contains("COMMENTS") && header.contains("AGE"), "\(text)")
        #expect(!text.contains("1234"), "\(text)")
    }
}
