import Foundation

/// Hides posts from a listing by their subreddit, or by a word or phrase in their title: the
/// config file's `hide-subreddits` and `hide-words`.
///
/// Words match whole and without regard to case or punctuation: `hide-words = ["ai"]` hides
/// "AI, again" but not "said"; a phrase (`"game of thrones"`) matches those words in a row.
public struct PostFilter: Sendable, Equatable {
    /// Lowercased subreddit names, without `r/`.
    public var hiddenSubreddits: Set<String>
    /// Each word or phrase as its lowercased words, one space apart.
    public var hiddenWords: [String]

    public init(hiddenSubreddits: [String] = [], hiddenWords: [String] = []) {
        self.hiddenSubreddits = Set(hiddenSubreddits.map { Self.subredditKey($0) })
        self.hiddenWords = hiddenWords.map { Self.words(of: $0) }.filter { !$0.isEmpty }
    }

    /// Whether it hides nothing.
    public var isEmpty: Bool { hiddenSubreddits.isEmpty && hiddenWords.isEmpty }

    /// Whether a post of `subreddit` titled `title` is hidden.
    /// - Parameters:
    ///   - subreddit: the subreddit the post is in, as the listing names it.
    ///   - title: the post's title, as the API sent it (HTML entities are decoded here).
    ///   - requested: the subreddits the user named for this listing: a subreddit asked
    ///     for by name is shown even if it is hidden elsewhere (the front page, r/popular).
    public func hides(subreddit: String, title: String, requested: Set<String> = []) -> Bool {
        let key = Self.subredditKey(subreddit)
        if hiddenSubreddits.contains(key), !requested.contains(where: { Self.subredditKey($0) == key }) { return true }
        guard !hiddenWords.isEmpty else { return false }
        let padded = " " + Self.words(of: TerminalText.decodingHTMLEntities(title)) + " "
        return hiddenWords.contains { padded.contains(" " + $0 + " ") }
    }

    /// Whether `post` is hidden; see ``hides(subreddit:title:requested:)``.
    public func hides(_ post: RedditPost, requested: Set<String> = []) -> Bool {
        hides(subreddit: post.subreddit, title: post.title, requested: requested)
    }

    /// The words of `text` (runs of letters and digits), lowercased and one space apart.
    package static func words(of text: String) -> String {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.joined(separator: " ")
    }

    private static func subredditKey(_ name: String) -> String {
        var lowered = name.lowercased()
        if lowered.hasPrefix("/r/") { lowered.removeFirst(3) } else if lowered.hasPrefix("r/") { lowered.removeFirst(2) }
        return lowered
    }
}
