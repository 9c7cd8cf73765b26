import Foundation

/// Answers like SWAPI and Reddit from data the tests write (SWAPI under `/api/`, Reddit at the
/// root), in the shapes of the recordings that ``Fixtures/route(_:)`` replays: what a test needs
/// that is about a behaviour of `reader`, not about the recordings themselves, so that it runs on
/// a bare clone.
///
/// SWAPI is ``SWAPIDataSet`` (pages, resources, search, ETags and 304, `{"detail":"Not found"}`)
/// with its root and its headers; Reddit is `/hot.json` (5 posts), `/r/python/hot.json` and
/// `/r/popular/hot.json` (25 posts each, with an `after`), `/r/a+b/hot.json` (404) and
/// `/r/quarantined/hot.json` (403 with a reason), each `max-age=0, must-revalidate`.
public enum SampleAPI {
    static let swapi = SWAPIDataSet()

    /// The answer to `request`.
    public static func route(_ request: TestServer.Request) -> TestServer.Reply {
        let path = request.path
        if path == "/api/" || path == "/api" {
            let root = "{" + SWAPIDataSet.sizes.keys.sorted().map { "\"\($0)\":\"https://swapi.dev/api/\($0)/\"" }
                .joined(separator: ",") + "}"
            return .json(Array(root.utf8), headers: [("Allow", "GET, HEAD, OPTIONS"), ("Vary", "Accept, Cookie")])
        }
        if path.hasPrefix("/api/") { return swapi.route(request) }
        let revalidate = [("Cache-Control", "max-age=0, must-revalidate")]
        switch path.lowercased() {
        case "/hot.json": return .json(listing(subreddit: "all", count: 5), headers: revalidate)
        case "/r/python/hot.json": return .json(listing(subreddit: "Python", count: 25), headers: revalidate)
        case "/r/popular/hot.json": return .json(listing(subreddit: "popular", count: 25), headers: revalidate)
        case "/r/a+b/hot.json":
            return .json(Array(#"{"message": "Not Found", "error": 404}"#.utf8), status: 404, headers: revalidate)
        case "/r/quarantined/hot.json":
            return .json(quarantined, status: 403, headers: revalidate)
        default:
            return .respond(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html><title>404</title></html>".utf8))
        }
    }

    /// A listing of `count` posts in `subreddit`, as Reddit's JSON API writes one: the first a
    /// stickied self post, the others links, each with its own id, and `after` naming the last.
    public static func listing(subreddit: String, count: Int) -> [UInt8] {
        let posts: [[String: Any]] = (0..<count).map { index in
            let id = "s\(String(index + 1, radix: 36))q\(subreddit.count)"
            let isSelf = index == 0
            let permalink = "/r/\(subreddit)/comments/\(id)/post_number_\(index + 1)/"
            return ["kind": "t3", "data": [
                "id": id, "name": "t3_\(id)", "title": isSelf ? "/r/\(subreddit) weekly thread" : "Post number \(index + 1) in \(subreddit)",
                "author": "author\(index % 7)", "subreddit": subreddit, "subreddit_name_prefixed": "r/\(subreddit)",
                "score": 1_000 - index * 13, "ups": 1_000 - index * 13, "num_comments": 3 * index + 1,
                "created_utc": 1_700_000_000.0 - Double(index) * 3_600, "permalink": permalink,
                "url": isSelf ? "https://www.reddit.com" + permalink : "https://example.com/articles/\(index + 1)",
                "domain": isSelf ? "self.\(subreddit)" : "example.com", "is_self": isSelf,
                "selftext": isSelf ? "Say what you are working on this week." : "", "stickied": isSelf, "over_18": false,
                "upvote_ratio": 0.95,
            ] as [String: Any]]
        }
        let after: Any = posts.last.map { "t3_" + (($0["data"] as? [String: Any])?["id"] as? String ?? "") } ?? NSNull()
        let listing: [String: Any] = ["kind": "Listing", "data": ["modhash": "", "children": posts, "after": after, "before": NSNull()]]
        return Array((try? JSONSerialization.data(withJSONObject: listing, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data())
    }

    /// Reddit's 403 for a quarantined subreddit, with the reason it gives.
    static let quarantined = Array(#"""
        {"reason": "quarantined", "message": "Forbidden", "error": 403,
         "quarantine_message": "This community is quarantined: it may hold content many find upsetting. [Learn more](https://www.reddithelp.com/quarantine).",
         "quarantine_message_html": "<div class=\"md\"><p>This community is quarantined.</p></div>"}
        """#.utf8)
}
