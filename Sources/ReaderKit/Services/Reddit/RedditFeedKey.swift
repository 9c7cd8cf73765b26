import Foundation

/// A signed-in Reddit user's private feed key and name (reddit.com/prefs/feeds shows feed URLs
/// with `?feed=KEY&user=NAME`): carried by every feed request, to Reddit's origin only. The key
/// reads that account's private feeds: it is a secret, never shown, logged, stored in the cache
/// file, or part of a cache key (which holds its ``fingerprint``).
public struct RedditFeedKey: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var user: String

    /// A key and user; nil when either is not one Reddit gives (``keyProblem(_:)``, ``Reddit/validatedUser(_:)``).
    public init?(key: String, user: String) {
        guard Self.keyProblem(key) == nil, let name = try? Reddit.validatedUser(user) else { return nil }
        self.key = key
        self.user = name
    }

    /// What is wrong with `key` as a feed key, or nil: Reddit's are 40 hex digits; anything of
    /// 8 to 128 letters, digits, `-` and `_` is taken, so that a longer key of the future works.
    public static func keyProblem(_ key: String) -> String? {
        guard (8...128).contains(key.utf8.count) else { return "must be 8 to 128 characters (Reddit's are 40), got \(key.utf8.count)" }
        guard key.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D || $0 == 0x5F }) else {
            return "must hold only letters, digits, - and _"
        }
        return nil
    }

    /// Reads `READER_REDDIT_FEED_KEY` and `READER_REDDIT_FEED_USER`; nil when no key is set.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a key without a user, or either not
    ///   one Reddit gives (the message never shows the key).
    public static func fromEnvironment(_ environment: [String: String]) throws(ReaderError) -> RedditFeedKey? {
        let (keyVariable, userVariable) = (RedditService.feedKeyVariable, RedditService.feedUserVariable)
        let key = environment[keyVariable].flatMap { $0.isEmpty ? nil : $0 }
        let user = environment[userVariable].flatMap { $0.isEmpty ? nil : $0 }
        guard let key else { return nil }
        guard let user else { throw .invalidConfiguration("\(keyVariable) is set but \(userVariable) is not: set both, or neither") }
        if let problem = keyProblem(key) { throw .invalidConfiguration("\(keyVariable) is not a Reddit feed key: \(problem)") }
        guard let feedKey = RedditFeedKey(key: key, user: user) else {
            throw .invalidConfiguration("\(userVariable) is not a Reddit user name: use 3 to 20 letters, digits, _ or -")
        }
        return feedKey
    }

    /// The name of the cache key's item that holds ``fingerprint``.
    static let fingerprintName = "feed-key-sha256"

    /// What tells this key and user apart from any other in the cache's keys, without revealing
    /// the key: the first 16 hex digits (64 bits) of the SHA-256 of the user and the key. It
    /// cannot be turned back into a key (Reddit's have 160 bits), and two keys share one by chance
    /// with odds of one in 2^64.
    public var fingerprint: String {
        let digest = SHA256Digest.hash(Array("reader feed key\u{0}\(user.lowercased())\u{0}\(key)".utf8))
        return digest.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }

    /// Never the key.
    public var description: String { "feed key of u/\(user)" }
}
