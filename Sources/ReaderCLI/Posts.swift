import ArgumentParser
import Foundation
import ReaderKit

extension Reddit.Sort: ExpressibleByArgument {}

extension Reader {
    struct Posts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the posts of a subreddit, or of the front page.",
            discussion: "Reads https://www.reddit.com (or $READER_REDDIT_URL)/r/SUBREDDIT/SORT.json.")

        @Argument(help: "A subreddit such as swift (or r/swift, or swift+rust). The front page when left out.")
        var subreddit: String?

        @Option(help: "hot, new, top or rising.")
        var sort: Reddit.Sort = .hot

        @Option(help: "How many posts, from 1 to 100.")
        var limit: Int = 25

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            _ = try endpoint()
        }

        private func endpoint() throws -> Endpoint<RedditListing> {
            do { return try Reddit.posts(subreddit: subreddit, sort: sort, limit: limit) }
            catch { throw ValidationError(error.message) }
        }

        func run() async throws {
            let now = Date()
            try await CommandRunner.run(try endpoint(), options: options, jsonItems: { raw in
                let children = raw["data"]?["children"]?.arrayValue ?? []
                return .list(children.compactMap { $0["data"] }, meta: ["after": raw["data"]?["after"] ?? .null])
            }, render: { listing in
                let rows = listing.posts.map { post in
                    [Self.compact(post.score), Self.compact(post.numComments),
                     RelativeAge.describe(seconds: Int(now.timeIntervalSince(post.createdUTC))),
                     "r/" + post.subreddit, "u/" + post.author, post.title]
                }
                let table = Table(columns: [
                    .init(title: "SCORE", alignRight: true), .init(title: "COMMENTS", alignRight: true),
                    .init(title: "AGE", alignRight: true), .init(title: "SUBREDDIT"), .init(title: "AUTHOR"),
                    .init(title: "TITLE", flexible: true),
                ], rows: rows)
                let footer = listing.after.map { "more: the next page starts after \(TerminalText.sanitise($0, maxLength: 40))" }
                return (rows.isEmpty ? "no posts" : table.render(width: Terminal.outputWidth()), footer)
            })
        }

        /// 12400 → 12.4k, as people read scores.
        static func compact(_ value: Int) -> String {
            switch abs(value) {
            case ..<10_000: String(value)
            case ..<1_000_000: String(format: "%.1fk", Double(value) / 1000)
            default: String(format: "%.1fM", Double(value) / 1_000_000)
            }
        }
    }
}
