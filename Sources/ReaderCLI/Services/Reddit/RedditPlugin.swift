import ArgumentParser
import Foundation
import ReaderKit

/// Reddit in `reader`: `posts` and `comments`, its addresses and app identity, the subreddits
/// read and synced without arguments, the posts hidden, and its hints.
struct RedditPlugin: ServicePlugin {
    var name: ServiceName { RedditService.name }

    var settings: [ServiceSetting] {
        [
            ServiceSetting(key: "reddit.url", variable: RedditService.baseURLVariable,
                           summary: "The Reddit base URL, read anonymously (default \(RedditService.defaultBaseURL.absoluteString)).",
                           kind: .url(default: RedditService.defaultBaseURL)),
            ServiceSetting(key: "reddit.oauth-url", variable: RedditService.oauthURLVariable,
                           summary: "The Reddit base URL with an app identity (default \(RedditService.defaultOAuthBaseURL.absoluteString)).",
                           kind: .url(default: RedditService.defaultOAuthBaseURL)),
            ServiceSetting(key: "reddit.client-id", variable: RedditService.clientIDVariable,
                           summary: "A Reddit app's client id: Reddit is then read with the app's token.",
                           kind: .identity(check: { RedditCredentials.idProblem($0).map { "is not a Reddit client id: " + $0 } },
                                           unset: "none (Reddit is read anonymously)")),
            ServiceSetting(key: "reddit.client-secret", variable: RedditService.clientSecretVariable,
                           summary: "The app's secret (a script or web app has one; an installed app none).",
                           kind: .secret(of: "reddit.client-id", check: { RedditCredentials.secretProblem($0).map { "is not a Reddit client secret: " + $0 } })),
            ServiceSetting(key: "reddit.source", variable: RedditService.sourceVariable,
                           summary: "How Reddit is read: api (its JSON API), feed (its Atom feeds: no scores, comment counts or nesting), or auto (the API, then the feeds when Reddit turns the API away).",
                           kind: .choice(values: Reddit.Source.allCases.map(\.rawValue), default: Reddit.Source.auto.rawValue)),
            ServiceSetting(key: "reddit.feed-user", variable: RedditService.feedUserVariable,
                           summary: "The Reddit user whose private feed key is reddit.feed-key.",
                           kind: .identity(check: { name in (try? Reddit.validatedUser(name)) == nil ? "is not a Reddit user name: use 3 to 20 letters, digits, _ or -" : nil },
                                           unset: "none (the feeds are read anonymously)")),
            ServiceSetting(key: "reddit.feed-key", variable: RedditService.feedKeyVariable,
                           summary: "A private feed key (reddit.com/prefs/feeds, feed=KEY): the feeds as that user, their own front page, a laxer rate limit.",
                           kind: .secret(of: "reddit.feed-user", check: { RedditFeedKey.keyProblem($0).map { "is not a Reddit feed key: " + $0 } })),
            ServiceSetting(key: "reddit.subreddits", summary: "What 'reader posts' reads without a subreddit, and 'reader sync' syncs.",
                           kind: .list(check: { names throws(SettingProblem) in
                               let checked = try Self.subreddits(names)
                               // `reader posts` reads them as one listing (swift+rust), which Reddit caps.
                               guard checked.count <= 50 else { throw SettingProblem("holds \(checked.count) names; Reddit reads at most 50 at once") }
                               return checked
                           })),
            ServiceSetting(key: "reddit.hide-subreddits", summary: "Posts from these are not listed, unless asked for by name.",
                           kind: .list(check: { names throws(SettingProblem) in try Self.subreddits(names).map { $0.lowercased() } })),
            ServiceSetting(key: "reddit.hide-words", summary: "Posts whose title holds one of these words or phrases are not listed.",
                           kind: .list(check: { words throws(SettingProblem) in
                               for word in words where PostFilter.words(of: word).isEmpty || word.count > 100 {
                                   throw SettingProblem("\"\(TerminalText.sanitise(word, maxLength: 40))\" is not a word to hide: give 1 to 100 characters with a letter or digit")
                               }
                               return words
                           })),
        ]
    }

    /// Each name checked as a subreddit, one to an entry.
    static func subreddits(_ names: [String]) throws(SettingProblem) -> [String] {
        try names.map { (name) throws(SettingProblem) in
            guard !name.contains("+"), let checked = try? Reddit.validatedSubreddit(name) else {
                throw SettingProblem("\"\(TerminalText.sanitise(name, maxLength: 40))\" is not a subreddit name: use 1 to 21 letters, digits or underscores, one name to an entry")
            }
            return checked
        }
    }

    func service(from settings: ServiceSettings) throws(ReaderError) -> any Service {
        let feedKey = settings.text("reddit.feed-key").flatMap { key in
            settings.text("reddit.feed-user").flatMap { RedditFeedKey(key: key, user: $0) }
        }
        return RedditService(publicBaseURL: settings.url("reddit.url"), oauthBaseURL: settings.url("reddit.oauth-url"),
                             credentials: settings.text("reddit.client-id").map {
                                 RedditCredentials(clientID: $0, clientSecret: settings.text("reddit.client-secret"))
                             },
                             source: settings.text("reddit.source").flatMap(Reddit.Source.init(rawValue:)) ?? .auto, feedKey: feedKey)
    }

    /// The posts the settings hide.
    static func postFilter(_ settings: ServiceSettings) -> PostFilter {
        PostFilter(hiddenSubreddits: settings.list("reddit.hide-subreddits"), hiddenWords: settings.list("reddit.hide-words"))
    }

    var summary: String { "Reddit posts" }

    var commands: [any ParsableCommand.Type] { [Reader.Posts.self, Reader.Comments.self] }

    var examples: [String] { ["reader posts swift", "reader comments 2xmo63"] }

    var configExample: String? {
        """
        [reddit]
        url = "\(RedditService.defaultBaseURL.absoluteString)"
        client-id = "p-jcoLKBynTLew"
        subreddits = ["swift", "rust"]
        hide-subreddits = ["politics"]
        hide-words = ["spoiler"]
        """
    }

    var sync: SyncCapability? {
        SyncCapability(usage: "reddit SUBREDDIT…", description: "reddit followed by subreddit names",
                       summary: "subreddits with their comments",
                       explanation: "'reddit SUBREDDIT…' reads each subreddit's posts as 'reader posts SUBREDDIT' does, and each post's comments as 'reader comments ID' does.",
                       configuredHelp: "the subreddits of [reddit] subreddits", example: "reddit swift rust",
                       argumentsNeeded: "reddit needs at least one subreddit name, such as 'reddit swift'",
                       argument: { name throws(ReaderError) in try Reddit.validatedSubreddit(name) },
                       maximumArguments: (50, "reddit syncs at most 50 subreddits at once, as the config file's subreddits"),
                       configured: { settings in
                           let names = settings.list("reddit.subreddits")
                           return names.isEmpty ? nil : names
                       },
                       configExample: "[reddit] subreddits = [\"swift\"]",
                       run: { client, subreddits, options, progress throws(ReaderError) in
                           try await client.syncReddit(subreddits: subreddits, options: options, progress: progress)
                       })
    }

    var detourDescription: String? { "read through its Atom feeds (no scores, comment counts or nesting)" }

    var credential: CredentialWording? {
        CredentialWording(
            anonymous: "read anonymously (no READER_REDDIT_CLIENT_ID)",
            notYetHeld: "app identity set; no token held yet (one is obtained on the next Reddit read)",
            check: { withoutSecret in
                withoutSecret
                    ? "check READER_REDDIT_CLIENT_ID: it must be an installed app's id; a script or web app also needs READER_REDDIT_CLIENT_SECRET"
                    : "check READER_REDDIT_CLIENT_ID and READER_REDDIT_CLIENT_SECRET: they must be the id and secret of one Reddit app"
            })
    }

    /// The hint for a subreddit Reddit does not know when the config file names `subreddits`,
    /// which plain `reader posts` reads in place of the front page.
    /// - Parameter named: whether the subreddit was named on the command line; if not, it was
    ///   the config file's.
    static func subredditNotFound(configured: [String], named: Bool) -> String {
        let subreddits = "r/" + configured.joined(separator: "+")
        return named
            ? "check the spelling; 'reader posts' without a name reads the config file's subreddits (\(subreddits))"
            : "check the spelling of the config file's subreddits (\(subreddits)); without them, 'reader posts' reads the front page"
    }

    /// What Reddit's explanations advise, in reader's words; nil where ReaderKit's say it already.
    func hint(reason: String, withCredential: Bool) -> String? {
        let appIdentity = "create a Reddit app and set READER_REDDIT_CLIENT_ID to its id (the README's \"Reddit with an app identity\" has the steps)"
        let refusedAnyway = "Reddit refused it although reader used the app identity of READER_REDDIT_CLIENT_ID; try later or from another network"
        return switch reason {
        case "not_found": "check the spelling; 'reader posts' without a name reads the front page"
        // With the app's token it was not read anonymously, and the token does not opt in either.
        case "quarantined" where withCredential: "the app identity of READER_REDDIT_CLIENT_ID does not opt in to it either; reader does not opt in for you"
        case "quarantined": "it cannot be read anonymously; reader does not opt in for you"
        case "forbidden" where withCredential, "blocked" where withCredential: refusedAnyway
        case "forbidden": "Reddit may block anonymous reading from this network; \(appIdentity), or try later or from another network"
        case "blocked": "READER_REDDIT_SOURCE=feed reads Reddit's Atom feeds, which it still serves (no scores or comment counts); or \(appIdentity) (new apps need Reddit's approval)"
        case "too_many_requests": "wait a few minutes; reader already waits as long as Reddit asks, up to --max-wait"
        case "feed_too_many_requests":
            "wait a few minutes; a private feed key lifts the limit Reddit sets anonymous feed readers (READER_REDDIT_FEED_KEY and READER_REDDIT_FEED_USER: the README's \"Reddit without an app: its feeds\")"
        case "feed_blocked" where withCredential: refusedAnyway
        case "feed_blocked": "Reddit refused its feed too; try later or from another network, or \(appIdentity) (new apps need Reddit's approval)"
        case "unauthorized": "check READER_REDDIT_CLIENT_ID and READER_REDDIT_CLIENT_SECRET; the app may have been deleted or its access revoked"
        default: nil
        }
    }
}
