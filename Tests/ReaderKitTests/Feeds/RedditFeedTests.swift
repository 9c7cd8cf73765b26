import Foundation
import GRDB
import Testing
@testable import ReaderKit
import TestSupport

/// Reddit's real Atom feeds (../shared/fixtures/reddit-atom) read into the JSON listings the API
/// gives, with nothing invented, and every hostile feed refused with a code.
@Suite struct RedditFeedTests {
    func listing(_ name: String) throws -> RedditListing {
        let json = try RedditFeed.listing.translate(Data(Fixtures.bytes("reddit-atom/\(name)")), "https://www.reddit.com/x")
        return try ReaderJSON.makeDecoder().decode(RedditListing.self, from: json)
    }

    @Test(.replaysRecordings) func aHotListingReadsAsTheAPIsListingWithNoScores() throws {
        let page = try listing("listing_hot_r_worldnews_www_2026.xml")
        #expect(page.isFromFeed)
        #expect(page.posts.count == 25)
        let first = page.posts[0]
        #expect(first.id == "1vccs2e" && first.name == "t3_1vccs2e")
        #expect(first.author == "WorldNewsMods" && first.subreddit == "worldnews")
        #expect(first.score == nil && first.numComments == nil)
        #expect(first.createdUTC == Date(timeIntervalSince1970: 1_785_556_964))  // 2026-08-01T04:02:44Z
        #expect(first.permalink == "/r/worldnews/comments/1vccs2e/rworldnews_live_thread_russian_invasion_of")
        // A link post: its [link] is the target, not the comments.
        #expect(first.url == "https://www.reddit.com/live/18hnzysb1elcs" && first.isSelf == false)
        // The next page starts after the last entry.
        #expect(page.after == "t3_1vch1dh")
    }

    @Test(.replaysRecordings) func aSelfPostsTextIsMarkdownWithItsParagraphs() throws {
        let post = try listing("listing_hot_r_worldnews_www_2026.xml").posts[1]
        #expect(post.isSelf == true)
        #expect(post.selftext == """
            If you see any newsworthy information from a major news outlet or live broadcast, feel free to share a brief summary as a top-level comment in the discussion post.

            Other redditors will appreciate if you include the source of where you read, saw, or heard the information.
            """)
    }

    @Test(.replaysRecordings) func theOlderShapeWithoutPublishedReadsItsUpdatedDateAndRelativeLinks() throws {
        let page = try listing("listing_r_BuyItForLife_oldreddit_2019.xml")
        #expect(page.posts.count == 26)
        #expect(page.posts[0].createdUTC == Date(timeIntervalSince1970: 1_562_026_705))  // 2019-07-02T00:18:25Z
        #expect(page.posts[0].selftext?.hasPrefix("Welcome to [r/Buyitforlife](/r/Buyitforlife) this is a thread") == true)
        #expect(page.posts[0].selftext?.contains("don't warrant") == true)
        #expect(page.posts[1].url == "https://i.imgur.com/mwezurR.jpg" && page.posts[1].domain == "i.imgur.com")
    }

    @Test(.replaysRecordings, arguments: ["listing_r_all_oldreddit_2021.xml", "listing_r_crisps_oldreddit_2022.xml",
                      "listing_top_week_r_LocalLLaMA_2026.xml", "search_multi_portable_charger_2026.xml"])
    func everyListingFeedReads(name: String) throws {
        let page = try listing(name)
        #expect(!page.posts.isEmpty)
        #expect(page.posts.allSatisfy { $0.score == nil && $0.numComments == nil && !$0.subreddit.isEmpty && !$0.author.isEmpty })
    }

    @Test(.replaysRecordings) func aCommentsFeedIsThePostAndItsCommentsFlat() throws {
        let json = try RedditFeed.comments.translate(Data(Fixtures.bytes("reddit-atom/comments_r_gravelcycling_1qcwxml_www_2026.xml")), "u")
        let page = try ReaderJSON.makeDecoder().decode(RedditCommentPage.self, from: json)
        #expect(page.post.id == "1qcwxml" && page.post.title == "New bike day")
        #expect(page.comments.isFromFeed)
        #expect(page.comments.comments.count == 33)
        #expect(page.comments.comments.allSatisfy { $0.replies == nil && $0.score == nil })
        #expect(page.comments.comments[0].id == "nzlszj8" && page.comments.comments[0].author == "Newyawker2022")
        #expect(page.comments.comments[0].body == "Man watch out my wife is on this app.")
        // A deleted account's comment has no author in the feed: as the API says it.
        #expect(page.comments.comments.filter { $0.author == "[deleted]" }.count == 2)
    }

    @Test(.replaysRecordings) func aFeedTitledPageNotFoundIsANotFound() throws {
        let body = Data(Fixtures.bytes("reddit-atom/error_notfound_comments_r_announcements_5e19z2_www_2026.xml"))
        #expect {
            _ = try RedditFeed.comments.translate(body, "https://www.reddit.com/comments/5e19z2/.rss")
        } throws: { error in
            guard case .status(let failure) = error as? ReaderError else { return false }
            return failure.status == 404 && failure.apiError?.reason == "not_found" && (error as? ReaderError)?.code.description == "A404"
        }
    }

    @Test func aFeedRequestIsTheSameListingsFeedWithoutAcceptAndWithTheKeyAsASecret() throws {
        func feed(_ path: String, _ query: [URLQueryItem] = []) -> ServiceRequest? {
            RedditFeed.request(for: ServiceRequest(path: path, query: query, headers: HeaderFields([
                (name: "Accept", value: "application/json"), (name: "User-Agent", value: "ua")])), key: "k3y0123456789", user: "someone")
        }
        #expect(feed("r/python/hot.json")?.path == "r/python/.rss")
        #expect(feed("hot.json")?.path == ".rss")
        #expect(feed("r/python/top.json")?.path == "r/python/top/.rss")
        #expect(feed("r/python/search.json")?.path == "r/python/search.rss")
        #expect(feed("comments/2xmo63.json")?.path == "comments/2xmo63/.rss")
        #expect(feed("user/spez/submitted.json")?.path == "user/spez/submitted/.rss")
        #expect(feed("r/python/about") == nil)
        let request = try #require(feed("r/python/top.json", [URLQueryItem(name: "limit", value: "5"), URLQueryItem(name: "t", value: "week"),
                                                              URLQueryItem(name: "raw_json", value: "1"), URLQueryItem(name: "depth", value: "2")]))
        #expect(request.query.map(\.name) == ["limit", "t"])
        #expect(request.headers["Accept"] == nil && request.headers["User-Agent"] == "ua")
        #expect(request.secretQuery == [URLQueryItem(name: "feed", value: "k3y0123456789"), URLQueryItem(name: "user", value: "someone")])
        #expect(request.translation?.name == "atom")
    }
}

/// The XML reader refuses what a hostile server can send, each with a D-code, at once.
@Suite struct AtomFeedHostileTests {
    func failure(_ text: String) -> DecodingFailure? {
        do { _ = try AtomFeed(parsing: Data(text.utf8)); return nil } catch {
            guard case .decoding(let failure) = error else { return nil }
            return failure
        }
    }

    @Test func anEntityBombIsRefusedBeforeItIsRead() {
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\
            <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">\
            <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">]>\
            <feed xmlns="http://www.w3.org/2005/Atom"><title>&f;&f;&f;&f;&f;&f;&f;&f;</title></feed>
            """
        let refused = failure(bomb)
        #expect(refused?.reason == .corrupt)
        #expect(refused?.detail == "a document type or markup declaration (\"<!\"), which is never read")
    }

    @Test func anExternalEntityIsNeverResolved() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("atom-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secret = folder.appendingPathComponent("secret.txt")
        try Data("TOP-SECRET-CONTENT".utf8).write(to: secret)
        let xxe = """
            <?xml version="1.0"?><!DOCTYPE feed [<!ENTITY x SYSTEM "file://\(secret.path)">]>\
            <feed xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></feed>
            """
        #expect(failure(xxe)?.reason == .corrupt)
        // Nor without a DOCTYPE to refuse: an undeclared entity is an error, never a file read.
        let undeclared = #"<feed xmlns="http://www.w3.org/2005/Atom"><title>&x;</title></feed>"#
        let refused = failure(undeclared)
        #expect(refused != nil)
        #expect(refused?.detail.contains("TOP-SECRET") == false)
    }

    @Test func aFeedInAnotherEncodingIsRefusedBeforeItIsRead() {
        // UTF-7 could hide a DOCTYPE from the scan for one: `+ADw-` is `<`.
        let utf7 = #"<?xml version="1.0" encoding="UTF-7"?>+ADw-!DOCTYPE feed+AD4-<feed xmlns="http://www.w3.org/2005/Atom"></feed>"#
        #expect(failure(utf7)?.detail == "a feed in the encoding \"UTF-7\", not UTF-8")
        var utf16 = Data([0xFF, 0xFE])
        utf16 += "<!DOCTYPE feed><feed/>".data(using: .utf16LittleEndian)!
        do { _ = try AtomFeed(parsing: utf16); Issue.record("UTF-16 was read") } catch {
            guard case .decoding(let refused) = error else { Issue.record("\(error)"); return }
            #expect(refused.detail == "a feed in UTF-16 or UTF-32, not UTF-8")
        }
        // UTF-8 said as it is, in any case, is read.
        #expect(failure(#"<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>"#) == nil)
    }

    /// From the attack: a declaration after a comment or a processing instruction holding `<x`,
    /// and a document in EBCDIC (no `<` byte at all), reached the parser, which expanded it.
    @Test func aDeclarationIsFoundWhereverItHidesAndAnyOtherStartIsRefused() {
        let entity = #"<!DOCTYPE feed [<!ENTITY e 'EXPANDED_ENTITY'>]><feed xmlns="http://www.w3.org/2005/Atom"><category term="&e;"/></feed>"#
        for prefix in ["<?xml version='1.0'?><!-- <x -->", "<?p <x?>", "<!-- a > b -->\n", "\u{FEFF}"] {
            let refused = failure(prefix + entity)
            #expect(refused?.reason == .corrupt, "\(prefix)")
            #expect(refused?.detail == "a document type or markup declaration (\"<!\"), which is never read", "\(prefix)")
        }
        // A declaration inside a comment or CDATA is text, and the feed is read.
        #expect(failure(#"<feed xmlns="http://www.w3.org/2005/Atom"><!-- <!DOCTYPE x> --><title><![CDATA[<!ENTITY y>]]></title></feed>"#) == nil)
        let ebcdic = Data([0x4C, 0x5A, 0xC4, 0xD6, 0xC3, 0xE3, 0xE8, 0xD7, 0xC5])  // "<!DOCTYPE" in IBM037
        do { _ = try AtomFeed(parsing: ebcdic); Issue.record("EBCDIC was read") } catch {
            guard case .decoding(let refused) = error else { Issue.record("\(error)"); return }
            #expect(refused.detail == "a document that does not start with \"<\" as UTF-8 XML does")
        }
    }

    /// From the attack: libxml2 (which read feeds then) checked a tag's attributes for duplicates in
    /// time that grew with the square of their number (200,000 took a minute). More than 32 are refused.
    @Test func aTagWithManyAttributesIsRefusedBeforeTheParser() {
        let attributes = (0..<200_000).map { "a\($0)=\"v\"" }.joined(separator: " ")
        let feed = #"<feed xmlns="http://www.w3.org/2005/Atom"><entry><x "# + attributes + "/></entry></feed>"
        let refused = failure(feed)
        #expect(refused?.detail == "a tag with more than 32 attributes, more than any feed's")
        // An `=` inside a quoted value is no attribute.
        #expect(failure(#"<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://x/?a=1&amp;b=2&amp;c=3" rel="alternate"/></feed>"#) == nil)
    }

    @Test(.replaysRecordings) func aListingPageHoldsNoMoreThanAPageOfReddits() throws {
        let entry = "<entry><id>t3_a</id><title>x</title><updated>2026-01-01T00:00:00Z</updated></entry>"
        let feed = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>" + String(repeating: entry, count: 101) + "</feed>"
        #expect {
            _ = try RedditFeed.listing.translate(Data(feed.utf8), "u")
        } throws: { error in
            guard case .decoding(let failure) = error as? ReaderError else { return false }
            return failure.reason == .invalidValue && failure.detail == "101 entries, more than the 100 a page of Reddit's holds"
        }
    }

    @Test func aFeedsFailureSaysItIsAFeedsNotJSONs() {
        let notXML = ReaderError.decoding(DecodingFailure(.corrupt, codingPath: "", detail: "not well-formed XML at line 1, column 1", url: "u",
                                                          format: AtomFeed.format))
        #expect(notXML.message == "the answer is not an Atom feed that can be read: not well-formed XML at line 1, column 1")
        let html = ReaderError.contentType(ContentTypeFailure(contentType: "text/html", url: "u", pageTitle: "Sign in", expected: AtomFeed.format))
        #expect(html.message == "expected an Atom feed but got text/html (a page titled \"Sign in\")")
    }

    @Test func aDetourIsNeverHeldLongerThanItsMemory() {
        let seen = Date(timeIntervalSince1970: 1_790_000_000)
        let forged = DetourState(origin: "https://www.reddit.com", service: "reddit", observedAt: seen, until: Date(timeIntervalSince1970: 4_102_444_800))
        #expect(forged.enforcedUntil(memory: .seconds(86_400)) == seen.addingTimeInterval(86_400))
        #expect(forged.isInForce(at: seen.addingTimeInterval(3600), memory: .seconds(86_400)))
        #expect(!forged.isInForce(at: seen.addingTimeInterval(86_401), memory: .seconds(86_400)))
        // A block page the file says came later than now is not believed.
        #expect(!forged.isInForce(at: seen.addingTimeInterval(-3600), memory: .seconds(86_400)))
    }

    @Test func deepNestingIsRefused() {
        let deep = "<feed>" + String(repeating: "<a>", count: 1000) + String(repeating: "</a>", count: 1000) + "</feed>"
        let refused = failure(deep)
        #expect(refused?.reason == .invalidValue)
        #expect(refused?.detail.contains("nested deeper than 32") == true)
    }

    @Test func tooManyEntriesAreRefused() {
        let entry = "<entry><id>t3_a</id><title>x</title><updated>2026-01-01T00:00:00Z</updated></entry>"
        let feed = "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>" + String(repeating: entry, count: 100_000) + "</feed>"
        let refused = failure(feed)
        #expect(refused?.reason == .invalidValue)
        #expect(refused?.detail.contains("more than 2000 entries") == true)
    }

    @Test func invalidUTF8AndMalformedXMLAreCorrupt() {
        var bytes = Data("<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>".utf8)
        bytes += Data([0xFF, 0xFE, 0xC3])
        bytes += Data("</title></feed>".utf8)
        do { _ = try AtomFeed(parsing: bytes); Issue.record("invalid UTF-8 was read") } catch {
            guard case .decoding(let failure) = error else { Issue.record("\(error)"); return }
            #expect(failure.reason == .corrupt)
        }
        #expect(failure("<feed><title>unclosed</feed>")?.reason == .corrupt)
        #expect(failure("")?.reason == .corrupt)
        #expect(failure("{\"kind\": \"Listing\"}")?.reason == .corrupt)
    }

    @Test func xmlThatIsNotAFeedIsATypeMismatch() {
        #expect(failure("<rss version=\"2.0\"><channel></channel></rss>")?.reason == .typeMismatch)
        #expect(failure("<html><body>blocked</body></html>")?.reason == .typeMismatch)
    }

    @Test func onlyThePredefinedEntitiesAndCharacterReferencesAreRead() throws {
        let feed = try AtomFeed(parsing: Data(#"<feed xmlns="http://www.w3.org/2005/Atom"><title>a &amp; b &lt;c&gt; &#233; &#x263A; &quot;&apos;</title></feed>"#.utf8))
        #expect(feed.title == "a & b <c> é ☺ \"'")
    }
}

/// HTML as the markdown a reader shows.
@Suite struct HTMLMarkdownTests {
    @Test func blocksAndInlineMarksBecomeMarkdown() {
        let html = """
            <div class="md"><p>First <strong>bold</strong> and <em>it</em> with <a href="https://x.org/a?b=1&amp;c=2">a link</a>.</p>
            <ul><li>one</li><li>two <code>x</code></li></ul><ol><li>first</li><li>second</li></ol>
            <blockquote><p>quoted</p></blockquote><pre><code>let a = 1
              indented &lt;tag&gt;
            </code></pre><p>after&#32;&amp;&nbsp;end</p></div>
            """
        #expect(HTMLMarkdown.markdown(from: html) == """
            First **bold** and *it* with [a link](https://x.org/a?b=1&c=2).

            - one
            - two `x`

            1. first
            2. second

            > quoted

            ```
            let a = 1
              indented <tag>
            ```

            after &\u{A0}end
            """)
    }

    @Test func scriptsCommentsAndUnclosedTagsLeaveOnlyText() {
        #expect(HTMLMarkdown.markdown(from: "<p>a<script>alert(1)</script>b<!-- hidden -->c</p>") == "abc")
        #expect(HTMLMarkdown.markdown(from: "<p>x < y and <b unclosed") == "x < y and <b unclosed")
        #expect(HTMLMarkdown.markdown(from: "<img src=\"a.png\" alt=\"a picture\"/>") == "a picture")
    }
}

/// The engine's side of a detour: the secret query goes with each request to its origin, once,
/// even after a same-origin redirect that echoes it; never into the stored URL or the metadata.
@Suite struct SecretQueryTests {
    @Test(.replaysRecordings) func theFeedKeyGoesOnceToItsOriginAndIsNeverStored() async throws {
        let key = "feedkey0123456789abcdef"
        try await withTestServer { request in
            request.path == "/r/moved/.rss"
                ? .respond(status: 301, headers: [("Location", "/r/worldnews/.rss?feed=\(key)&user=someone&limit=25")], body: [])
                : .respond(status: 200, headers: [("Content-Type", "application/atom+xml")],
                           body: Fixtures.bytes("reddit-atom/listing_hot_r_worldnews_www_2026.xml"))
        } body: { server in
            let folder = TemporaryFolder("secret-query")
            let feedKey: RedditFeedKey = try #require(RedditFeedKey(key: key, user: "someone"))
            let reddit = RedditService(publicBaseURL: URL(string: server.baseURL)!, source: .feed, feedKey: feedKey)
            let client = ReaderClient(configuration: .init(services: ServiceConfiguration([reddit]),
                                                           cachePath: folder.url.appendingPathComponent("c.sqlite").path))
            let page = try await client.load(try Reddit.posts(subreddit: "moved"))
            await client.shutdown()
            #expect(page.value.posts.count == 25)
            #expect(server.requests.map(\.target) == ["/r/moved/.rss?limit=25&feed=\(key)&user=someone",
                                                      "/r/worldnews/.rss?limit=25&feed=\(key)&user=someone"])
            #expect(!page.metadata.url.contains(key))
            let bytes = try Data(contentsOf: folder.url.appendingPathComponent("c.sqlite"))
            let wal = (try? Data(contentsOf: folder.url.appendingPathComponent("c.sqlite-wal"))) ?? Data()
            #expect(bytes.range(of: Data(key.utf8)) == nil && wal.range(of: Data(key.utf8)) == nil)
        }
    }
}

/// From the attack: a `detour` table another program left in another shape made every run say
/// C1004 and never remembered a detour. It is read as none, and made again when written.
@Suite struct DetourTableDamageTests {
    @Test func aDamagedDetourTableIsMadeAgainWhenWritten() async throws {
        let folder = TemporaryFolder("detour-damage")
        let path = folder.url.appendingPathComponent("c.sqlite").path
        let cache = try ResponseCache.open(path: path)
        cache.close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            try db.execute(sql: "DROP TABLE detour")
            try db.execute(sql: "CREATE TABLE detour (x)")
        }
        try queue.close()
        let reopened = try ResponseCache.open(path: path)
        #expect(try await reopened.detours().isEmpty)
        let state = DetourState(origin: "https://www.reddit.com", service: "reddit", observedAt: Date(timeIntervalSince1970: 1_790_000_000),
                                until: Date(timeIntervalSince1970: 1_790_086_400))
        try await reopened.storeDetour(state)
        #expect(try await reopened.detours() == [state])
        _ = try await reopened.clear()
        #expect(try await reopened.detours().isEmpty)
        reopened.close()
    }
}
