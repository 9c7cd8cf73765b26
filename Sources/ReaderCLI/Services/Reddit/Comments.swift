import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

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
            catch { throw ValidationError(CLIWording.message(of: error)) }
        }

        func run() async throws {
            let now = Date()
            let width = Terminal.outputWidth()
            let style = options.style
            try await CommandRunner.run(try Reddit.comments(post: post, sort: sort, depth: depth, limit: limit), options: options,
                                        jsonItem: { raw in
                .object(["post": raw[0]?["data"]?["children"]?[0]?["data"] ?? .null,
                         "comments": raw[1]?["data"]?["children"] ?? .array([])])
            }, jsonMeta: { raw in
                // Which way it came (api or feed); `source` says network, cache or revalidated.
                ["route": raw[1]?["data"]?["source"] ?? .string("api")]
            }, render: { page in
                var lines = CommentTree.header(page.post, now: now, width: width, style: style)
                lines.append("")
                // Said once, before them: the feed's comments come flat, and are shown so.
                if page.comments.isFromFeed, !page.comments.comments.isEmpty {
                    let count = page.comments.comments.count
                    lines += [style.dim("\(count) \(count == 1 ? "comment" : "comments") as Reddit's Atom feed gives them: in its order, with no nesting"), ""]
                }
                let tree = CommentTree.lines(page.comments.children, depth: 0, now: now, width: width, style: style)
                lines += tree.isEmpty ? ["no comments yet"] : tree
                return (lines.joined(separator: "\n"), nil)
            })
        }
    }
}

/// A post and its comments as indented text, every piece of it sanitised, read the way a good
/// reader shows them: prose lines at most ``proseWidth`` cells wide, indentation included; code blocks (indented or fenced)
/// as they were written, never re-wrapped; links as their text with a numbered note giving the
/// URL whole; meta lines wrapped between their parts. On a terminal no line is wider than
/// `width`: a code line or a URL too long for it is broken across lines, never cut. With no width
/// (output to a pipe) only prose wraps, at ``proseWidth``.
package enum CommentTree {
    /// The deepest indentation drawn; deeper replies stay at this level so text keeps some room.
    static let maximumIndent = 12

    /// The widest a line of prose runs, in cells and counting its indentation, however wide the
    /// terminal: longer lines are hard to read.
    static let proseWidth = 100

    /// The most characters of one post's or comment's text shown, as a bound on the work.
    static let maximumTextLength = 40_000

    package static func header(_ post: RedditPost, now: Date, width: Int?, style: Style) -> [String] {
        let parts = headerParts(post, now: now, width: width, style: style)
        return parts.title + parts.meta + parts.content
    }

    /// A post's header in its three parts, for a view that styles each: the title's lines, the
    /// meta lines (subreddit, author, points, comments, age), and the self text (after a blank
    /// line) or the link.
    static func headerParts(_ post: RedditPost, now: Date, width: Int?, style: Style)
        -> (title: [String], meta: [String], content: [String]) {
        let title = TerminalText.wrap(clean(post.title), toWidth: min(width ?? proseWidth, proseWidth), breakingLongWords: true)
            .map(style.bold)
        let age = RelativeAge.describe(from: post.createdUTC, to: now)
        // A feed's post has no score and no comment count: left out, never shown as 0.
        let meta = metaLines(["r/" + clean(post.subreddit), "u/" + clean(post.author), post.score.map { count($0, "point", "points") },
                              post.numComments.map { count($0, "comment", "comments") }, "\(age) ago"].compactMap { $0 }.map { ($0, style.dim) },
                             indent: "", width: width, style: style)
        var content: [String] = []
        if post.isSelf == true, let text = post.selftext, !text.isEmpty {
            content.append("")
            content += body(text, indent: "", width: width)
        } else if let url = post.url {
            content += brokenToFit(TerminalText.sanitise(url, maxLength: 4000), indent: "", width: width).map(style.cyan)
        }
        return (title, meta, content)
    }

    package static func lines(_ things: [RedditThing], depth: Int, now: Date, width: Int?, style: Style) -> [String] {
        var lines: [String] = []
        for block in blocks(things, depth: depth, now: now, width: width, style: style) {
            if block.opensThread, !lines.isEmpty { lines.append("") }
            lines += block.header + block.body
        }
        return lines
    }

    /// The tree as blocks, one a comment or "more" stub, in reading order (a comment, then its
    /// replies): what ``lines(_:depth:now:width:style:)`` joins, and what a view that folds
    /// comments keeps.
    static func blocks(_ things: [RedditThing], depth: Int, now: Date, width: Int?, style: Style) -> [CommentBlock] {
        let indent = indentation(depth: depth, width: width)
        var blocks: [CommentBlock] = []
        for thing in things {
            switch thing {
            case .comment(let comment):
                let index = blocks.count
                blocks.append(CommentBlock(depth: depth, comment: comment,
                                           header: commentHeader(comment, depth: depth, now: now, width: width, style: style),
                                           body: body(comment.body, indent: indent + "  ", width: width)))
                if let replies = comment.replies?.children, !replies.isEmpty {
                    blocks += self.blocks(replies, depth: depth + 1, now: now, width: width, style: style)
                    blocks[index].replies = blocks.count - index - 1
                }
                if comment.levelsNotKept > 0 {
                    blocks.append(notShownLevels(comment.levelsNotKept, depth: depth + 1, width: width, style: style))
                    blocks[index].replies = blocks.count - index - 1
                }
            case .more(let more):
                let text = more.count > 0
                    ? "… \(more.count) more \(more.count == 1 ? "reply" : "replies") not loaded"
                    : "… the thread continues deeper (not loaded)"
                blocks.append(CommentBlock(depth: depth, comment: nil,
                                           header: metaLines([(text, style.dim)], indent: indent, width: width, style: style),
                                           body: []))
            case .post, .other:
                continue
            }
        }
        return blocks
    }

    /// The note that stands for replies sent `levels` levels deep below a comment and not shown
    /// (the tree is cut for depth): never dropped silently.
    static func notShownLevels(_ levels: Int, depth: Int, width: Int?, style: Style) -> CommentBlock {
        let text = "… \(levels) more \(levels == 1 ? "level" : "levels") of replies not shown (--json has them)"
        return CommentBlock(depth: depth, comment: nil,
                            header: metaLines([(text, style.dim)], indent: indentation(depth: depth, width: width), width: width, style: style),
                            body: [])
    }

    /// A comment's meta lines (author, points, age) at `depth`; `mark` (`new`, `[+3]`) is a
    /// last part, so that it ends the last line.
    static func commentHeader(_ comment: RedditComment, depth: Int, now: Date, width: Int?, style: Style,
                              mark: String? = nil) -> [String] {
        let age = RelativeAge.describe(from: comment.createdUTC, to: now)
        // Typed, so that no array of `@Sendable` closures is converted at run time (which traps).
        var parts: [(String, (String) -> String)] = [("u/" + clean(comment.author), style.cyan)]
        if let score = comment.score { parts.append((count(score, "point", "points"), style.dim)) }
        parts.append(("\(age) ago", style.dim))
        if let mark { parts.append((mark, style.bold)) }
        return metaLines(parts, indent: indentation(depth: depth, width: width), width: width, style: style)
    }

    /// The indentation of replies `depth` levels down. It never takes more than half a narrow
    /// terminal.
    private static func indentation(depth: Int, width: Int?) -> String {
        let levels = min(depth, maximumIndent / 2, max(0, ((width ?? Int.max / 2) / 2 - 2) / 2))
        return String(repeating: "  ", count: levels)
    }

    /// `1 point`, `12 points`, `12.4k points`.
    static func count(_ value: Int, _ one: String, _ many: String) -> String {
        "\(Compact.number(value)) \(value == 1 ? one : many)"
    }

    /// Parts joined with ` · `, wrapped between parts to the room after `indent`; a part wider
    /// than a line is broken. Each part is styled on its own, after it is measured.
    private static func metaLines(_ parts: [(String, (String) -> String)], indent: String, width: Int?, style: Style) -> [String] {
        let room = width.map { max(10, $0 - TerminalText.width(indent)) }
        let separator = " · "
        var lines: [String] = []
        var line = ""
        var used = 0
        for (text, styled) in parts {
            for piece in room.map({ TerminalText.width(text) > $0 ? TerminalText.chunks(text, ofWidth: $0) : [text] }) ?? [text] {
                let next = TerminalText.width(piece)
                if used > 0, let room, used + separator.count + next > room {
                    lines.append(line); line = ""; used = 0
                }
                if used > 0 { line += style.dim(separator); used += separator.count }
                line += styled(piece)
                used += next
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.map { indent + $0 }
    }

    /// A comment's or a self post's text (Reddit's markdown) as lines under `indent`.
    static func body(_ text: String, indent: String, width: Int?) -> [String] {
        let indentWidth = TerminalText.width(indent)
        let room = width.map { max(10, $0 - indentWidth) }
        // The indentation is part of the line: prose ends at `proseWidth` from the left edge,
        // piped or on a terminal however wide, at any depth.
        let prose = min(room ?? Int.max, max(10, proseWidth - indentWidth))
        var lines: [String] = []
        var notes: [String] = []
        var budget = maximumTextLength
        var fenced = false
        var inCode = false
        var previousBlank = true
        // Cut before its entities are read: no more is shown than the budget, and an entity is at
        // most ten characters (`&#x10FFFF;`).
        let shown = text.utf8.count > maximumTextLength * 10 ? String(text.prefix(maximumTextLength * 10)) : text
        let source = TerminalText.decodingHTMLEntities(shown).replacingOccurrences(of: "\r\n", with: "\n")
        for raw in source.split(separator: "\n", omittingEmptySubsequences: false) {
            guard budget > 0 else { lines.append("…"); break }
            // Tabs are spaces here, so that indentation survives sanitising.
            let line = TerminalText.sanitise(raw.replacingOccurrences(of: "\t", with: "    "), maxLength: budget)
            budget -= line.count
            let content = line.drop { $0 == " " }
            if content.hasPrefix("```") || content.hasPrefix("~~~") {
                fenced.toggle()
                previousBlank = false
                continue
            }
            if fenced {
                lines += brokenToFit("    " + line, indent: indent, width: width)
                continue
            }
            if content.isEmpty {
                if !(lines.last?.isEmpty ?? true) { lines.append("") }
                previousBlank = true
                continue
            }
            // Markdown's indented code block: four spaces, after a blank line or more code.
            if line.hasPrefix("    "), previousBlank || inCode {
                inCode = true
                lines += brokenToFit(line, indent: indent, width: width)
                continue
            }
            inCode = false
            previousBlank = false
            // Prose keeps its own leading spaces as a hanging indent, then wraps.
            let lead = min(line.count - content.count, prose / 2)
            let wrapped = TerminalText.wrap(linksAsNotes(String(content), notes: &notes), toWidth: prose - lead, breakingLongWords: true)
            lines += wrapped.map { indent + String(repeating: " ", count: lead) + $0 }
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        for (number, url) in notes.enumerated() {
            lines += brokenToFit("[\(number + 1)] " + url, indent: indent, width: width)
        }
        return lines
    }

    /// Markdown links `[text](url)` as `text[1]`, the URL kept in `notes`; a link whose text is
    /// its URL (or empty) as the URL. Anything else is left as it is.
    static func linksAsNotes(_ line: String, notes: inout [String]) -> String {
        var result = ""
        var rest = Substring(line)
        // The next `]` and where its link's URL ends, kept while they lie ahead: every `[` before
        // them has the same, so a text of many `[` is read once, not once a bracket.
        var nextClose: (searched: Bool, close: Substring.Index?) = (false, nil)
        var urlEnd: (close: Substring.Index, end: Substring.Index?)?
        while let open = rest.firstIndex(of: "[") {
            let afterOpen = rest.index(after: open)
            if !nextClose.searched || nextClose.close.map({ $0 < afterOpen }) == true {
                nextClose = (true, rest[afterOpen...].firstIndex(of: "]"))
            }
            guard let close = nextClose.close else { break }
            if urlEnd?.close != close {
                let hasURL = rest.index(after: close) < rest.endIndex && rest[rest.index(after: close)] == "("
                urlEnd = (close, hasURL ? closingParenthesis(in: rest[rest.index(close, offsetBy: 2)...]) : nil)
            }
            guard let end = urlEnd?.end else {
                result += rest[..<afterOpen]
                rest = rest[afterOpen...]
                continue
            }
            let label = rest[afterOpen..<close].trimmingCharacters(in: .whitespaces)
            let url = String(rest[rest.index(close, offsetBy: 2)..<end])
            result += rest[..<open]
            if label.isEmpty || label == url || url.isEmpty {
                result += label.isEmpty ? url : label
            } else {
                notes.append(url)
                result += "\(label)[\(notes.count)]"
            }
            rest = rest[rest.index(after: end)...]
        }
        return result + rest
    }

    /// Where a link's URL ends: the `)` that closes it, allowing parentheses inside it
    /// (Wikipedia's `Swift_(programming_language)`); nil when a space or the end comes first.
    private static func closingParenthesis(in text: Substring) -> Substring.Index? {
        var depth = 0
        for index in text.indices {
            switch text[index] {
            case "(": depth += 1
            case ")" where depth == 0: return index
            case ")": depth -= 1
            case " ": return nil
            default: continue
            }
        }
        return nil
    }

    /// `text` under `indent` as it is, broken into pieces that fit when it is wider than the
    /// room (never cut); whole when there is no width. A piece after the first starts at the
    /// column `text` itself starts at (its leading spaces), so that a broken code line stays
    /// inside its block.
    private static func brokenToFit(_ text: String, indent: String, width: Int?) -> [String] {
        guard let width else { return [indent + text] }
        let room = max(10, width - TerminalText.width(indent))
        guard TerminalText.width(text) > room else { return [indent + text] }
        let hanging = min(text.prefix { $0 == " " }.count, room / 2)
        let first = TerminalText.chunks(text, ofWidth: room)[0]
        let rest = String(text.dropFirst(first.count))
        return [indent + first] + TerminalText.chunks(rest, ofWidth: room - hanging).map {
            indent + String(repeating: " ", count: hanging) + $0
        }
    }

    static func clean(_ text: String) -> String {
        TerminalText.sanitise(TerminalText.decodingHTMLEntities(text), maxLength: 300)
    }
}

/// One comment of a tree, or a stub for comments Reddit did not send, as lines: what
/// ``CommentTree/blocks(_:depth:now:width:style:)`` makes.
struct CommentBlock: Sendable {
    /// How many levels of replies down it is: 0 for a top-level comment.
    var depth: Int
    /// The comment; nil for a stub (`… 3 more replies not loaded`).
    var comment: RedditComment?
    /// Its meta lines (author, points, age), indented; a stub's one line.
    var header: [String]
    /// Its text and link notes, indented.
    var body: [String]
    /// How many blocks after it are its replies, at any depth.
    var replies = 0

    /// Whether a blank line comes before it when it is not the first: a top-level comment
    /// starts a thread, and each thread reads as one.
    var opensThread: Bool { depth == 0 && comment != nil }
}
