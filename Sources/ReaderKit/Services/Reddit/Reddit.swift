import Foundation

/// Endpoints of Reddit's public JSON.
///
/// Every builder validates its arguments before a request exists, and asks for `raw_json=1` so
/// that text arrives as written rather than HTML-escaped.
public enum Reddit {
    /// How a listing is sorted.
    public enum Sort: String, Sendable, CaseIterable, Codable {
        case hot, new, top, rising, controversial

        /// Whether the sort reads a time range (`t=`): top and controversial.
        public var takesTimeRange: Bool { self == .top || self == .controversial }
    }

    /// The period a top or controversial listing covers (`t=`).
    public enum TimeRange: String, Sendable, CaseIterable, Codable {
        case hour, day, week, month, year, all
    }

    /// How a post's comments are ordered.
    public enum CommentSort: String, Sendable, CaseIterable, Codable {
        case best, top, new, controversial, old

        /// The value Reddit reads: best is `confidence` on the wire.
        public var wireValue: String { self == .best ? "confidence" : rawValue }
    }

    /// Which way Reddit is read (``RedditService/source``).
    public enum Source: String, Sendable, CaseIterable, Codable {
        /// Its JSON API: scores, comment counts and comment trees.
        case api
        /// Its Atom feeds (``RedditFeed``): no score, no comment count, comments flat; what
        /// anonymous readers can still read.
        case feed
        /// The JSON API with an app identity; without one, the JSON API until Reddit answers it
        /// with its block page, then the feeds at once, and for a day after.
        case auto
    }

    /// How a search's results are sorted.
    public enum SearchSort: String, Sendable, CaseIterable, Codable {
        case relevance, hot, top, new, comments
    }

    /// The most posts or comments Reddit returns in one request.
    public static let maximumLimit = 100

    /// The deepest comment tree Reddit sends.
    public static let maximumDepth = 10

    /// The posts of a subreddit, or of the front page when `subreddit` is nil:
    /// `r/{subreddit}/{sort}.json?limit=N&raw_json=1`.
    /// - Parameters:
    ///   - subreddit: a name (`swift`), `r/swift`, or several joined by `+` (`swift+rust`).
    ///   - sort: hot, new, top, rising or controversial.
    ///   - time: the period, for top and controversial only.
    ///   - limit: 1 to 100.
    ///   - after: the fullname (`t3_abc`) of the post the page starts after.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a name Reddit cannot have, a limit out of
    ///   range, a period with a sort that has none, or a cursor that is not a fullname.
    public static func posts(subreddit: String?, sort: Sort = .hot, time: TimeRange? = nil, limit: Int = 25,
                             after: String? = nil) throws(ReaderError) -> Endpoint<RedditListing> {
        let query = try listingQuery(sort: sort, time: time, limit: limit, after: after)
        guard let subreddit else {
            return Endpoint(service: RedditService.name, path: "\(sort.rawValue).json", query: query)
        }
        let name = try validatedSubreddit(subreddit)
        return Endpoint(service: RedditService.name, path: "r/\(name)/\(sort.rawValue).json", query: query)
    }

    /// A user's submissions: `user/{name}/submitted.json?sort=…`.
    /// - Parameters:
    ///   - user: a name (`spez`) or `u/spez`.
    ///   - sort: hot, new, top or controversial (Reddit has no rising for users).
    ///   - time: the period, for top and controversial only.
    ///   - limit: 1 to 100.
    ///   - after: the fullname (`t3_abc`) of the post the page starts after.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` as ``posts(subreddit:sort:time:limit:after:)``.
    public static func userPosts(user: String, sort: Sort = .new, time: TimeRange? = nil, limit: Int = 25,
                                 after: String? = nil) throws(ReaderError) -> Endpoint<RedditListing> {
        guard sort != .rising else { throw .invalidArgument("\(name: "sort") rising is not available for a user's posts") }
        let name = try validatedUser(user)
        var query = try listingQuery(sort: sort, time: time, limit: limit, after: after)
        query.insert(URLQueryItem(name: "sort", value: sort.rawValue), at: 0)
        return Endpoint(service: RedditService.name, path: "user/\(name)/submitted.json", query: query)
    }

    /// Posts that match `query`: in one subreddit (or several joined by `+`), or all of Reddit
    /// when `subreddit` is nil: `r/{subreddit}/search.json?q=…&restrict_sr=1&sort=…&t=…`.
    /// - Parameters:
    ///   - query: what to search for, 1 to 512 characters.
    ///   - subreddit: where to search; nil for all of Reddit.
    ///   - sort: relevance, hot, top, new or comments.
    ///   - time: the period searched (any sort).
    ///   - limit: 1 to 100.
    ///   - after: the fullname (`t3_abc`) of the post the page starts after.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for an empty or overlong query, or as
    ///   ``posts(subreddit:sort:time:limit:after:)``.
    public static func search(_ query: String, subreddit: String? = nil, sort: SearchSort = .relevance, time: TimeRange? = nil,
                              limit: Int = 25, after: String? = nil) throws(ReaderError) -> Endpoint<RedditListing> {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...512).contains(trimmed.count) else {
            throw .invalidArgument("\(name: "search") takes 1 to 512 characters of text, got \(trimmed.count)")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidArgument("\(name: "search") takes text without control characters (such as a tab or an escape)")
        }
        // The period goes with any sort in a search: Reddit reads `t` for each.
        var items = try listingQuery(sort: .top, time: time, limit: limit, after: after)
        items.insert(contentsOf: [URLQueryItem(name: "q", value: trimmed), URLQueryItem(name: "sort", value: sort.rawValue)], at: 0)
        guard let subreddit else {
            return Endpoint(service: RedditService.name, path: "search.json", query: items)
        }
        let name = try validatedSubreddit(subreddit)
        items.insert(URLQueryItem(name: "restrict_sr", value: "1"), at: 1)
        return Endpoint(service: RedditService.name, path: "r/\(name)/search.json", query: items)
    }

    /// A post and its comment tree: `comments/{id}.json?sort=…&depth=…&limit=…`.
    /// - Parameters:
    ///   - post: a post id (`2xmo63`), a fullname (`t3_2xmo63`), or a post's URL
    ///     (`https://www.reddit.com/r/Python/comments/2xmo63/…`, `https://redd.it/2xmo63`).
    ///   - sort: best, top, new, controversial or old.
    ///   - depth: how many levels of replies, 1 to 10; nil for Reddit's default.
    ///   - limit: how many comments at most, 1 to 500; nil for Reddit's default.
    public static func comments(post: String, sort: CommentSort = .best, depth: Int? = nil,
                                limit: Int? = nil) throws(ReaderError) -> Endpoint<RedditCommentPage> {
        let id = try postID(post)
        var query = [URLQueryItem(name: "sort", value: sort.wireValue)]
        if let depth {
            guard (1...maximumDepth).contains(depth) else {
                throw .invalidArgument("\(name: "depth") must be from 1 to \(maximumDepth), got \(depth)")
            }
            query.append(URLQueryItem(name: "depth", value: String(depth)))
        }
        if let limit {
            guard (1...500).contains(limit) else { throw .invalidArgument("\(name: "limit") must be from 1 to 500, got \(limit)") }
            query.append(URLQueryItem(name: "limit", value: String(limit)))
        }
        query.append(URLQueryItem(name: "raw_json", value: "1"))
        return Endpoint(service: RedditService.name, path: "comments/\(id).json", query: query)
    }

    /// The query of a listing, with every argument checked.
    static func listingQuery(sort: Sort, time: TimeRange?, limit: Int, after: String?) throws(ReaderError) -> [URLQueryItem] {
        guard (1...maximumLimit).contains(limit) else {
            throw .invalidArgument("\(name: "limit") must be from 1 to \(maximumLimit), got \(limit)")
        }
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let time {
            guard sort.takesTimeRange else {
                throw .invalidArgument("\(name: "time") goes with \(name: "sort") top or controversial, not \(sort.rawValue)")
            }
            query.append(URLQueryItem(name: "t", value: time.rawValue))
        }
        if let after {
            guard isFullname(after) else {
                throw .invalidArgument("\(name: "after") takes a post's fullname such as t3_2xmo63, got \"\(TerminalText.sanitise(after, maxLength: 40))\"")
            }
            query.append(URLQueryItem(name: "after", value: after))
        }
        query.append(URLQueryItem(name: "raw_json", value: "1"))
        return query
    }

    /// Returns the subreddit name without an `r/` or `/r/` prefix, or throws when it is not one
    /// Reddit allows: 1 to 21 letters, digits or underscores, or several such joined by `+`.
    public static func validatedSubreddit(_ text: String) throws(ReaderError) -> String {
        let name = dropPrefix(of: text, ["/r/", "r/"])
        let parts = name.split(separator: "+", omittingEmptySubsequences: false)
        let valid = !parts.isEmpty && parts.count <= 50 && parts.allSatisfy { part in
            (1...21).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
        guard valid else {
            throw .invalidArgument(
                "\"\(TerminalText.sanitise(text, maxLength: 60))\" is not a subreddit name: use 1 to 21 letters, digits or underscores (several joined by +)")
        }
        return String(name)
    }

    /// Returns the user name without a `u/`, `/u/` or `/user/` prefix, or throws when it is not one
    /// Reddit allows: 3 to 20 letters, digits, `_` or `-`.
    public static func validatedUser(_ text: String) throws(ReaderError) -> String {
        let name = dropPrefix(of: text, ["/user/", "user/", "/u/", "u/"])
        guard (3...20).contains(name.count),
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
            throw .invalidArgument(
                "\"\(TerminalText.sanitise(text, maxLength: 60))\" is not a Reddit user name: use 3 to 20 letters, digits, _ or -")
        }
        return String(name)
    }

    /// The base-36 id of a post given as an id, a `t3_` fullname, a URL of the post on one of
    /// Reddit's hosts (`reddit.com` and its subdomains, `redd.it`), or such a URL's path.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for anything else, a URL of another host
    ///   among them (named), before any request.
    public static func postID(_ text: String) throws(ReaderError) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var candidate = Substring(trimmed)
        if trimmed.contains("/") {
            let withoutQuery = trimmed.split(separator: "?", maxSplits: 1).first.map(String.init) ?? trimmed
            let parts = withoutQuery.split(separator: "/")
            // `redd.it/2xmo63`, as people paste it, has no scheme, and so no host to URLComponents.
            let withScheme = withoutQuery.contains("://") ? withoutQuery : "https://" + withoutQuery
            // A path (`/r/x/comments/2xmo63`, `r/x/comments/…`, `comments/…`) names no host.
            let isPath = withoutQuery.hasPrefix("/") || ["r", "comments", "u", "user"].contains(parts.first.map { $0.lowercased() } ?? "")
            let host = isPath ? nil : URLComponents(string: withScheme)?.host?.lowercased()
            if let host, !isRedditHost(host) {
                let (shown, shownHost) = (TerminalText.sanitise(text, maxLength: 80), TerminalText.sanitise(host, maxLength: 80))
                throw .invalidArgument(
                    "\"\(shown)\" is not a Reddit post: \(shownHost) is not Reddit's; give the post's id (2xmo63), t3_2xmo63, or its URL on reddit.com or redd.it")
            }
            if let index = parts.firstIndex(of: "comments"), index + 1 < parts.count {
                candidate = parts[index + 1]
            } else if let host, host == "redd.it" || host.hasSuffix(".redd.it"),
                      let last = parts.last {
                candidate = last
            } else {
                candidate = ""
            }
        } else if candidate.lowercased().hasPrefix("t3_") {
            candidate = candidate.dropFirst(3)
        }
        guard (1...13).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }) else {
            throw .invalidArgument(
                "\"\(TerminalText.sanitise(text, maxLength: 80))\" is not a post: give its id (2xmo63), t3_2xmo63, or its URL")
        }
        return String(candidate)
    }

    /// Whether `host` (lowercased) is one of Reddit's: `reddit.com` (`www.`, `old.`, `new.`,
    /// `np.` and every other subdomain of it) or `redd.it`, its short links.
    static func isRedditHost(_ host: String) -> Bool {
        ["reddit.com", "redd.it"].contains { host == $0 || host.hasSuffix("." + $0) }
    }

    /// Whether `text` is a fullname such as `t3_2xmo63`: a kind, an underscore, a base-36 id.
    public static func isFullname(_ text: String) -> Bool {
        let parts = text.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[0].first == "t", parts[0].last?.isNumber == true,
              (1...13).contains(parts[1].count) else { return false }
        return parts[1].allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
    }

    private static func dropPrefix(of text: String, _ prefixes: [String]) -> Substring {
        var name = Substring(text)
        for prefix in prefixes where name.lowercased().hasPrefix(prefix) { name = name.dropFirst(prefix.count); break }
        return name
    }

    /// The front page with one post: what `reader status` asks to see that Reddit answers.
    public static let probe = Endpoint<JSONValue>(service: RedditService.name, path: "hot.json", query: [
        URLQueryItem(name: "limit", value: "1"), URLQueryItem(name: "raw_json", value: "1")])

    /// The User-Agent Reddit asks API clients for: platform, app id, version, and a description.
    public static let userAgent = "linux:reader:\(ReaderKitVersion.string) (ReaderKit command-line reader)"
}
