import Foundation
import ReaderCLI
import ReaderKit
import ReaderTerminal

/// `reader browse` measured in the process, for bench/run: the browser on a screen holding
/// synthetic data (``BrowseBenchSession``, the app's hook), keys pressed one by one, and what each
/// cost — the time from the key to its finished frame (`update`, `view`,
/// ``FrameRenderer/bytes(for:after:colour:)``), the bytes written and the cells that changed.
enum BrowseMeasurements {
    /// What a scroll cost, key by key.
    struct Scroll: Sendable {
        /// From the answer's message to its finished frame (the first frame with the data).
        var answerNanoseconds: Int
        /// Each key, in order: `update`, `view` and the renderer's bytes, in nanoseconds.
        var keyNanoseconds: [Int] = []
        /// Each key's bytes written (UTF-8).
        var bytes: [Int] = []
        /// Each key's cells that differ from the frame before.
        var changedCells: [Int] = []
        /// How many keys were `↓` (the rest, after them, `↑`).
        var downs = 0
        /// The screen with the data, as text, before the first key.
        var firstScreen = ""
    }

    /// What the first screen holds.
    enum Subject: Sendable {
        /// `r/bench`'s post list of `posts` posts, loaded as one answer.
        case postList(posts: Int)
        /// A post and its comments: a ``syntheticThread(comments:)`` page (its JSON).
        case thread(Data)
    }

    /// Shows `subject` at `size`, then presses `↓` until the frame stops changing (or
    /// `maximumKeys`), then `↑` as many times.
    static func scroll(_ subject: Subject, size: TerminalSize, colour: Bool, maximumKeys: Int = 100_000) throws -> Scroll {
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let metadata = try ReaderJSON.makeDecoder().decode(LoadMetadata.self, from: Data("""
            {"source": "cache", "stale": false, "fetched_at": \(now.timeIntervalSince1970 - 60), "age_seconds": 60,
             "url": "https://www.reddit.com/r/bench/hot.json"}
            """.utf8))
        let session: BrowseBenchSession.Subject
        switch subject {
        case .postList(let count):
            let posts = (0..<count).map { syntheticPost($0, now: now) }
            session = .postList(RedditListing(after: nil, children: posts.map { .post($0) }))
        case .thread(let json):
            session = .thread(try ReaderJSON.makeDecoder().decode(RedditCommentPage.self, from: json))
        }
        var browser = BrowseBenchSession(session, metadata: metadata, size: size, now: now)
        var shown = browser.view(size: size)
        _ = FrameRenderer.bytes(for: shown, after: nil, colour: colour)

        let clock = ContinuousClock()
        let answered = clock.now
        browser.deliver()
        var frame = browser.view(size: size)
        _ = FrameRenderer.bytes(for: frame, after: shown, colour: colour)
        var scroll = Scroll(answerNanoseconds: nanoseconds(clock.now - answered), firstScreen: frame.text)
        shown = frame

        func press(_ key: Key) -> Bool {
            let start = clock.now
            browser.press(key)
            frame = browser.view(size: size)
            let bytes = FrameRenderer.bytes(for: frame, after: shown, colour: colour)
            scroll.keyNanoseconds.append(nanoseconds(clock.now - start))
            scroll.bytes.append(bytes.utf8.count)
            let changed = changedCells(from: shown, to: frame)
            scroll.changedCells.append(changed)
            shown = frame
            return changed > 0
        }
        // Down to the end: the end is where ten keys in a row changed nothing.
        var unchanged = 0
        while scroll.downs < maximumKeys, unchanged < 10 {
            unchanged = press(.down) ? 0 : unchanged + 1
            scroll.downs += 1
        }
        for _ in 0..<scroll.downs { _ = press(.up) }
        return scroll
    }

    /// The cells of `new` that differ from `old`'s, compared one by one.
    static func changedCells(from old: Grid, to new: Grid) -> Int {
        var count = 0
        for y in 0..<new.size.rows {
            for x in 0..<new.size.columns where old[x: x, y: y] != new[x: x, y: y] { count += 1 }
        }
        return count
    }

    /// Post number `number` of a synthetic list: titles of realistic, varied lengths.
    static func syntheticPost(_ number: Int, now: Date) -> RedditPost {
        var random = Random(seed: UInt64(number) &+ 1)
        let title = random.sentence(words: 4 + random.next(below: 14))
        return RedditPost(id: "b\(number)", name: "t3_b\(number)", title: title, author: "author\(random.next(below: 400))",
                          subreddit: "bench", score: random.next(below: 20_000), numComments: random.next(below: 2_000),
                          createdUTC: now.addingTimeInterval(-Double(60 + random.next(below: 86_400))),
                          permalink: "/r/bench/comments/b\(number)/", url: "https://example.com/\(number)", domain: "example.com")
    }

    /// A post page as Reddit answers `/comments/{id}.json` (`raw_json=1`), with `comments`
    /// comments: top-level ones with replies nested up to five levels, bodies of a sentence to
    /// a few paragraphs (some with a link or a code block), and the fields Reddit sends beside
    /// those reader reads (`body_html`, `parent_id`, `permalink`…), so that the page weighs
    /// about what a real one does. The same for the same arguments.
    static func syntheticThread(comments: Int, post id: String = "bench5k") throws -> Data {
        let created = 1_789_990_000.0
        var random = Random(seed: 5_000)
        // The depth of each comment in order: each reply's parent is the last comment one level up.
        let depths = [0, 1, 2, 3, 2, 1, 2, 3, 4, 5, 1, 0, 1, 1, 2]
        var nodes: [(depth: Int, data: [String: Any], replies: [Any])] = []
        var roots: [Any] = []
        func close(to depth: Int) {
            while let last = nodes.last, last.depth >= depth {
                nodes.removeLast()
                var data = last.data
                data["replies"] = last.replies.isEmpty ? "" as Any : listing(last.replies) as Any
                let thing: [String: Any] = ["kind": "t1", "data": data]
                if nodes.isEmpty { roots.append(thing) } else { nodes[nodes.count - 1].replies.append(thing) }
            }
        }
        for number in 0..<comments {
            let depth = min(depths[number % depths.count], nodes.count)
            close(to: depth)
            let body = random.body()
            let commentID = "c\(String(number, radix: 36))"
            let data: [String: Any] = [
                "id": commentID, "name": "t1_" + commentID, "author": "commenter\(random.next(below: 2_000))",
                "body": body, "body_html": "<div class=\"md\"><p>" + body.replacingOccurrences(of: "\n\n", with: "</p>\n\n<p>") + "</p>\n</div>",
                "score": random.next(below: 3_000) - 100, "created_utc": created + Double(number * 7),
                "parent_id": nodes.last.map { "t1_" + ($0.data["id"] as? String ?? "") } ?? "t3_" + id,
                "link_id": "t3_" + id, "subreddit": "bench", "subreddit_id": "t5_2qh0y", "depth": depth,
                "permalink": "/r/bench/comments/\(id)/a_thread_of_five_thousand_comments/\(commentID)/",
                "ups": 1, "downs": 0, "controversiality": 0, "gilded": 0, "stickied": false, "is_submitter": false,
                "score_hidden": false, "collapsed": false, "edited": false, "archived": false, "locked": false,
                "author_flair_text": NSNull(), "distinguished": NSNull(), "all_awardings": [Any](),
            ]
            nodes.append((depth, data, []))
        }
        close(to: 0)
        let post: [String: Any] = [
            "kind": "t3", "data": [
                "id": id, "name": "t3_" + id, "title": "A thread of \(comments) comments", "author": "bench",
                "subreddit": "bench", "score": 12_345, "num_comments": comments, "created_utc": created,
                "permalink": "/r/bench/comments/\(id)/a_thread_of_five_thousand_comments/",
                "url": "https://www.reddit.com/r/bench/comments/\(id)/", "domain": "self.bench", "is_self": true,
                "selftext": random.body(), "over_18": false, "stickied": false, "upvote_ratio": 0.97,
            ] as [String: Any],
        ]
        return try JSONSerialization.data(withJSONObject: [listing([post]), listing(roots)])
    }

    private static func listing(_ children: [Any]) -> [String: Any] {
        ["kind": "Listing", "data": ["after": NSNull(), "before": NSNull(), "children": children] as [String: Any]]
    }

    private static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    /// SplitMix64: the same text for the same seed, on every machine.
    private struct Random {
        var state: UInt64

        init(seed: UInt64) { state = seed }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func next(below bound: Int) -> Int { Int(next() % UInt64(bound)) }

        static let words = ["the", "a", "python", "async", "function", "really", "think", "because", "library",
                            "you", "it", "works", "error", "when", "is", "not", "with", "code", "type", "just",
                            "performance", "memory", "list", "but", "that", "this", "would", "should", "release",
                            "version", "test", "actually", "interpreter", "dictionary", "comprehension", "of", "and"]

        mutating func sentence(words count: Int) -> String {
            let text = (0..<count).map { _ in Self.words[next(below: Self.words.count)] }.joined(separator: " ")
            return text.prefix(1).uppercased() + text.dropFirst()
        }

        /// A comment's body: mostly a sentence or three; some paragraphs, a link, a code block.
        mutating func body() -> String {
            let paragraphs = [1, 1, 1, 1, 2, 2, 3, 5][next(below: 8)]
            var parts: [String] = []
            for _ in 0..<paragraphs {
                let sentences = 1 + next(below: 4)
                parts.append((0..<sentences).map { _ in sentence(words: 5 + next(below: 20)) + "." }.joined(separator: " "))
            }
            switch next(below: 10) {
            case 0: parts.append("See [the docs](https://docs.python.org/3/library/asyncio-task.html) for more.")
            case 1: parts.append("    for item in items:\n        total += item.price\n    return total")
            default: break
            }
            return parts.joined(separator: "\n\n")
        }
    }
}
