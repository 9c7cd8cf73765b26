import Foundation
import ReaderKit

extension RedditPlugin {
    /// A listing and a comment page, from the JSON API and from the feeds; the token endpoint's
    /// answer; the token file.
    var answers: [ServiceAnswer] {
        [
            ServiceAnswer("posts", as: RedditListing.self, shown: Self.show),
            ServiceAnswer("comments", as: RedditCommentPage.self, shown: Self.show),
            ServiceAnswer("posts from the feed", as: RedditListing.self, translatedBy: RedditFeed.listing, shown: Self.show),
            ServiceAnswer("comments from the feed", as: RedditCommentPage.self, translatedBy: RedditFeed.comments, shown: Self.show),
            ServiceAnswer("token") { response, now throws(ReaderError) in
                for installedApp in [false, true] {
                    _ = try RedditToken.read(response, url: "http://127.0.0.1/api/v1/access_token", clientID: "fuzz",
                                             installedApp: installedApp, now: now)
                }
            },
            ServiceAnswer(file: "token file") { bytes, folder, now in
                let store = RedditTokenStore(path: folder + "/reddit-token.json")
                // A folder that cannot be written to reads as a missing file: nothing to show.
                _ = FileManager.default.createFile(atPath: store.path, contents: bytes)
                if let token = store.token(for: "fuzz", at: RedditService.defaultOAuthBaseURL.absoluteString, now: now) {
                    _ = (token.isUsable(at: now), token.description, RelativeAge.describe(moment: token.expiresAt, from: now))
                }
            },
        ]
    }

    static func show(_ listing: RedditListing, _ showing: ServiceAnswer.Showing) {
        _ = Reader.Posts.table(listing.posts, now: showing.now).render(width: showing.width)
        _ = CommentTree.lines(listing.children, depth: 0, now: showing.now, width: showing.width, style: .plain)
        for post in listing.posts { show(post, showing) }
        _ = listing.after.map(Reddit.isFullname)
    }

    static func show(_ page: RedditCommentPage, _ showing: ServiceAnswer.Showing) {
        _ = CommentTree.header(page.post, now: showing.now, width: showing.width, style: .plain)
        _ = CommentTree.lines(page.comments.children, depth: 0, now: showing.now, width: showing.width, style: .plain)
        show(page.post, showing)
    }

    static func show(_ post: RedditPost, _ showing: ServiceAnswer.Showing) {
        let width = showing.width ?? 72
        _ = TerminalText.wrap(TerminalText.sanitise(post.title), toWidth: width)
        _ = TerminalText.truncate(TerminalText.sanitise(post.author), toWidth: 20)
        _ = post.selftext.map { TerminalText.sanitiseParagraphs($0).flatMap { TerminalText.wrap($0, toWidth: width) } }
        _ = post.domain.map { TerminalText.sanitise($0) }
        _ = RelativeAge.describe(moment: post.createdUTC, from: showing.now, timeZone: TimeZone(identifier: "UTC") ?? .current)
    }
}
