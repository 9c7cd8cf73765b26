import Foundation

/// A Reddit submission (`t3`).
///
/// Only the fields a reader shows are modelled; `--json` output keeps every field Reddit sent.
public struct RedditPost: Codable, Sendable, Hashable {
    /// The short id, such as `6zyrr6`.
    public var id: String
    /// The fullname, such as `t3_6zyrr6`, used as a paging cursor.
    public var name: String
    public var title: String
    public var author: String
    public var subreddit: String
    /// Its score; nil when the answer gave none (Reddit's feeds give no score).
    public var score: Int?
    /// How many comments it has; nil when the answer gave no count (Reddit's feeds give none).
    public var numComments: Int?
    /// When the post was made; Reddit sends epoch seconds.
    public var createdUTC: Date
    public var permalink: String
    public var url: String?
    public var domain: String?
    public var selftext: String?
    public var isSelf: Bool?
    public var over18: Bool?
    public var stickied: Bool?
    public var upvoteRatio: Double?

    public init(
        id: String, name: String, title: String, author: String, subreddit: String, score: Int?,
        numComments: Int?, createdUTC: Date, permalink: String, url: String? = nil, domain: String? = nil,
        selftext: String? = nil, isSelf: Bool? = nil, over18: Bool? = nil, stickied: Bool? = nil,
        upvoteRatio: Double? = nil
    ) {
        self.id = id; self.name = name; self.title = title; self.author = author
        self.subreddit = subreddit; self.score = score; self.numComments = numComments
        self.createdUTC = createdUTC; self.permalink = permalink; self.url = url; self.domain = domain
        self.selftext = selftext; self.isSelf = isSelf; self.over18 = over18; self.stickied = stickied
        self.upvoteRatio = upvoteRatio
    }

    enum CodingKeys: String, CodingKey {
        case id, name, title, author, subreddit, score, permalink, url, domain, selftext, stickied
        case numComments = "num_comments"
        case createdUTC = "created_utc"
        case isSelf = "is_self"
        case over18 = "over_18"
        case upvoteRatio = "upvote_ratio"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
        title = try container.decode(String.self, forKey: .title)
        author = try container.decode(String.self, forKey: .author)
        subreddit = try container.decode(String.self, forKey: .subreddit)
        // Bounded where they enter: the table and the comment header do arithmetic on them.
        score = try container.decodeIfPresent(Int.self, forKey: .score, within: OutsideNumbers.score)
        numComments = try container.decodeIfPresent(Int.self, forKey: .numComments, within: OutsideNumbers.count)
        createdUTC = try container.decode(Date.self, forKey: .createdUTC)
        permalink = try container.decode(String.self, forKey: .permalink)
        url = try container.decodeIfPresent(String.self, forKey: .url)
        domain = try container.decodeIfPresent(String.self, forKey: .domain)
        selftext = try container.decodeIfPresent(String.self, forKey: .selftext)
        isSelf = try container.decodeIfPresent(Bool.self, forKey: .isSelf)
        over18 = try container.decodeIfPresent(Bool.self, forKey: .over18)
        stickied = try container.decodeIfPresent(Bool.self, forKey: .stickied)
        upvoteRatio = try container.decodeIfPresent(Double.self, forKey: .upvoteRatio)
    }
}

/// A comment (`t1`) with its replies.
public struct RedditComment: Codable, Sendable, Hashable {
    public var id: String
    public var author: String
    public var body: String
    /// Its score; nil when the answer gave none (Reddit's feeds give no score).
    public var score: Int?
    public var createdUTC: Date
    /// The replies; Reddit sends `""` rather than a listing when there are none.
    public var replies: RedditListing?
    /// How many levels of replies were sent below this comment but not kept, the tree being cut
    /// there (at about 16 levels): 0 when none were. Said, never dropped silently.
    public var levelsNotKept = 0

    /// About 16 levels of replies: each level adds five steps (replies, data, children, index, data).
    static let maximumCodingPathLength = 80

    enum CodingKeys: String, CodingKey {
        case id, author, body, score, replies
        case createdUTC = "created_utc"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        author = try container.decode(String.self, forKey: .author)
        body = try container.decode(String.self, forKey: .body)
        score = try container.decodeIfPresent(Int.self, forKey: .score, within: OutsideNumbers.score)
        createdUTC = try container.decode(Date.self, forKey: .createdUTC)
        // Reddit nests no deeper than it is asked to (reader asks for at most 10 levels). A
        // deeper tree is cut here: decoding each level costs the length of the coding path, so
        // a server nesting hundreds of levels would otherwise cost minutes.
        if decoder.codingPath.count > Self.maximumCodingPathLength {
            replies = nil
            levelsNotKept = (try? container.decodeIfPresent(ReplyLevels.self, forKey: .replies))?.levels ?? 0
        } else if (try? container.decode(String.self, forKey: .replies)) != nil {
            replies = nil
        } else {
            replies = try container.decodeIfPresent(RedditListing.self, forKey: .replies)
        }
    }
}

/// A "load more comments" stub (`more`): comments Reddit did not send, by id.
public struct RedditMore: Codable, Sendable, Hashable {
    /// How many comments are behind this stub.
    public var count: Int
    /// The ids of the comments Reddit left out.
    public var children: [String]

    enum CodingKeys: String, CodingKey { case count, children }

    public init(count: Int, children: [String]) {
        self.count = count
        self.children = children
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        count = try container.decode(Int.self, forKey: .count, within: OutsideNumbers.count)
        children = try container.decode([String].self, forKey: .children)
    }
}
