import Foundation
import ReaderKit
import ReaderTerminal

/// The post list of `reader browse`: one row a post as `reader posts` lays it out (columns give
/// way on a narrow terminal as the command's do), the selected row in reverse video.
///
/// - Drawn from the cache at once, then revalidated when the copy is stale (``LoadKind/cacheFirst``).
/// - Reaching the last row loads the next page (Reddit's `after`), shown as a last row
///   `loading more…` while it comes.
/// - While the list is shown, the comments of every post on screen and the next page are
///   prefetched in the background, so that opening a post costs no request.
/// - `+7 new` beside a post's comment count: comments since the post was last opened here.
/// - `S` cycles the sort; `/` (the ``Browser``'s) filters by title, subreddit or author; `F`
///   searches the subreddit (or all of Reddit, from the front page) for the filter's words; `o`
///   opens the post's link.
struct PostListScreen: BrowseScreen {
    /// Whose posts these are.
    let listing: RedditBrowsing.Listing
    let reddit: RedditBrowsing

    private(set) var sort: Reddit.Sort
    private(set) var posts: [RedditPost] = []
    private(set) var shown: LoadMetadata?
    /// Whether the first page is being loaded (nothing shown yet).
    private(set) var loading = true
    /// Reddit's token for the page after the last one shown; nil at the end.
    private(set) var after: String?
    /// Whether the next page is being loaded.
    private(set) var loadingMore = false
    /// The filter typed after `/`.
    private(set) var filter = ""
    /// The posts shown: those the filter keeps.
    private(set) var visible: [RedditPost] = []
    /// The selected post (its index in ``visible``) and the first row on screen.
    private(set) var cursor = ListCursor()
    var selected: Int { cursor.selected }
    var top: Int { cursor.top }
    /// Whether the list came from Reddit's Atom feed: then nothing is prefetched, as Reddit allows
    /// anonymous feed readers a few requests before its 429 (the second attack's browse spent
    /// them all, and the post then opened was rate limited for ten minutes).
    private(set) var fromFeed = false
    /// Comments since the last visit, by post id.
    private(set) var newComments: [String: Int] = [:]
    /// What was asked for in the background since the screen was last shown: post ids, and
    /// `after` tokens of next pages.
    private(set) var prefetched: Set<String> = []
    /// The posts whose comments were asked for in the background and have not answered.
    private var prefetching: Set<String> = []

    init(_ listing: RedditBrowsing.Listing, reddit: RedditBrowsing) {
        self.listing = listing
        self.reddit = reddit
        sort = listing.defaultSort
    }

    /// Where this is: `r/python`, `u/spez`, `front page`.
    var title: String { listing.title }

    var place: [String] {
        let count = loading && posts.isEmpty ? "loading"
            : filter.isEmpty ? "\(posts.count) posts" : "\(visible.count) of \(posts.count) posts"
        let sort = if case .search = listing { "relevance" } else { self.sort.rawValue }
        return ["\(title) · \(sort) · \(count)", "\(title) · \(sort)", title]
    }

    var hasContent: Bool { !posts.isEmpty }
    var service: ServiceName? { RedditService.name }
    var filters: Bool { true }
    var keys: [KeyHelp] {
        [KeyHelp("S", "sort: hot, new, top, rising, controversial"),
         KeyHelp("F", "search Reddit for the / filter's words (this subreddit's posts)"),
         KeyHelp("o", "open the post's link ($BROWSER)")]
    }

    /// The selected post, if any.
    var selectedPost: RedditPost? { visible.indices.contains(selected) ? visible[selected] : nil }

    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        [.load(id: "list", .cacheFirst, reddit.posts(of: listing, sort: sort, after: nil))]
    }

    /// The rows posts take: all but the header.
    private func listHeight(_ layout: ScreenLayout) -> Int { max(1, layout.rows - 1) }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        switch event {
        case .key(let key):
            return press(key, in: layout)
        case .refresh:
            return [.load(id: "list", .refresh, reddit.posts(of: listing, sort: sort, after: nil))]
        case .filter(let text):
            let keep = selectedPost?.id
            filter = text
            applyFilter(keeping: keep, in: layout)
        case .resized, .appeared:
            select(selected, in: layout)
            // Covering the screen cancelled its background work: what is on screen is asked again
            // (what finished is in the cache by now, and costs no request).
            if case .appeared = event { prefetched = []; prefetching = []; return prefetch(in: layout) + visits() }
            return prefetch(in: layout)
        case .tick:
            break
        case .answer(let id, let answer):
            return receive(answer, id: id, in: layout)
        }
        return []
    }

    private mutating func press(_ key: Key, in layout: ScreenLayout) -> [ScreenEffect] {
        let shownFrom = top
        if cursor.move(key, count: visible.count, height: listHeight(layout), trailingRows: loadingMore ? 1 : 0) {
            let more = moreIfAtTheEnd(in: layout)
            return more + (top == shownFrom ? [] : prefetch(in: layout))
        }
        switch key {
        case .enter, .character("l"), .right:
            guard let post = selectedPost else { return [] }
            return [.push(PostScreen(post: post, reddit: reddit))]
        case .character("o"):
            guard let post = selectedPost else { return [] }
            return [.open(url: post.url ?? "https://www.reddit.com" + post.permalink)]
        case .character("F"):
            // `/` filters what is loaded; `F` asks Reddit for the same words, in a list of its own.
            let words = filter.trimmingCharacters(in: .whitespaces)
            guard !words.isEmpty else { return [.say("type / and the words first: F searches Reddit for them")] }
            let scope: String? = switch listing {
            case .subreddit(let name): name
            case .search(_, let name): name
            case .user: nil
            }
            return [.push(PostListScreen(.search(words, in: scope), reddit: reddit))]
        case .character("S"):
            let sorts = listing.sorts
            sort = sorts[((sorts.firstIndex(of: sort) ?? 0) + 1) % sorts.count]
            posts = []
            visible = []
            prefetched = []
            shown = nil
            after = nil
            loading = true
            loadingMore = false
            cursor = ListCursor()
            return [.cancel(id: "more"), .load(id: "list", .cacheFirst, reddit.posts(of: listing, sort: sort, after: nil))]
        default:
            return []
        }
    }

    /// The next page, when the last row is selected and there is one.
    private mutating func moreIfAtTheEnd(in layout: ScreenLayout) -> [ScreenEffect] {
        guard filter.isEmpty, !visible.isEmpty, selected == visible.count - 1, let after, !loadingMore else { return [] }
        loadingMore = true
        select(selected, in: layout)
        return [.load(id: "more", .cacheFirst, reddit.posts(of: listing, sort: sort, after: after))]
    }

    private mutating func receive(_ answer: ScreenAnswer, id: String, in layout: ScreenLayout) -> [ScreenEffect] {
        switch id {
        case "list":
            guard let result = answer.payload as? LoadResult<RedditListing> else { return [] }
            loading = false
            guard case .loaded(let listing, let metadata) = result else { return [] }
            let keep = selectedPost?.id
            posts = Self.unique(listing.posts)
            after = listing.after
            fromFeed = listing.isFromFeed
            shown = metadata
            applyFilter(keeping: keep, in: layout)
            return prefetch(in: layout) + visits()
        case "more":
            guard let result = answer.payload as? LoadResult<RedditListing> else { return [] }
            guard case .loaded(let listing, _) = result else {
                loadingMore = false
                return []
            }
            // The cached pass answers first; a second (the network's) may follow.
            loadingMore = false
            let known = Set(posts.map(\.id))
            posts += Self.unique(listing.posts.filter { !known.contains($0.id) })
            after = listing.after
            applyFilter(keeping: selectedPost?.id, in: layout)
            return prefetch(in: layout) + visits()
        case let id where id.hasPrefix("comments:"):
            let post = String(id.dropFirst("comments:".count))
            prefetching.remove(post)
            // Dropped before it started: asked again when the post is in view again.
            if answer.payload is NotStarted { prefetched.remove(post) }
            return []
        case "visits":
            guard let visits = answer.payload as? [Visit?], visits.count == posts.count else { return [] }
            newComments = [:]
            for (post, visit) in zip(posts, visits) {
                guard let before = visit?.itemCount, let now = post.numComments, now > before else { continue }
                newComments[post.id] = now - before
            }
            return []
        default:
            return []
        }
    }

    /// Posts once each: a listing that names one twice shows it once.
    private static func unique(_ posts: [RedditPost]) -> [RedditPost] {
        var seen = Set<String>()
        return posts.filter { seen.insert($0.id).inserted }
    }

    /// The comments of every post on screen not asked for yet, and the next page, through the
    /// cache, in the background. What left the screen before its turn is dropped first, so that
    /// what is in view goes next (a quick PgDn must not fetch every post it passed).
    private mutating func prefetch(in layout: ScreenLayout) -> [ScreenEffect] {
        guard !fromFeed else { return [] }
        let inView = visible.dropFirst(top).prefix(listHeight(layout))
        let kept = Set(inView.map(\.id))
        var effects: [ScreenEffect] = prefetching.subtracting(kept).sorted().map { .dropQueued(id: "comments:" + $0) }
        let onScreen = inView.filter { prefetched.insert($0.id).inserted }
        prefetching.formUnion(onScreen.map(\.id))
        effects += onScreen.map { .load(id: "comments:" + $0.id, .background, reddit.comments(of: $0.id)) }
        if let after, prefetched.insert("after:" + after).inserted {
            effects.append(.load(id: "next:" + after, .background, reddit.posts(of: listing, sort: sort, after: after)))
        }
        return effects
    }

    private func visits() -> [ScreenEffect] {
        posts.isEmpty ? [] : [.run(id: "visits", reddit.lastVisits(to: posts.map(\.id)))]
    }

    private mutating func applyFilter(keeping id: String?, in layout: ScreenLayout) {
        let words = filter.lowercased()
        visible = words.isEmpty ? posts : posts.filter {
            [$0.title, $0.subreddit, $0.author].contains { $0.lowercased().contains(words) }
        }
        select(id.flatMap { id in visible.firstIndex { $0.id == id } } ?? selected, in: layout)
    }

    /// Selects row `index` (bounded to the list), scrolling it into view.
    private mutating func select(_ index: Int, in layout: ScreenLayout) {
        cursor.select(index, count: visible.count, height: listHeight(layout), trailingRows: loadingMore ? 1 : 0)
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        guard !visible.isEmpty else {
            let text = loading ? "loading \(title)…" : posts.isEmpty ? "no posts" : "no post matches /\(filter)"
            grid.draw(text, x: 0, y: 0)
            return
        }
        let height = listHeight(layout)
        let rows = Array(visible.dropFirst(top).prefix(height))
        let lines = Reader.Posts.table(rows, now: layout.now, newComments: newComments)
            .render(width: layout.columns).split(separator: "\n", omittingEmptySubsequences: false)
        grid.draw(lines.first ?? "", x: 0, y: 0, style: CellStyle(dim: true))
        for row in 0..<rows.count {
            grid.draw(lines.count > row + 1 ? lines[row + 1] : "", x: 0, y: row + 1)
            if top + row == selected { grid.setStyle(CellStyle(reverse: true), y: row + 1) }
        }
        if loadingMore, rows.count < height { grid.draw("loading more…", x: 0, y: rows.count + 1, style: CellStyle(dim: true)) }
    }
}
