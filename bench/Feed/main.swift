// Reddit's Atom feeds measured (issue 31): a cached read of a listing that came through the feed
// against a cached read of the same listing through the JSON API, and the reading of feeds of 1 to
// 5 MB (time and the process's peak memory), built from the recorded feeds' own entries.
//
//   swift run -c release ReaderFeedBench [--reads N]
//
// Prints one JSON object on stdout; bench/run writes it into BENCHMARKS.md.
import Foundation
import ReaderKit
import TestSupport

@main
struct FeedBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let reads = arguments.firstIndex(of: "--reads").flatMap { Int(arguments[$0 + 1]) } ?? 300
        let feed = Data(Fixtures.bytes("reddit-atom/listing_hot_r_worldnews_www_2026.xml"))
        // The same listing both ways: the JSON API's answer is what the feed reads as.
        let json = try RedditFeed.listing.translate(feed, "bench")

        let server = try await TestServer { request in
            request.path.hasSuffix(".rss")
                ? .respond(status: 200, headers: [("Content-Type", "application/atom+xml"), ("Cache-Control", "max-age=3600")], body: Array(feed))
                : .json(Array(json), headers: [("Cache-Control", "max-age=3600")])
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("feed-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        func client(_ source: Reddit.Source, _ name: String) -> ReaderClient {
            let reddit = RedditService(publicBaseURL: URL(string: server.baseURL)!, source: source)
            return ReaderClient(configuration: .init(services: ServiceConfiguration([reddit]),
                                                     cachePath: folder.appendingPathComponent("\(name).sqlite").path))
        }
        let endpoint = try Reddit.posts(subreddit: "worldnews")
        var medians: [String: Double] = [:]
        for (name, source) in [("api", Reddit.Source.api), ("feed", .feed)] {
            let reader = client(source, name)
            _ = try await reader.load(endpoint)
            var times: [Double] = []
            for _ in 0..<reads {
                let start = ContinuousClock.now
                let page = try await reader.load(endpoint, options: LoadOptions(cacheMode: .offline))
                precondition(page.value.posts.count == 25)
                times.append(Self.milliseconds(ContinuousClock.now - start))
            }
            await reader.shutdown()
            medians[name] = times.sorted()[times.count / 2]
        }
        await server.shutdown()

        // Feeds of about 1, 2.5 and 5 MB: a recorded self post's entry again and again, each id its
        // own and its text a few paragraphs long (as long posts are), so that 5 MB stays within
        // AtomFeed.maximumEntries; each read as the translation reads it (the XML, then each
        // entry's HTML as markdown).
        let text = String(decoding: feed, as: UTF8.self)
        let head = String(text[..<text.range(of: "<entry>")!.lowerBound])
        let entries = text.components(separatedBy: "<entry>").dropFirst().map { "<entry>" + $0.replacingOccurrences(of: "</feed>", with: "") }
        let selfPost = entries.first { $0.contains("SC_OFF") } ?? entries[0]
        let paragraph = String(repeating: "&lt;p&gt;A paragraph of a long self post, &lt;a href=&quot;https://example.com/a?b=1&amp;amp;c=2&quot;&gt;with a link&lt;/a&gt; and &lt;em&gt;emphasis&lt;/em&gt;.&lt;/p&gt; ", count: 12)
        let padded = selfPost.replacingOccurrences(of: "&lt;/div&gt;&lt;!-- SC_ON --&gt;", with: paragraph + "&lt;/div&gt;&lt;!-- SC_ON --&gt;")
        var sizes: [[String: Any]] = []
        for megabytes in [1.0, 2.5, 5.0] {
            var body = head
            var count = 0
            while Double(body.utf8.count) < megabytes * 1_000_000 {
                body += padded.replacingOccurrences(of: "<id>t3_", with: "<id>t3_\(String(count, radix: 36))x")
                count += 1
            }
            body += "</feed>"
            let data = Data(body.utf8)
            var best = Double.infinity
            for _ in 0..<3 {
                let start = ContinuousClock.now
                let parsed = try AtomFeed(parsing: data)
                precondition(parsed.entries.count == count)
                var characters = 0
                for entry in parsed.entries { characters += HTMLMarkdown.markdown(from: entry.content).count }
                precondition(characters > 0)
                best = min(best, Self.milliseconds(ContinuousClock.now - start))
            }
            sizes.append(["bytes": data.count, "entries": count, "best_ms": best, "peak_rss_mb": Self.peakResidentMegabytes()])
        }
        let result: [String: Any] = [
            "cached_read_ms": ["api": medians["api"] ?? 0, "feed": medians["feed"] ?? 0],
            "cached_ratio": (medians["feed"] ?? 0) / max(medians["api"] ?? 1, 0.000_001),
            "parse": sizes,
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]), as: UTF8.self))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func peakResidentMegabytes() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
}
