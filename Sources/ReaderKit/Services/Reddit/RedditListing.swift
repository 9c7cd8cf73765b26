import Foundation

/// A Reddit `Listing`: a page of things with the cursors to the pages around it.
///
/// Reddit wraps every list (posts, comments, replies) in `{"kind": "Listing", "data": {...}}`.
public struct RedditListing: Codable, Sendable, Hashable {
    /// The fullname (`t3_abc`) to pass as `after` for the next page, or nil on the last page.
    public var after: String?
    /// The fullname to pass as `before` for the previous page.
    public var before: String?
    /// The things on this page, in Reddit's order.
    public var children: [RedditThing]
    /// Whether the page was read from Reddit's Atom feed (``RedditFeed``) rather than its JSON
    /// API: then its posts have no score and no comment count, and its comments no nesting.
    public var isFromFeed: Bool

    public init(after: String? = nil, before: String? = nil, children: [RedditThing], isFromFeed: Bool = false) {
        self.after = after
        self.before = before
        self.children = children
        self.isFromFeed = isFromFeed
    }

    /// The posts on this page, skipping things of other kinds.
    public var posts: [RedditPost] {
        children.compactMap { if case .post(let post) = $0 { post } else { nil } }
    }

    /// The comments on this page, skipping "load more" stubs.
    public var comments: [RedditComment] {
        children.compactMap { if case .comment(let comment) = $0 { comment } else { nil } }
    }

    private enum Envelope: String, CodingKey { case kind, data }
    private enum DataKeys: String, CodingKey { case after, before, children, source }

    public init(from decoder: any Decoder) throws {
        let envelope = try decoder.container(keyedBy: Envelope.self)
        let kind = try envelope.decode(String.self, forKey: .kind)
        guard kind == "Listing" else {
            throw DecodingError.dataCorruptedError(
                forKey: .kind, in: envelope, debugDescription: "Expected a Listing, found \(kind.debugDescription)")
        }
        let data = try envelope.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        after = try data.decodeIfPresent(String.self, forKey: .after)
        before = try data.decodeIfPresent(String.self, forKey: .before)
        children = try data.decode([RedditThing].self, forKey: .children)
        isFromFeed = (try? data.decodeIfPresent(String.self, forKey: .source)) == RedditFeed.sourceName
    }

    public func encode(to encoder: any Encoder) throws {
        var envelope = encoder.container(keyedBy: Envelope.self)
        try envelope.encode("Listing", forKey: .kind)
        var data = envelope.nestedContainer(keyedBy: DataKeys.self, forKey: .data)
        try data.encode(after, forKey: .after)
        try data.encode(before, forKey: .before)
        try data.encode(children, forKey: .children)
        if isFromFeed { try data.encode(RedditFeed.sourceName, forKey: .source) }
    }
}

/// One thing in a listing, by its kind: `t3` post, `t1` comment, `more` stub, or another kind
/// that ReaderKit keeps by name rather than failing on.
public enum RedditThing: Codable, Sendable, Hashable {
    case post(RedditPost)
    case comment(RedditComment)
    case more(RedditMore)
    /// A kind ReaderKit does not model (`t2` account, `t5` subreddit…), kept so a listing still decodes.
    case other(kind: String)

    private enum Envelope: String, CodingKey { case kind, data }

    public init(from decoder: any Decoder) throws {
        let envelope = try decoder.container(keyedBy: Envelope.self)
        let kind = try envelope.decode(String.self, forKey: .kind)
        switch kind {
        case "t3": self = .post(try envelope.decode(RedditPost.self, forKey: .data))
        case "t1": self = .comment(try envelope.decode(RedditComment.self, forKey: .data))
        case "more": self = .more(try envelope.decode(RedditMore.self, forKey: .data))
        default: self = .other(kind: kind)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var envelope = encoder.container(keyedBy: Envelope.self)
        switch self {
        case .post(let post): try envelope.encode("t3", forKey: .kind); try envelope.encode(post, forKey: .data)
        case .comment(let comment): try envelope.encode("t1", forKey: .kind); try envelope.encode(comment, forKey: .data)
        case .more(let more): try envelope.encode("more", forKey: .kind); try envelope.encode(more, forKey: .data)
        case .other(let kind): try envelope.encode(kind, forKey: .kind)
        }
    }
}

/// A post's page: Reddit answers `/comments/{id}.json` with two listings, the post and its comments.
public struct RedditCommentPage: Codable, Sendable, Hashable {
    public var post: RedditPost
    public var comments: RedditListing

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let postListing = try container.decode(RedditListing.self)
        guard let post = postListing.posts.first else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: container.codingPath, debugDescription: "The first listing holds no post"))
        }
        self.post = post
        self.comments = try container.decode(RedditListing.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(RedditListing(children: [.post(post)]))
        try container.encode(comments)
    }
}
