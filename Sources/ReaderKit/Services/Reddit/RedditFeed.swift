import Foundation

/// Reddit's Atom feeds (`/r/SUB/.rss`, `/comments/ID/.rss`, `/user/NAME/submitted/.rss`,
/// `/r/SUB/search.rss`…) as a second way into the same listings: what anonymous readers can
/// still read when Reddit's JSON API turns them away.
///
/// A feed is read into the JSON of the listing its JSON path gives (``RedditListing``,
/// ``RedditCommentPage``), with nothing invented: a feed has no score and no comment count (they
/// are `null`), and no nesting of comments (they come flat, in the feed's order); the listing
/// says where it came from (``RedditListing/isFromFeed``). Post and comment text, HTML in the
/// feed, is turned back into markdown (``HTMLMarkdown``), which is what the JSON path gives.
public enum RedditFeed {
    /// What a listing read from a feed says in its `source`.
    public static let sourceName = "feed"

    /// The media types Reddit's feeds come in (`application/atom+xml` is what it sends).
    static let mediaTypes: Set<String> = ["application/atom+xml", "application/rss+xml", "application/xml", "text/xml"]

    /// A listing feed read as a ``RedditListing``'s JSON.
    public static let listing = ResponseTranslation(name: "atom", description: AtomFeed.format, mediaTypes: mediaTypes) { (body, url) throws(ReaderError) in
        try listingJSON(try feed(body, url: url), url: url).serializedData
    }

    /// A post's comments feed read as a ``RedditCommentPage``'s JSON.
    public static let comments = ResponseTranslation(name: "atom", description: AtomFeed.format, mediaTypes: mediaTypes) { (body, url) throws(ReaderError) in
        try commentPageJSON(try feed(body, url: url), url: url).serializedData
    }

    /// The feed request for a JSON request (its path after ``RedditService/adapt(_:)``): `P.json`
    /// is `P/.rss` (a subreddit's or the front page's hot listing is `/.rss`, a search
    /// `search.rss`), with the query Reddit's feeds honour (`limit`, `after`, `t`, `sort`, `q`,
    /// `restrict_sr`) and no `Accept` header. Nil for a path that has no feed.
    public static func request(for json: ServiceRequest, key: String? = nil, user: String? = nil) -> ServiceRequest? {
        guard json.path.hasSuffix(".json") else { return nil }
        var path = String(json.path.dropLast(5))
        while path.hasPrefix("/") { path.removeFirst() }
        let parts = path.split(separator: "/")
        let translation: ResponseTranslation
        if parts.last == "search" {
            path += ".rss"
            translation = listing
        } else if parts.count == 2, parts[0] == "comments" {
            path += "/.rss"
            translation = comments
        } else if parts.last == "hot" {
            path = parts.dropLast().joined(separator: "/") + "/.rss"
            translation = listing
        } else {
            path += "/.rss"
            translation = listing
        }
        while path.hasPrefix("/") { path.removeFirst() }
        let honoured: Set<String> = ["limit", "after", "t", "sort", "q", "restrict_sr"]
        var headers = json.headers
        // Reddit's edge is reported to refuse a keyless feed request from a program that sends Accept.
        headers.remove("Accept")
        var secret: [URLQueryItem] = []
        if let key, let user { secret = [URLQueryItem(name: "feed", value: key), URLQueryItem(name: "user", value: user)] }
        return ServiceRequest(path: path, query: json.query.filter { honoured.contains($0.name) }, headers: headers,
                              secretQuery: secret, cacheKeyQuery: json.cacheKeyQuery, translation: translation)
    }

    // MARK: - Reading

    private static func feed(_ body: Data, url: String) throws(ReaderError) -> AtomFeed {
        let feed = try AtomFeed(parsing: body, url: url)
        // Reddit answers a post or subreddit it does not have with an empty feed so titled.
        if feed.entries.isEmpty, feed.title.lowercased().hasSuffix("page not found") {
            throw .status(StatusFailure(status: 404, url: url, apiError: APIErrorBody(
                reason: "not_found", message: "the feed says \"\(TerminalText.sanitise(feed.title, maxLength: 80))\"", statusInBody: 404)))
        }
        return feed
    }

    /// A listing's JSON: `{"kind":"Listing","data":{"after":…,"source":"feed","children":[…]}}`.
    /// The next page starts after the last entry's id, as the feed's `after` reads it.
    static func listingJSON(_ feed: AtomFeed, url: String) throws(ReaderError) -> JSONValue {
        // A page of a listing holds what a JSON page may: a sync follows each post's comments.
        guard feed.entries.count <= Reddit.maximumLimit else {
            throw .decoding(DecodingFailure(.invalidValue, codingPath: "feed", detail:
                "\(feed.entries.count) entries, more than the \(Reddit.maximumLimit) a page of Reddit's holds", url: url, format: AtomFeed.format))
        }
        var children: [JSONValue] = []
        for (index, entry) in feed.entries.enumerated() {
            if entry.id.hasPrefix("t1_") {
                children.append(thing("t1", try comment(entry, index: index, url: url)))
            } else {
                children.append(thing("t3", try post(entry, index: index, url: url)))
            }
        }
        let after = feed.entries.last.map(\.id).flatMap { Reddit.isFullname($0) ? JSONValue.string($0) : nil } ?? .null
        return listing(children, after: after)
    }

    /// A post page's JSON: two listings, the post and its comments (flat).
    static func commentPageJSON(_ feed: AtomFeed, url: String) throws(ReaderError) -> JSONValue {
        guard let first = feed.entries.first, first.id.hasPrefix("t3_") else {
            throw .decoding(DecodingFailure(.keyMissing, codingPath: "feed.entry[0]", detail: "a comments feed whose first entry is not the post", url: url, format: AtomFeed.format))
        }
        let post = try post(first, index: 0, url: url)
        var comments: [JSONValue] = []
        for (index, entry) in feed.entries.enumerated().dropFirst() where entry.id.hasPrefix("t1_") {
            comments.append(thing("t1", try comment(entry, index: index, url: url)))
        }
        return .array([listing([thing("t3", post)], after: .null), listing(comments, after: .null)])
    }

    private static func listing(_ children: [JSONValue], after: JSONValue) -> JSONValue {
        .object(["kind": .string("Listing"), "data": .object([
            "after": after, "before": .null, "source": .string(sourceName), "children": .array(children),
        ])])
    }

    private static func thing(_ kind: String, _ data: JSONValue) -> JSONValue {
        .object(["kind": .string(kind), "data": data])
    }

    private static func post(_ entry: AtomFeed.Entry, index: Int, url: String) throws(ReaderError) -> JSONValue {
        let id = try shortID(entry, kind: "t3_", index: index, url: url)
        let created = try date(entry, index: index, url: url)
        let permalinkURL = entry.link.flatMap(URL.init(string:))
        let permalink = permalinkURL.map { $0.path.isEmpty ? "/" : $0.path } ?? "/comments/\(id)/"
        let html = entry.contentType == "text" ? "" : entry.content
        let comments = anchor(labelled: "[comments]", in: html) ?? entry.link
        let link = anchor(labelled: "[link]", in: html)
        let isSelf = link == nil || link == comments
        let selftext = selfText(in: html).map(markdown(from:)) ?? ""
        let target = isSelf ? (entry.link ?? "") : (link ?? "")
        let domain = isSelf ? "self." + subreddit(of: entry) : (URL(string: target)?.host ?? "")
        return .object([
            "id": .string(id), "name": .string(entry.id), "title": .string(entry.title),
            "author": .string(author(of: entry)), "subreddit": .string(subreddit(of: entry)),
            "score": .null, "num_comments": .null, "created_utc": .integer(created),
            "permalink": .string(permalink), "url": .string(target), "domain": .string(domain),
            "selftext": .string(selftext), "is_self": .bool(isSelf),
        ])
    }

    /// The most characters of a post's or comment's HTML turned into markdown: Reddit's own limit
    /// is 40,000 characters of markdown, a few times less. A hostile feed's megabyte of `&` a
    /// comment took seconds each (the attack on the XML reader).
    static let maximumHTMLLength = 200_000

    /// `html` as markdown, its first ``maximumHTMLLength`` characters.
    private static func markdown(from html: String) -> String {
        HTMLMarkdown.markdown(from: String(html.prefix(maximumHTMLLength)))
    }

    private static func comment(_ entry: AtomFeed.Entry, index: Int, url: String) throws(ReaderError) -> JSONValue {
        let id = try shortID(entry, kind: "t1_", index: index, url: url)
        let created = try date(entry, index: index, url: url)
        let body = entry.contentType == "text" ? entry.content : markdown(from: selfText(in: entry.content) ?? entry.content)
        return .object([
            "id": .string(id), "name": .string(entry.id), "author": .string(author(of: entry)),
            "body": .string(body),
            "score": .null, "created_utc": .integer(created), "replies": .string(""),
            "subreddit": .string(subreddit(of: entry)),
        ])
    }

    private static func shortID(_ entry: AtomFeed.Entry, kind: String, index: Int, url: String) throws(ReaderError) -> String {
        guard entry.id.hasPrefix(kind), Reddit.isFullname(entry.id) else {
            throw .decoding(DecodingFailure(.invalidValue, codingPath: "feed.entry[\(index)].id", detail:
                "\"\(TerminalText.sanitise(entry.id, maxLength: 40))\" is not a fullname of kind \(kind.dropLast())", url: url, format: AtomFeed.format))
        }
        return String(entry.id.dropFirst(kind.count))
    }

    /// When it was made: `published`, else `updated` (comments and older feeds have only that),
    /// in whole seconds since 1970 within ``OutsideNumbers/epochSeconds``.
    private static func date(_ entry: AtomFeed.Entry, index: Int, url: String) throws(ReaderError) -> Int64 {
        guard let date = entry.published ?? entry.updated, OutsideNumbers.isPlausible(date) else {
            throw .decoding(DecodingFailure(.keyMissing, codingPath: "feed.entry[\(index)].updated", detail:
                "an entry with no date that reads as RFC 3339", url: url, format: AtomFeed.format))
        }
        return Int64(date.timeIntervalSince1970.rounded(.down))
    }

    /// The entry's author without `/u/`; `[deleted]`, as Reddit's JSON says, when there is none.
    private static func author(of entry: AtomFeed.Entry) -> String {
        guard let name = entry.author, !name.isEmpty else { return "[deleted]" }
        for prefix in ["/u/", "u/", "/user/"] where name.hasPrefix(prefix) { return String(name.dropFirst(prefix.count)) }
        return name
    }

    /// The entry's subreddit: its first category (the feed's own category names each entry's).
    private static func subreddit(of entry: AtomFeed.Entry) -> String {
        entry.categories.first ?? ""
    }

    /// The HTML of the post's or comment's own text, between `<!-- SC_OFF -->` and
    /// `<!-- SC_ON -->`; nil when the entry has none (a link post).
    static func selfText(in html: String) -> String? {
        guard let start = html.range(of: "<!-- SC_OFF -->") else { return nil }
        let end = html.range(of: "<!-- SC_ON -->", range: start.upperBound..<html.endIndex)?.lowerBound ?? html.endIndex
        return String(html[start.upperBound..<end])
    }

    /// The `href` of the anchor whose text is `label` (`[link]`, `[comments]`), entities decoded.
    static func anchor(labelled label: String, in html: String) -> String? {
        guard let text = html.range(of: ">\(label)</a>", options: .backwards) else { return nil }
        let before = html[..<text.lowerBound]
        guard let open = before.range(of: "<a ", options: .backwards),
              let href = before.range(of: "href=\"", range: open.upperBound..<before.endIndex),
              let close = before.range(of: "\"", range: href.upperBound..<before.endIndex) else { return nil }
        let value = TerminalText.decodingHTMLEntities(String(before[href.upperBound..<close.lowerBound]))
        return value.isEmpty ? nil : value
    }
}

extension JSONValue {
    /// The value serialised, as `Data`.
    var serializedData: Data { Data(serialized()) }
}
