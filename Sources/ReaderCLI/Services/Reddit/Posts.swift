import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

extension Reddit.Sort: ExpressibleByArgument {}

/// `--sort` of `reader posts`: a listing's sorts, and a search's.
package enum PostSort: String, CaseIterable, ExpressibleByArgument, Sendable {
    case hot, new, top, rising, controversial, relevance, comments

    /// The listing's sort; nil for a sort only a search has.
    var listing: Reddit.Sort? { Reddit.Sort(rawValue: rawValue) }
    /// The search's sort; nil for a sort only a listing has.
    var search: Reddit.SearchSort? { Reddit.SearchSort(rawValue: rawValue) }
}
extension Reddit.TimeRange: ExpressibleByArgument {}

extension Reader {
    package struct Posts: AsyncParsableCommand, HelpExamples, HintingOnFailure {
        // As visible as the type, for ArgumentParser (the implicit one is internal).
        package init() {}

        package static let configuration = CommandConfiguration(
            commandName: "posts",
            abstract: "List the posts of a subreddit, of the front page, or of a user, or search them.",
            discussion: """
                Reads https://www.reddit.com (or $READER_REDDIT_URL)/r/SUBREDDIT/SORT.json, or, when Reddit \
                turns its JSON API away (reddit.source auto or feed), its Atom feed /r/SUBREDDIT/SORT/.rss, \
                which gives no scores and no comment counts.
                """)

        static let examples = [
            "reader posts swift",
            "reader posts swift+rust --sort top --time week --limit 50",
            "reader posts --user spez --pages 3",
            "reader posts python --after t3_2xmo63",
            "reader posts python --search \"type hints\" --sort top --time year",
        ]

        @Argument(help: "A subreddit such as swift (or r/swift, or swift+rust). When left out: the config file's subreddits, else the front page.")
        var subreddit: String?

        @Option(help: ArgumentHelp("A user whose submissions to list, instead of a subreddit (spez or u/spez).", valueName: "name"))
        var user: String?

        @Option(help: ArgumentHelp("Search for posts that match this text: in the subreddit, or in all of Reddit without one.", valueName: "text"))
        var search: String?

        @Option(help: "How posts are sorted: hot, new, top, rising or controversial (default: hot; new for --user); for --search relevance (the default), hot, top, new or comments.")
        var sort: PostSort?

        @Option(help: "The period, with --sort top or controversial.")
        var time: Reddit.TimeRange?

        @Option(help: "How many posts a page, from 1 to 100.")
        var limit: Int = 25

        @Option(help: ArgumentHelp("Start after this post (a fullname such as t3_2xmo63, as the footer shows).", valueName: "fullname"))
        var after: String?

        @Option(help: ArgumentHelp("Read this many pages, following each page to the next; stops early at the end.", valueName: "n"))
        var pages: Int = 1

        @OptionGroup var options: GlobalOptions

        package func validate() throws {
            guard subreddit == nil || user == nil else { throw ValidationError("give a subreddit or --user, not both") }
            guard search == nil || user == nil else { throw ValidationError("--search reads a subreddit or all of Reddit, not a user's posts") }
            if let sort, search != nil, sort.search == nil {
                throw ValidationError("--sort \(sort.rawValue) does not go with --search: use relevance, hot, top, new or comments")
            }
            if let sort, search == nil, sort.listing == nil {
                throw ValidationError("--sort \(sort.rawValue) goes with --search only: use hot, new, top, rising or controversial")
            }
            guard (1...20).contains(pages) else { throw ValidationError("--pages must be from 1 to 20, got \(pages)") }
            do { _ = try endpoint(after: after) } catch { throw ValidationError(CLIWording.message(of: error)) }
        }

        /// - Parameter defaultSubreddits: read when no subreddit and no user is given (the config file's).
        private func endpoint(after: String?, defaultSubreddits: [String] = []) throws(ReaderError) -> Endpoint<RedditListing> {
            // A search without a subreddit searches all of Reddit, not the config file's subreddits.
            if let search {
                return try Reddit.search(search, subreddit: subreddit, sort: sort?.search ?? .relevance, time: time, limit: limit, after: after)
            }
            let sort = sort?.listing
            if let user { return try Reddit.userPosts(user: user, sort: sort ?? .new, time: time, limit: limit, after: after) }
            let fallback = defaultSubreddits.isEmpty ? nil : defaultSubreddits.joined(separator: "+")
            return try Reddit.posts(subreddit: subreddit ?? fallback, sort: sort ?? .hot, time: time, limit: limit, after: after)
        }

        package func run() async throws {
            let now = Date()
            let settings = try options.settings()
            let defaults = settings.of(RedditService.name).list("reddit.subreddits")
            // Posts of a subreddit asked for by name (here or as the config's default) are never hidden by subreddit.
            let requested = Set((subreddit?.split(separator: "+").map(String.init) ?? (user == nil && search == nil ? defaults : [])))
            let filter = RedditPlugin.postFilter(settings.of(RedditService.name))
            let progress = ProgressLine("reading \(pages) pages", enabled: pages > 1 && isatty(STDERR_FILENO) == 1)
            let loaded = try await CommandRunner.withClient(options) { (client) throws(LoadFailure) in
                defer { progress.finish() }
                return try await client.loadPages(pages, options: options.loadOptions, progress: progress.handler,
                                                  of: { (after) throws(ReaderError) in try endpoint(after: after, defaultSubreddits: defaults) },
                                                  startingAfter: after)
            }
            let style = options.style
            // The raw pages are written as Reddit sent them, less the posts loadPages left out as
            // shown on an earlier page or earlier on the same one.
            let returned = RawPostsReturned(loaded)
            try CommandRunner.write(loaded, options: options, jsonItems: { raw in
                let children = raw["data"]?["children"]?.arrayValue ?? []
                let shown = children.filter(returned.takes).compactMap { $0["data"] }.filter { data in
                    guard case .string(let subreddit)? = data["subreddit"], case .string(let title)? = data["title"] else { return true }
                    return !filter.hides(subreddit: subreddit, title: title, requested: requested)
                }
                // Which way the page came: Reddit's JSON API, or its feed (no scores, no comment counts).
                // A key of its own: `source` says network, cache or revalidated, as for every list.
                return (shown, ["after": raw["data"]?["after"] ?? .null, "route": raw["data"]?["source"] ?? .string("api")])
            }, render: { listings in
                let all = listings.flatMap { (listing: RedditListing) in listing.posts }
                let posts = all.filter { !filter.hides($0, requested: requested) }
                let table = Self.table(posts, now: now)
                let hidden = all.count - posts.count
                let fromFeed = listings.contains(where: \.isFromFeed)
                    ? "read from Reddit's Atom feed, which gives no scores and no comment counts" : nil
                let footer = [fromFeed, hidden > 0 ? "\(hidden) hidden by the config file's filters" : nil, PostsFooter.more(after: listings.last?.after)]
                    .compactMap { $0 }.joined(separator: "\n")
                return (posts.isEmpty ? "no posts" : table.render(width: Terminal.outputWidth(), style: style) { column, text in
                    switch table.columns[column].title {
                    case "SCORE": style.yellow(text)
                    case "SUBREDDIT": style.cyan(text)
                    case "AUTHOR", "AGE": style.dim(text)
                    default: text
                    }
                }, footer.isEmpty ? nil : footer)
            })
        }

        /// Reddit's hint for a subreddit it does not know, made true when the config file names
        /// `subreddits`: plain `reader posts` read those, not the front page.
        func hints(for failure: LoadFailure) -> [Hint] {
            let configured = user == nil ? (try? options.settings())?.of(RedditService.name).list("reddit.subreddits") ?? [] : []
            guard !configured.isEmpty else { return failure.hints }
            return failure.hints.map { hint in
                guard case .service(let service, "not_found", _, _) = hint, service == RedditService.name else { return hint }
                return .plain(RedditPlugin.subredditNotFound(configured: configured, named: subreddit != nil))
            }
        }

        /// - Parameter newComments: comments since the last visit, by post id (`browse` shows
        ///   `12 +7 new`).
        /// Posts that carry no score and no comment count (Reddit's feeds) have those two columns
        /// left out, never filled with numbers made up; one post without them among others shows `–`.
        package static func table(_ posts: [RedditPost], now: Date, newComments: [String: Int] = [:]) -> Table {
            let counted = posts.isEmpty || posts.contains { $0.score != nil || $0.numComments != nil }
            let rows = posts.map { post in
                (counted ? [post.score.map(Compact.number) ?? "–",
                            (post.numComments.map(Compact.number) ?? "–") + (newComments[post.id].map { " +\(Compact.number($0)) new" } ?? "")] : [])
                + [RelativeAge.describe(from: post.createdUTC, to: now),
                   "r/" + post.subreddit, "u/" + post.author, post.id,
                   TerminalText.decodingHTMLEntities(post.title)]
            }
            // Give-way order on a narrow terminal (README, "What it looks like"): the title
            // shrinks to its minimum, then SUBREDDIT and AUTHOR to 10 cells; then AUTHOR,
            // COMMENTS, AGE and SUBREDDIT are left out in that order (on a front page the
            // subreddit says more than the age). SCORE, ID (what `reader comments` takes) and
            // TITLE always stay.
            let counts: [Table.Column] = counted
                ? [.init(title: "SCORE", alignRight: true), .init(title: "COMMENTS", alignRight: true, dropOrder: 2)] : []
            return Table(columns: counts + [
                .init(title: "AGE", alignRight: true, dropOrder: 3),
                .init(title: "SUBREDDIT", maximumWidth: 16, minimumWidth: 10, dropOrder: 4),
                .init(title: "AUTHOR", maximumWidth: 16, minimumWidth: 10, dropOrder: 1),
                // Reddit's ids are 6 or 7 characters; a longer one is not an id to keep whole.
                .init(title: "ID", maximumWidth: 10), .init(title: "TITLE", flexible: true),
            ], rows: rows)
        }
    }
}

/// Numbers as people read them at a glance.
enum Compact {
    /// 9999 → 9999, 12400 → 12.4k, 123456 → 123k, 1234567 → 1.2M, 123456789 → 123M: at most
    /// five characters and a sign, so that a SCORE column stays narrow. Each bound is where the
    /// rounding would reach the next form (99 950 is `100k`, never `100.0k`).
    static func number(_ value: Int) -> String {
        // `magnitude`, not `abs`: abs(Int.min) traps, and a library user's post may hold anything.
        let sign = value < 0 ? "-" : ""
        let magnitude = Double(value.magnitude)
        switch value.magnitude {
        case ..<10_000: return String(value)
        case ..<99_950: return sign + String(format: "%.1fk", magnitude / 1000)
        case ..<999_500: return sign + String(format: "%.0fk", magnitude / 1000)
        case ..<9_950_000: return sign + String(format: "%.1fM", magnitude / 1_000_000)
        case ..<999_500_000: return sign + String(format: "%.0fM", magnitude / 1_000_000)
        case ..<9_950_000_000: return sign + String(format: "%.1fB", magnitude / 1_000_000_000)
        default: return sign + String(format: "%.0fB", magnitude / 1_000_000_000)
        }
    }
}

/// The posts of loaded pages as ``ReaderClient/loadPages(_:options:progress:of:startingAfter:)``
/// returned them, each once, for the raw pages' JSON to keep the same posts: a raw post is taken
/// the first time its fullname comes, if the loaded pages hold it.
private final class RawPostsReturned {
    private var untaken: Set<String>

    init(_ pages: [Loaded<RedditListing>]) {
        untaken = Set(pages.flatMap { $0.value.posts.map(\.name) })
    }

    /// Whether `child`, a thing of a raw page, is written: any but a post, and a post the first time.
    func takes(_ child: JSONValue) -> Bool {
        guard case .string("t3")? = child["kind"], case .string(let name)? = child["data"]?["name"] else { return true }
        return untaken.remove(name) != nil
    }
}
