import ArgumentParser
import Foundation
import ReaderKit

extension Reddit.CommentSort: ExpressibleByArgument {}

extension Reader {
    struct Comments: AsyncParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "comments",
            abstract: "Show a post and its comment tree.",
            discussion: """
                Reads https://www.reddit.com (or $READER_REDDIT_URL)/comments/ID.json. Replies are \
                indented under their parent; comments Reddit did not send are shown as a count \
                ("12 more replies"), never dropped silently.
                """)

        static let examples = [
            "reader comments 2xmo63",
            "reader comments https://www.reddit.com/r/Python/comments/2xmo63/ --sort top --depth 3",
            "reader comments t3_2xmo63 --limit 50 --json",
        ]

        @Argument(help: ArgumentHelp("The post: its id (2xmo63), its fullname (t3_2xmo63) or its URL.", valueName: "post"))
        var post: String

        @Option(help: "How comments are ordered.")
        var sort: Reddit.CommentSort = .best

        @Option(help: ArgumentHelp("Levels of replies to show, from 1 to 10 (default: as many as Reddit sends).", valueName: "n"))
        var depth: Int?

        @Option(help: ArgumentHelp("Comments to ask for, from 1 to 500 (default: Reddit's).", valueName: "n"))
        var limit: Int?

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            do { _ = try Reddit.comments(post: post, sort: sort, depth: depth, limit: limit) }
            catch { throw ValidationError(error.message) }
        }

        func run() async throws {
            let now = Date()
            let width = Terminal.outputWidth() ?? 100
            let style = options.style
            try await CommandRunner.run(try Reddit.comments(post: post, sort: sort, depth: depth, limit: limit), options: options,
                                        jsonItems: { raw in
                .single(.object(["post": raw[0]?["data"]?["children"]?[0]?["data"] ?? .null,
                                 "comments": raw[1]?["data"]?["children"] ?? .array([])]))
            }, render: { page in
                var lines = CommentTree.header(page.post, now: now, width: width, style: style)
                lines.append("")
                let tree = CommentTree.lines(page.comments.children, depth: 0, now: now, width: width, style: style)
                lines += tree.isEmpty ? ["no comments yet"] : tree
                return (lines.joined(separator: "\n"), nil)
            })
        }
    }
}

/// A post and its comments as indented text, every piece of it sanitised.
enum CommentTree {
    /// The deepest indentation drawn; deeper replies stay at this level so text keeps some room.
    static let maximumIndent = 12

    static func header(_ post: RedditPost, now: Date, width: Int, style: Style) -> [String] {
        var lines = TerminalText.wrap(clean(post.title), toWidth: width).map(style.bold)
        let age = RelativeAge.describe(from: post.createdUTC, to: now)
        lines.append(style.dim("r/\(clean(post.subreddit)) · u/\(clean(post.author)) · \(Compact.number(post.score)) points · \(Compact.number(post.numComments)) comments · \(age) ago"))
        if post.isSelf == true, let text = post.selftext, !text.isEmpty {
            lines.append("")
            lines += paragraphs(text, indent: "", width: width)
        } else if let url = post.url {
            lines.append(style.cyan(TerminalText.truncate(clean(url), toWidth: width)))
        }
        return lines
    }

    static func lines(_ things: [RedditThing], depth: Int, now: Date, width: Int, style: Style) -> [String] {
        let indent = String(repeating: "  ", count: min(depth, maximumIndent / 2))
        var lines: [String] = []
        for thing in things {
            switch thing {
            case .comment(let comment):
                // A blank line between threads, so each reads as one.
                if depth == 0, !lines.isEmpty { lines.append("") }
                let age = RelativeAge.describe(from: comment.createdUTC, to: now)
                lines.append(indent + style.cyan("u/" + clean(comment.author)) + style.dim(" · \(Compact.number(comment.score)) points · \(age) ago"))
                lines += paragraphs(comment.body, indent: indent + "  ", width: width)
                if let replies = comment.replies?.children, !replies.isEmpty {
                    lines += self.lines(replies, depth: depth + 1, now: now, width: width, style: style)
                }
            case .more(let more):
                let text = more.count > 0
                    ? "… \(more.count) more \(more.count == 1 ? "reply" : "replies") not loaded"
                    : "… the thread continues deeper (not loaded)"
                lines.append(indent + style.dim(text))
            case .post, .other:
                continue
            }
        }
        return lines
    }

    private static func paragraphs(_ text: String, indent: String, width: Int) -> [String] {
        let room = max(20, width - TerminalText.width(indent))
        return TerminalText.sanitiseParagraphs(TerminalText.decodingHTMLEntities(text)).flatMap { line in
            line.isEmpty ? [""] : TerminalText.wrap(line, toWidth: room).map { indent + $0 }
        }
    }

    private static func clean(_ text: String) -> String {
        TerminalText.sanitise(TerminalText.decodingHTMLEntities(text), maxLength: 300)
    }
}
