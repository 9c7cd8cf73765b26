import Foundation
import ReaderKit
import ReaderTerminal

/// The hook bench/Browse (`ReaderBrowseBench`) measures `reader browse` through: a ``Browser``
/// on a Reddit screen, the data it shows given, and no client (nothing is loaded, and the work
/// the screens ask for is not run). The measuring is the bench's. Not an API.
package struct BrowseBenchSession {
    private var browser: Browser
    /// The message that brings the screen its data.
    private let answer: Browser.Message

    /// A post list of `listing` (r/bench's), or a post and its comments (`thread`).
    package enum Subject: Sendable {
        case postList(RedditListing)
        case thread(RedditCommentPage)
    }

    /// Started at `size`: the screen asked for its data, which has not come.
    /// - Parameter metadata: what the data came with.
    package init(_ subject: Subject, metadata: LoadMetadata, size: TerminalSize, now: Date) {
        let environment = Browser.Environment(
            loadOptions: { LoadOptions(cacheMode: .offline) },
            resolve: { (_) throws(ReaderError) in throw ReaderError.invalidArgument("not in a measurement") },
            wording: .messages,
            browserCommand: nil,
            openURL: { _ in nil })
        let reddit = RedditBrowsing()
        let first: any BrowseScreen
        switch subject {
        case .postList(let listing):
            first = PostListScreen(.subreddit("bench"), reddit: reddit)
            answer = .answer(screen: 0, id: "list", .foreground(probe: false),
                             ScreenAnswer(LoadResult<RedditListing>.loaded(listing, metadata), report: .loaded(metadata)))
        case .thread(let page):
            first = PostScreen(post: page.post, reddit: reddit)
            answer = .answer(screen: 0, id: "comments", .foreground(probe: false),
                             ScreenAnswer(LoadResult<RedditCommentPage>.loaded(page, metadata), report: .loaded(metadata)))
        }
        browser = Browser(first: first, environment: environment, size: size, now: now)
        _ = browser.start()
    }

    /// The data comes.
    package mutating func deliver() { _ = browser.update(.message(answer)) }

    /// `key` pressed.
    package mutating func press(_ key: Key) { _ = browser.update(.key(key)) }

    /// The frame the browser draws now.
    package func view(size: TerminalSize) -> Grid { browser.view(size: size) }
}
