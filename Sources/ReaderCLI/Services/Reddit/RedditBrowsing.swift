import Foundation
import ReaderKit

/// What Reddit's screens load, asked for exactly as `reader posts SUB` and `reader comments ID`
/// ask (the same endpoints, limit and sort), so that a `reader sync` fills the cache they read
/// and `--offline` browsing sends nothing. Each load takes the options the ``Browser`` gives it.
struct RedditBrowsing: Sendable {
    /// The client; nil in a screen's tests, where no work is run.
    var client: ReaderClient?
    /// The config file's filter (`hide_nsfw`, hidden subreddits), applied as `reader posts` does.
    var filter: PostFilter = PostFilter()
    /// The subreddits asked for by name, never hidden by subreddit.
    var requested: Set<String> = []

    /// The post `target` names, as `reader comments` takes it: a fullname (`t3_2xmo63`) or a
    /// post's URL (`https://www.reddit.com/r/x/comments/2xmo63/…`, `redd.it/2xmo63`). Nil for
    /// any other target (a subreddit, a user); a bare id is a subreddit's name as well
    /// (`python` is both), and is read as one.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a URL or fullname that names no post.
    static func post(in target: String) throws(ReaderError) -> String? {
        let lowered = target.trimmingCharacters(in: .whitespaces).lowercased()
        let namesAPost = lowered.hasPrefix("t3_") || lowered.contains("://") || lowered.contains("/comments/")
            || lowered.hasPrefix("redd.it/") || lowered.contains(".redd.it/") || lowered.hasPrefix("www.reddit.com/") || lowered.hasPrefix("reddit.com/")
        guard namesAPost else { return nil }
        return try Reddit.postID(target)
    }

    /// The posts a page, as `reader posts` asks for them.
    static let pageSize = 25

    /// Whose posts a list shows.
    enum Listing: Sendable, Equatable {
        /// A subreddit (`python`, `a+b`), or the front page.
        case subreddit(String?)
        /// A user's submissions.
        case user(String)
        /// A search, in a subreddit or in all of Reddit, by relevance (`reader posts --search`).
        case search(String, in: String?)

        /// The sort a list starts with, as `reader posts` (`new` for a user).
        var defaultSort: Reddit.Sort {
            if case .user = self { return .new }
            return .hot
        }

        /// The sorts `S` cycles through, from the first: a user's posts have no `rising`; a
        /// search stays by relevance.
        var sorts: [Reddit.Sort] {
            switch self {
            case .user: Reddit.Sort.allCases.filter { $0 != .rising }
            case .search: [defaultSort]
            case .subreddit: Reddit.Sort.allCases
            }
        }

        /// `r/python`, `u/spez`, `front page`, `"type hints" in r/python`.
        var title: String {
            switch self {
            case .subreddit(let name?): "r/" + name
            case .subreddit(nil): "front page"
            case .user(let name): "u/" + name
            case .search(let query, let name):
                "\"\(TerminalText.sanitise(query, maxLength: 40))\" in " + (name.map { "r/" + $0 } ?? "all of Reddit")
            }
        }
    }

    /// - Throws: ``ReaderError/invalidArgument(_:)`` for what the server gave that Reddit's
    ///   endpoints refuse (an id, an `after` token that is no fullname).
    static func posts(of listing: Listing, sort: Reddit.Sort, after: String?) throws(ReaderError) -> Endpoint<RedditListing> {
        switch listing {
        case .subreddit(let subreddit): try Reddit.posts(subreddit: subreddit, sort: sort, time: nil, limit: pageSize, after: after)
        case .user(let user): try Reddit.userPosts(user: user, sort: sort, time: nil, limit: pageSize, after: after)
        case .search(let query, let subreddit): try Reddit.search(query, subreddit: subreddit, sort: .relevance, limit: pageSize, after: after)
        }
    }

    /// A post's comments as plain `reader comments ID` asks for them. `post` is an id a listing
    /// gave, taken as an id only: what `reader comments` would read as a URL or a fullname is
    /// refused, so that a listing cannot point a post at another one.
    static func comments(of post: String) throws(ReaderError) -> Endpoint<RedditCommentPage> {
        guard !post.contains("/"), !post.lowercased().hasPrefix("t3_") else {
            throw .invalidArgument("\"\(TerminalText.sanitise(post, maxLength: 80))\" is not a post id")
        }
        return try Reddit.comments(post: post, sort: .best, depth: nil, limit: nil)
    }

    /// A page of posts, the config file's filter applied.
    func posts(of listing: Listing, sort: Reddit.Sort, after: String?) -> @Sendable (LoadOptions) async -> ScreenAnswer {
        let (client, filter, requested) = (client, filter, requested)
        return { options in
            await ScreenAnswer.load(through: client, options: options) { () throws(ReaderError) in
                try Self.posts(of: listing, sort: sort, after: after)
            } adjusting: { page in
                page.children = page.children.filter {
                    guard case .post(let post) = $0 else { return true }
                    return !filter.hides(post, requested: requested)
                }
            }
        }
    }

    /// A post's comment page.
    func comments(of post: String) -> @Sendable (LoadOptions) async -> ScreenAnswer {
        let client = client
        return { options in
            await ScreenAnswer.load(through: client, options: options) { () throws(ReaderError) in try Self.comments(of: post) }
        }
    }

    /// The last visit to each post's comments, in their order (nil: never opened).
    func lastVisits(to posts: [String]) -> @Sendable () async -> ScreenAnswer {
        let client = client
        return {
            guard let client else { return ScreenAnswer([Visit?](repeating: nil, count: posts.count)) }
            // A post whose id Reddit's endpoint refuses was never opened here.
            let endpoints = posts.map { try? Self.comments(of: $0) }
            var visits = await client.lastVisits(to: endpoints.compactMap { $0 }).makeIterator()
            return ScreenAnswer(endpoints.map { $0 == nil ? nil : visits.next() ?? nil })
        }
    }

    /// Records that `post` was opened now with `comments` comments; answers with the visit
    /// before (`Visit?`), against which new comments are marked.
    func recordVisit(to post: String, comments: Int?) -> @Sendable () async -> ScreenAnswer {
        let client = client
        return {
            guard let client, let endpoint = try? Self.comments(of: post) else { return ScreenAnswer(Visit?.none) }
            return ScreenAnswer(await client.recordVisit(to: endpoint, itemCount: comments))
        }
    }
}

extension RedditPlugin {
    /// `reader browse` of a post (`t3_2xmo63`, its URL), of a subreddit (`python`, `r/python`, `r/a+b`), of a user (`u/spez`), of
    /// the config file's first subreddit, else of the front page: the post list, loaded as `reader posts` loads it
    /// (the same endpoint, limit and sort), so that a `reader sync` fills its cache.
    var browse: BrowseCapability? {
        BrowseCapability(
            takesUnnamedTargets: true,
            targets: "a subreddit (python, r/python, r/a+b), a user (u/NAME), a post (t3_ID or its URL)",
            goTo: "subreddit, r/a+b",
            examples: ["python", "r/swift+rust", "t3_2xmo63", "--offline python"],
            withoutTarget: "the config file's first subreddit, else the front page"
        ) { (target, settings) throws(ReaderError) -> BrowseProgram in
            let filter = Self.postFilter(settings)
            // A post by its fullname or URL, as `reader comments` takes it: opened directly.
            if let target, let post = try RedditBrowsing.post(in: target) {
                return BrowseProgram { context in PostScreen(postID: post, reddit: RedditBrowsing(client: context.client, filter: filter)) }
            }
            if let target, let user = ["u/", "/u/", "user/", "/user/"].first(where: { target.lowercased().hasPrefix($0) }) {
                let name = try Reddit.validatedUser(String(target.dropFirst(user.count)))
                return BrowseProgram { context in
                    PostListScreen(.user(name), reddit: RedditBrowsing(client: context.client, filter: filter))
                }
            }
            let subreddit = try (target ?? settings.list("reddit.subreddits").first).map { (name) throws(ReaderError) in
                try Reddit.validatedSubreddit(name)
            }
            // Posts of a subreddit asked for by name are never hidden by subreddit, as in `reader posts`.
            let requested = Set(subreddit?.split(separator: "+").map(String.init) ?? [])
            return BrowseProgram { context in
                PostListScreen(.subreddit(subreddit), reddit: RedditBrowsing(client: context.client, filter: filter, requested: requested))
            }
        }
    }
}
