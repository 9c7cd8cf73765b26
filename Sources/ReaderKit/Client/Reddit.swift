import Foundation

/// Endpoints of Reddit's public JSON.
public enum Reddit {
    /// How a listing is sorted.
    public enum Sort: String, Sendable, CaseIterable, Codable {
        case hot, new, top, rising
    }

    /// The most posts Reddit returns in one listing.
    public static let maximumLimit = 100

    /// The posts of a subreddit, or of the front page when `subreddit` is nil:
    /// `r/{subreddit}/{sort}.json?limit=N&raw_json=1`.
    /// - Parameters:
    ///   - subreddit: a name (`swift`), `r/swift`, or several joined by `+` (`swift+rust`).
    ///   - sort: hot, new, top or rising.
    ///   - limit: 1 to 100.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a name Reddit cannot have, or a limit out of range.
    public static func posts(subreddit: String?, sort: Sort = .hot, limit: Int = 25) throws(ReaderError) -> Endpoint<RedditListing> {
        guard (1...maximumLimit).contains(limit) else {
            throw .invalidArgument("--limit must be from 1 to \(maximumLimit), got \(limit)")
        }
        // raw_json=1 asks for text as written, not HTML-escaped (&amp; and friends).
        let query = [URLQueryItem(name: "limit", value: String(limit)), URLQueryItem(name: "raw_json", value: "1")]
        guard let subreddit else {
            return Endpoint(api: .reddit, path: "\(sort.rawValue).json", query: query)
        }
        let name = try validatedSubreddit(subreddit)
        return Endpoint(api: .reddit, path: "r/\(name)/\(sort.rawValue).json", query: query)
    }

    /// Returns the subreddit name without an `r/` or `/r/` prefix, or throws when it is not one
    /// Reddit allows: 1 to 21 letters, digits or underscores, or several such joined by `+`.
    public static func validatedSubreddit(_ text: String) throws(ReaderError) -> String {
        var name = Substring(text)
        for prefix in ["/r/", "r/"] where name.lowercased().hasPrefix(prefix) { name = name.dropFirst(prefix.count); break }
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

    /// The User-Agent Reddit asks API clients for: platform, app id, version, and a description.
    public static let userAgent = "linux:reader:\(ReaderKitVersion.string) (ReaderKit command-line reader)"
}
