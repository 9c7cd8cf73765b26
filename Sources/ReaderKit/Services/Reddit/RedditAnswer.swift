/// What Reddit means by its error answers, which say more than their status: a 403 may be a
/// private or a quarantined subreddit, a 404 a banned one, a 429 its "whoa there, pardner!" page.
enum RedditAnswer: Equatable {
    case noSuchThing(subject: String)
    case banned(subject: String)
    case privateSubreddit(subject: String)
    case quarantined(subject: String, explanation: String?)
    case forbidden(subject: String)
    /// Its "whoa there, pardner!"; `onFeed`: to a request for its Atom feed, whose limit a
    /// private feed key lifts.
    case tooManyRequests(onFeed: Bool)
    case unauthorized
    /// Reddit's network security answered in place of the resource: "You've been blocked by
    /// network security… log in… or use your developer token". An app identity is let in.
    /// `onFeed`: to a request for its Atom feed, the way around it already.
    case blockedByNetworkSecurity(subject: String, onFeed: Bool)

    /// Reads a status failure from Reddit; nil for one that is not Reddit's (a 404 without its
    /// error body) or says nothing special.
    init?(_ failure: StatusFailure) {
        let subject = Self.subject(ofURL: failure.url)
        let reason = failure.apiError?.reason?.lowercased()
        let onFeed = Self.isFeed(failure.url)
        switch (failure.status, reason) {
        case _ where failure.isBlockPage: self = .blockedByNetworkSecurity(subject: subject, onFeed: onFeed)
        case (404, "banned"): self = .banned(subject: subject)
        // Reddit's own not-found has its error body (or is its search redirect, or its feed's
        // "page not found"); a 404 without one is a web server's where Reddit is not: an address
        // to check (ReaderKit's hint), not a subreddit that does not exist.
        case (404, _) where failure.apiError != nil, (410, _) where failure.apiError != nil: self = .noSuchThing(subject: subject)
        case (403, "private"): self = .privateSubreddit(subject: subject)
        case (403, "quarantined"): self = .quarantined(subject: subject, explanation: failure.apiError?.explanation)
        case (403, _): self = .forbidden(subject: subject)
        case (429, _): self = .tooManyRequests(onFeed: onFeed)
        case (401, _): self = .unauthorized
        default: return nil
        }
    }

    /// A stable name for scripts (`--json`'s `reason`).
    var reason: String {
        switch self {
        case .noSuchThing: "not_found"
        case .banned: "banned"
        case .privateSubreddit: "private"
        case .quarantined: "quarantined"
        case .forbidden: "forbidden"
        case .tooManyRequests(let onFeed): onFeed ? "feed_too_many_requests" : "too_many_requests"
        case .unauthorized: "unauthorized"
        case .blockedByNetworkSecurity(_, let onFeed): onFeed ? "feed_blocked" : "blocked"
        }
    }

    var message: String {
        switch self {
        case .noSuchThing(let subject): "\(subject) does not exist"
        case .banned(let subject): "\(subject) is banned: Reddit took it down"
        case .privateSubreddit(let subject): "\(subject) is private: only its approved members can read it"
        case .quarantined(let subject, let explanation):
            "\(subject) is quarantined: Reddit shows it only to signed-in users who opt in"
                + (explanation.map { " (Reddit says \"\(TerminalText.sanitise($0, maxLength: 300))\")" } ?? "")
        case .forbidden(let subject): "Reddit refused to show \(subject) (403 Forbidden)"
        case .tooManyRequests(onFeed: false): "Reddit says too many requests came from this address lately (429, \"whoa there, pardner!\")"
        case .tooManyRequests(onFeed: true): "Reddit says too many feed requests came from this address lately (429): it allows anonymous feed readers few"
        case .unauthorized: "Reddit refused reader's token (401 Unauthorized), also after a new one was obtained"
        case .blockedByNetworkSecurity(let subject, let onFeed):
            "Reddit's network security blocked the request for \(subject)\(onFeed ? "'s feed" : "") (a \"blocked by network security\" page, not an answer)"
        }
    }

    /// What can be done, in ReaderKit's words: a front end words it its own way from
    /// ``reason`` (``Hint/service(_:reason:withCredential:text:)``).
    var hint: String {
        switch self {
        case .noSuchThing: "check the spelling; Reddit.posts(subreddit: nil) reads the front page"
        case .banned: "nothing there can be read any more"
        case .privateSubreddit: "it cannot be read without an invitation from its moderators"
        case .quarantined: "it cannot be read anonymously; ReaderKit does not opt in for you"
        case .forbidden: "Reddit may block anonymous reading from this network; \(Self.appIdentityHint), or try later or from another network"
        case .tooManyRequests(onFeed: false): "wait a few minutes; ReaderKit already waits as long as Reddit asks, up to RetryPolicy.maximumDelay"
        case .tooManyRequests(onFeed: true): "wait a few minutes; a RedditFeedKey lifts the limit Reddit sets anonymous feed readers"
        case .unauthorized: "check the app's client id and secret (RedditCredentials); the app may have been deleted or its access revoked"
        case .blockedByNetworkSecurity(_, onFeed: false): "Reddit lets in readers with an app identity: \(Self.appIdentityHint)"
        case .blockedByNetworkSecurity(_, onFeed: true): "Reddit refused its feed too; try later or from another network, or \(Self.appIdentityHint)"
        }
    }

    /// The hint when the request was made with an app identity: then setting one is no
    /// hint, and a refusal Reddit would lift for one is about this network or this moment.
    var hintWithAppIdentity: String {
        switch self {
        case .forbidden, .blockedByNetworkSecurity:
            "Reddit refused it although the request carried the app's identity; try later or from another network"
        // Not "anonymously": the app's token reads no more of it than no token does.
        case .quarantined: "an app's token does not opt in to it either; ReaderKit does not opt in for you"
        default: hint
        }
    }

    /// How to read Reddit with an app identity, in a few words; the README's section has the steps.
    static let appIdentityHint =
        "give RedditService a Reddit app's RedditCredentials (the README's \"Reddit with an app identity\" has the steps)"

    /// Whether `url` asks for one of Reddit's Atom feeds (`….rss`).
    static func isFeed(_ url: String) -> Bool {
        (url.split(separator: "?", maxSplits: 1).first ?? "").hasSuffix(".rss")
    }

    /// What a Reddit URL is about, as people name it: `r/python`, `u/spez`, `post 2xmo63`,
    /// `the search`, `the front page`.
    static func subject(ofURL url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let parts = path.split(separator: "/").map { TerminalText.sanitise($0, maxLength: 64) }
        if let last = parts.last, last == "search.json" || last == "search.rss" || last == "search" {
            return parts.firstIndex(of: "r").flatMap { $0 + 1 < parts.count ? "the search of r/\(parts[$0 + 1])" : nil } ?? "the search"
        }
        func after(_ marker: String) -> String? {
            guard let index = parts.firstIndex(of: marker), index + 1 < parts.count else { return nil }
            return parts[index + 1]
        }
        if let id = after("comments") { return "post \(id.replacingOccurrences(of: ".json", with: ""))" }
        if let name = after("r") { return "r/\(name)" }
        if let name = after("user") ?? after("u") { return "u/\(name)" }
        return "the front page"
    }
}
