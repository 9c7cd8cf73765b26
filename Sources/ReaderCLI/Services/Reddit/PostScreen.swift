import Foundation
import ReaderKit
import ReaderTerminal

/// A post and its comment tree in `reader browse`. (A first form: the title and the comment
/// count; the tree comes next.)
struct PostScreen: BrowseScreen {
    let post: RedditPost
    let reddit: RedditBrowsing
    private(set) var shown: LoadMetadata?

    init(post: RedditPost, reddit: RedditBrowsing) {
        self.post = post
        self.reddit = reddit
    }

    var place: [String] { ["r/\(post.subreddit) · \(post.title)", "r/\(post.subreddit)"] }
    var hasContent: Bool { true }

    func start(in layout: ScreenLayout) -> [ScreenEffect] {
        [.load(id: "comments", .cacheFirst, reddit.comments(of: post.id))]
    }

    mutating func handle(_ event: ScreenEvent, in layout: ScreenLayout) -> [ScreenEffect] {
        if case .answer(_, let answer) = event, case .loaded(_, let metadata)? = answer.payload as? LoadResult<RedditCommentPage> {
            shown = metadata
        }
        return []
    }

    func draw(into grid: inout Grid, in layout: ScreenLayout) {
        grid.draw(post.title, x: 0, y: 0, style: CellStyle(bold: true))
    }
}
