import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// Reddit for a reader its JSON API turns away: a loopback Reddit that answers every `.json` with
/// its block page and its feeds with the real recorded ones. `reader` reads through the feeds at
/// once, in the same run, says once what they lack, and goes straight to them afterwards.
@Suite(.processSlot) struct RedditFeedEndToEndTests {
    static let blockPage = Array("""
        <!doctype html><html><head><title>Reddit - Blocked</title></head><body>
        <h1>You've been blocked by network security.</h1>
        <p>To continue, log in to your Reddit account or use your developer token</p></body></html>
        """.utf8)

    static func feed(_ name: String) -> TestServer.Reply {
        .respond(status: 200, headers: [("Content-Type", "application/atom+xml; charset=UTF-8")], body: Fixtures.bytes("reddit-atom/\(name)"))
    }

    /// Reddit as anonymous readers meet it since May 2026.
    static func blockedReddit(_ request: TestServer.Request) -> TestServer.Reply {
        if request.path.hasSuffix(".json") {
            return .respond(status: 403, headers: [("Content-Type", "text/html; charset=utf-8")], body: blockPage)
        }
        switch request.path {
        case "/r/worldnews/.rss": return feed("listing_hot_r_worldnews_www_2026.xml")
        case "/r/LocalLLaMA/top/.rss": return feed("listing_top_week_r_LocalLLaMA_2026.xml")
        case "/r/electronics+gadgets/search.rss": return feed("search_multi_portable_charger_2026.xml")
        case "/.rss": return feed("listing_r_all_oldreddit_2021.xml")
        case "/comments/5e19z2/.rss": return feed("error_notfound_comments_r_announcements_5e19z2_www_2026.xml")
        case _ where request.path.hasPrefix("/comments/") && request.path.hasSuffix("/.rss"):
            return feed("comments_r_gravelcycling_1qcwxml_www_2026.xml")
        default:
            return .respond(status: 404, headers: [("Content-Type", "text/html")], body: Array("<html><title>404</title></html>".utf8))
        }
    }

    static func jsonRequests(_ server: TestServer) -> Int { server.requests.filter { $0.path.hasSuffix(".json") }.count }

    @Test(.replaysRecordings) func postsGoToTheFeedInTheSameRunAndStraightThereInTheNext() async throws {
        try await withTestServer(Self.blockedReddit) { server in
            let reader = ReaderProcess(server: server)
            let first = try await reader.run("posts", "worldnews")
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("Charter flights to bring about 150 greyhounds"), "\(first.stdout)")
            // Nothing invented: no score and no comment count columns.
            #expect(!first.stdout.contains("SCORE") && !first.stdout.contains("COMMENTS") && first.stdout.contains("TITLE"), "\(first.stdout)")
            // Told once what the feed lacks; no error.
            #expect(first.stderr.contains("reading Reddit's Atom feeds instead"), "\(first.stderr)")
            #expect(!first.stderr.contains("error"), "\(first.stderr)")
            #expect(Self.jsonRequests(server) == 1)
            // The feed request carries no Accept header, and Reddit's User-Agent.
            let feedRequest = try #require(server.requests.first { $0.path == "/r/worldnews/.rss" })
            #expect(feedRequest.headers["accept"] == nil)
            #expect(feedRequest.headers["user-agent"]?.hasPrefix("linux:reader:") == true)

            // Every sort and period, by another run: no JSON request any more.
            let top = try await reader.run("posts", "LocalLLaMA", "--sort", "top", "--time", "week", "--limit", "25")
            #expect(top.status == 0, "\(top.stderr)")
            #expect(top.stdout.contains("So... anyone copped one of these?"), "\(top.stdout)")
            #expect(!top.stderr.contains("reading Reddit's Atom feeds instead"), "said once: \(top.stderr)")
            #expect(Self.jsonRequests(server) == 1)
            let topRequest = try #require(server.requests.last)
            #expect(topRequest.query["t"] == "week" && topRequest.query["limit"] == "25" && topRequest.query["raw_json"] == nil)

            // `reader status` shows it; `cache clear` forgets it.
            let status = try await reader.run("status", "--json")
            let detours = status.json?["detours"] as? [[String: Any]]
            #expect(detours?.first?["service"] as? String == "reddit", "\(status.stdout)")
            #expect(detours?.first?["host"] as? String == server.baseURL, "\(status.stdout)")
            let text = try await reader.run("status")
            #expect(text.stdout.contains("read through its Atom feeds"), "\(text.stdout)")
            #expect(try await reader.run("cache", "clear").status == 0)
            _ = try await reader.run("posts", "worldnews")
            #expect(Self.jsonRequests(server) == 2)
        }
    }

    @Test(.replaysRecordings) func jsonSaysWhereThePageCameFromAndGivesNoNumbers() async throws {
        try await withTestServer(Self.blockedReddit) { server in
            let reader = ReaderProcess(server: server)
            let result = try await reader.run("posts", "worldnews", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            let items = try #require(result.json?["items"] as? [[String: Any]])
            #expect(items.count == 25)
            #expect(items[0]["score"] is NSNull && items[0]["num_comments"] is NSNull)
            #expect(items[0]["id"] as? String == "1vccs2e")
            let meta = try #require(result.json?["meta"] as? [String: Any])
            // `source` is where the copy came from, as for every list; `route` is Reddit's way in.
            #expect(meta["route"] as? String == "feed" && meta["source"] as? String == "network", "\(meta)")
            #expect(meta["after"] as? String == "t3_1vch1dh")
            let cached = try await reader.run("posts", "worldnews", "--json")
            let again = try #require(cached.json?["meta"] as? [String: Any], "\(cached.stdout)\n\(cached.stderr)")
            #expect(again["route"] as? String == "feed" && again["source"] as? String == "cache", "\(again)")
        }
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/listing_r_python_hot.json")) } body: { server in
            let reader = ReaderProcess(server: server)
            for source in ["network", "cache"] {
                let result = try await reader.run("posts", "python", "--json")
                let meta = try #require(result.json?["meta"] as? [String: Any], "\(result.stdout)\n\(result.stderr)")
                #expect(meta["route"] as? String == "api" && meta["source"] as? String == source, "\(meta)")
            }
        }
    }

    @Test(.replaysRecordings) func searchCommentsAndNotFoundThroughTheFeed() async throws {
        try await withTestServer(Self.blockedReddit) { server in
            let reader = ReaderProcess(server: server)
            let search = try await reader.run("posts", "electronics+gadgets", "--search", "portable charger", "--sort", "relevance", "--time", "year")
            #expect(search.status == 0, "\(search.stderr)")
            #expect(search.stdout.contains("Portable GaN Charger with Switchable Grounding Prong?"), "\(search.stdout)")
            let searched = try #require(server.requests.last)
            #expect(searched.path == "/r/electronics+gadgets/search.rss")
            #expect(searched.query["q"] == "portable charger" && searched.query["restrict_sr"] == "1" && searched.query["sort"] == "relevance")
            #expect(searched.query["t"] == "year")

            let comments = try await reader.run("comments", "1qcwxml")
            #expect(comments.status == 0, "\(comments.stderr)")
            #expect(comments.stdout.contains("33 comments as Reddit's Atom feed gives them: in its order, with no nesting"), "\(comments.stdout)")
            #expect(comments.stdout.contains("u/Newyawker2022"), "\(comments.stdout)")
            #expect(comments.stdout.contains("Man watch out my wife is on this app."), "\(comments.stdout)")
            #expect(!comments.stdout.contains("point"), "no score is made up: \(comments.stdout)")
            #expect(!comments.stdout.contains("&lt;") && !comments.stdout.contains("<p>"), "\(comments.stdout)")

            let json = try await reader.run("comments", "1qcwxml", "--json")
            let commentsMeta = json.json?["meta"] as? [String: Any]
            #expect(commentsMeta?["route"] as? String == "feed" && commentsMeta?["source"] as? String == "cache", "\(json.stdout)")

            let missing = try await reader.run("comments", "5e19z2")
            #expect(missing.status == 66, "\(missing.stderr)")
            #expect(missing.stderr.hasPrefix("error A404: "), "\(missing.stderr)")
        }
    }

    @Test(.replaysRecordings) func syncThenOfflineReadsWhatTheFeedGave() async throws {
        try await withTestServer(Self.blockedReddit) { server in
            let reader = ReaderProcess(server: server)
            let sync = try await reader.run("sync", "reddit", "worldnews")
            #expect(sync.status == 0, "\(sync.stdout)\n\(sync.stderr)")
            let sent = server.requests.count
            let posts = try await reader.run("posts", "worldnews", "--offline")
            #expect(posts.status == 0 && posts.stdout.contains("Charter flights"), "\(posts.stderr)")
            let comments = try await reader.run("comments", "1vch1dh", "--offline")
            #expect(comments.status == 0 && comments.stdout.contains("no nesting"), "\(comments.stderr)")
            #expect(server.requests.count == sent)
        }
    }

    @Test func anHTMLPageWhereAFeedWasAskedIsRefusedNeverNoPosts() async throws {
        try await withTestServer { request in
            request.path.hasSuffix(".json")
                ? .respond(status: 403, headers: [("Content-Type", "text/html")], body: Self.blockPage)
                : .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html><title>Sign in</title></html>".utf8))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "worldnews", "--retries", "0")
            #expect(result.status != 0)
            #expect(!result.stdout.contains("no posts"))
            #expect(result.stderr.contains("Sign in"), "\(result.stderr)")
        }
    }

    /// A feed of 50 MB is refused by its size as it arrives (T1103), never read whole.
    @Test(.replaysRecordings) func aFiftyMegabyteFeedIsRefusedByItsSize() async throws {
        var body = Array(#"<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>big</title>"#.utf8)
        let entry = Array("<entry><id>t3_abc</id><title>x</title><updated>2026-01-01T00:00:00+00:00</updated><content type=\"html\">".utf8)
            + Array(repeating: UInt8(ascii: "a"), count: 10_000) + Array("</content></entry>".utf8)
        while body.count < 50_000_000 { body += entry }
        body += Array("</feed>".utf8)
        let big = body
        try await withTestServer { request in
            request.path.hasSuffix(".json")
                ? .respond(status: 403, headers: [("Content-Type", "text/html")], body: Self.blockPage)
                : .respond(status: 200, headers: [("Content-Type", "application/atom+xml")], body: big)
        } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "worldnews", "--retries", "0")
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.stderr.contains("error T1103: "), "\(result.stderr)")
        }
    }

    /// A private community's 403 is Reddit's answer, not its block page: no other route is taken.
    @Test(.replaysRecordings) func aRealForbiddenIsNotTheBlockPageAndChangesNothing() async throws {
        try await withTestServer { request in
            request.path.hasSuffix(".json")
                ? .json(Array(#"{"reason": "private", "message": "Forbidden", "error": 403}"#.utf8), status: 403)
                : Self.blockedReddit(request)
        } body: { server in
            let reader = ReaderProcess(server: server)
            let result = try await reader.run("posts", "worldnews")
            #expect(result.status == 77 && result.stderr.hasPrefix("error A403: "), "\(result.stderr)")
            _ = try await reader.run("posts", "worldnews", "--refresh")
            #expect(server.requests.allSatisfy { $0.path.hasSuffix(".json") })
            let status = try await reader.run("status", "--json")
            #expect((status.json?["detours"] as? [Any])?.isEmpty == true, "\(status.stdout)")
        }
    }

    @Test(.replaysRecordings) func theAPIStaysTheAPIWhenChosen() async throws {
        try await withTestServer(Self.blockedReddit) { server in
            var reader = ReaderProcess(server: server)
            reader.environment["READER_REDDIT_SOURCE"] = "api"
            let result = try await reader.run("posts", "worldnews")
            #expect(result.status == 77 && result.stderr.contains("blocked by network security"), "\(result.stderr)")
            #expect(server.requests.allSatisfy { $0.path.hasSuffix(".json") })
            reader.environment["READER_REDDIT_SOURCE"] = "feed"
            let feed = try await reader.run("posts", "worldnews")
            #expect(feed.status == 0 && !feed.stderr.contains("Atom feeds instead"), "\(feed.stderr)")
            #expect(Self.jsonRequests(server) == 1)
            reader.environment["READER_REDDIT_SOURCE"] = "rss"
            let wrong = try await reader.run("posts", "worldnews")
            #expect(wrong.status == 78 && wrong.stderr.contains("READER_REDDIT_SOURCE must be one of api, feed, auto"), "\(wrong.stderr)")
        }
    }

    /// The private feed key goes with every feed request, to Reddit's origin only, and is never
    /// shown, logged, or written to the cache file.
    @Test(.replaysRecordings) func theFeedKeyIsSentOnlyToRedditAndNeverShownOrStored() async throws {
        let key = "c0ffee15bad5ecret0123456789abcdef01234567"
        try await withTestServer { request in
            request.path == "/r/elsewhere/.rss"
                ? .respond(status: 302, headers: [("Location", "http://localhost:9/r/x/.rss?feed=\(request.query["feed"] ?? "")")], body: [])
                : Self.blockedReddit(request)
        } body: { server in
            var reader = ReaderProcess(server: server)
            reader.environment["READER_REDDIT_SOURCE"] = "feed"
            reader.environment["READER_REDDIT_FEED_KEY"] = key
            reader.environment["READER_REDDIT_FEED_USER"] = "someone"
            let front = try await reader.run("posts", "-v")
            #expect(front.status == 0, "\(front.stderr)")
            let sent = try #require(server.requests.last)
            #expect(sent.path == "/.rss" && sent.query["feed"] == key && sent.query["user"] == "someone")
            let json = try await reader.run("posts", "worldnews", "--json", "-v")
            let config = try await reader.run("config")
            let status = try await reader.run("status")
            let list = try await reader.run("cache", "list")
            let redirected = try await reader.run("posts", "elsewhere", "-v", "--retries", "0")
            #expect(redirected.status != 0)
            for result in [front, json, config, status, list, redirected] {
                #expect(!result.stdout.contains(key) && !result.stderr.contains(key), "\(result.stdout)\n\(result.stderr)")
                #expect(!result.stdout.contains(String(key.prefix(12))) && !result.stderr.contains(String(key.prefix(12))))
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: reader.cachePath))
            let wal = (try? Data(contentsOf: URL(fileURLWithPath: reader.cachePath + "-wal"))) ?? Data()
            #expect(bytes.range(of: Data(key.utf8)) == nil && wal.range(of: Data(key.utf8)) == nil)
        }
    }

    /// `reader status` says the detour only of the address it reads, and only when that address
    /// is read by the route the detour replaces: not for another Reddit address, nor when an app
    /// identity makes the API the route.
    @Test(.replaysRecordings) func statusSaysTheDetourOnlyOfTheAddressReadAnonymously() async throws {
        try await withTestServer(Self.blockedReddit) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("posts", "worldnews").status == 0)
            let here = try await reader.run("status", "--timeout", "2s")
            #expect(here.stdout.contains("read through its Atom feeds"), "\(here.stdout)")

            // Another Reddit address: its loads take the API, and status says so.
            var elsewhere = reader
            elsewhere.environment["READER_REDDIT_URL"] = "http://127.0.0.1:9"
            // An app identity: the API (with its token) is the route, the feeds are no detour.
            var withApp = reader
            withApp.environment["READER_REDDIT_CLIENT_ID"] = "p-jcoLKBynTLew"
            withApp.environment["READER_REDDIT_OAUTH_URL"] = "http://127.0.0.1:9"
            for other in [elsewhere, withApp] {
                let text = try await other.run("status", "--timeout", "2s")
                #expect(!text.stdout.contains("Atom feeds") && !text.stdout.contains("block page"), "\(text.stdout)")
                let json = try await other.run("status", "--json", "--timeout", "2s")
                #expect((json.json?["detours"] as? [Any])?.isEmpty == true, "\(json.stdout)")
            }
        }
    }

    /// A keyed read of the front page is its user's own: kept under a key of its own (a
    /// fingerprint of user and key, never the key), never served without the key, offline, or to
    /// another user's key. Through the detour (`auto`, the API's block page), whose copy is kept
    /// under the API request's key.
    @Test(.replaysRecordings) func aKeyedFrontPageIsServedOnlyToItsOwnKey() async throws {
        let alice = (key: "a11ce000000000000000000000000000000f00d1", user: "alice")
        let bob = (key: "b0b00000000000000000000000000000000cafe2", user: "bob_b")
        let titles = (alice: "The rules have been updated. We have one rule: Be nice",
                      bob: "Simple Questions or Requests thread - July 02, 2019", anonymous: "Greenthund3r")
        try await withTestServer { request in
            guard request.path == "/.rss" else { return Self.blockedReddit(request) }
            switch (request.query["feed"], request.query["user"]) {
            case (alice.key?, alice.user?): return Self.feed("listing_r_crisps_oldreddit_2022.xml")
            case (bob.key?, bob.user?): return Self.feed("listing_r_BuyItForLife_oldreddit_2019.xml")
            case (nil, nil): return Self.feed("listing_r_all_oldreddit_2021.xml")
            default: return .respond(status: 400, headers: [], body: [])
            }
        } body: { server in
            let anonymous = ReaderProcess(server: server)
            var asAlice = anonymous
            asAlice.environment["READER_REDDIT_FEED_KEY"] = alice.key
            asAlice.environment["READER_REDDIT_FEED_USER"] = alice.user
            var asBob = anonymous
            asBob.environment["READER_REDDIT_FEED_KEY"] = bob.key
            asBob.environment["READER_REDDIT_FEED_USER"] = bob.user
            func feedRequests() -> Int { server.requests.filter { $0.path == "/.rss" }.count }

            // Alice's own front page, through the feed once the API's block page came.
            let own = try await asAlice.run("posts", "--json")
            #expect(own.status == 0 && own.stdout.contains(titles.alice), "\(own.stdout)\n\(own.stderr)")
            #expect(feedRequests() == 1)

            // Offline without a key, or with Bob's: nothing cached for them, never Alice's page.
            let offline = try await anonymous.run("posts", "--json", "--offline")
            let bobOffline = try await asBob.run("posts", "--json", "--offline")
            for result in [offline, bobOffline] {
                #expect(result.status != 0 && !result.stdout.contains(titles.alice) && !result.stderr.contains(titles.alice),
                        "\(result.stdout)\n\(result.stderr)")
            }

            // Without a key: a request without one, and the anonymous front page.
            let unkeyed = try await anonymous.run("posts", "--json")
            #expect(unkeyed.status == 0 && unkeyed.stdout.contains(titles.anonymous) && !unkeyed.stdout.contains(titles.alice), "\(unkeyed.stdout)")
            #expect(feedRequests() == 2 && server.requests.last?.query["feed"] == nil)

            // Bob's key: a request with it, and Bob's front page.
            let other = try await asBob.run("posts", "--json")
            #expect(other.status == 0 && other.stdout.contains(titles.bob) && !other.stdout.contains(titles.alice), "\(other.stdout)")
            #expect(feedRequests() == 3 && server.requests.last?.query["user"] == bob.user)

            // Each is still served its own from the cache, with no request.
            let again = try await asAlice.run("posts", "--json", "--offline")
            let anonymousAgain = try await anonymous.run("posts", "--json", "--offline")
            #expect(again.status == 0 && again.stdout.contains(titles.alice), "\(again.stdout)\n\(again.stderr)")
            #expect(anonymousAgain.status == 0 && anonymousAgain.stdout.contains(titles.anonymous) && !anonymousAgain.stdout.contains(titles.alice))
            #expect(feedRequests() == 3)

            // The cache lists the three copies by the URL asked for, with no key; nothing holds one.
            let list = try await anonymous.run("cache", "list")
            #expect(list.status == 0 && list.stdout.split(separator: "\n").filter { $0.contains("/.rss?limit=25") }.count == 3, "\(list.stdout)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: anonymous.cachePath))
            let wal = (try? Data(contentsOf: URL(fileURLWithPath: anonymous.cachePath + "-wal"))) ?? Data()
            for key in [alice.key, bob.key] {
                for result in [own, offline, bobOffline, unkeyed, other, again, anonymousAgain, list] {
                    #expect(!result.stdout.contains(key) && !result.stderr.contains(key) && !result.stdout.contains(String(key.prefix(12))))
                }
                #expect(bytes.range(of: Data(key.utf8)) == nil && wal.range(of: Data(key.utf8)) == nil)
            }
        }
    }
}

/// `reader browse` with Reddit's JSON API turning readers away: the list and a post come through
/// the feed, drawn without scores, and the post says its comments come flat.
@Suite(.processSlot) struct RedditFeedBrowseEndToEndTests {
    @Test(.replaysRecordings) func browseReadsTheFeedAndOpensAPostFromIt() async throws {
        try await withTestServer(RedditFeedEndToEndTests.blockedReddit) { server in
            let reader = ReaderProcess(server: server)
            let terminal = try await TmuxTerminal.start(reader, columns: 100, rows: 30, arguments: ["browse", "worldnews"])
            let (screen, shown) = try await terminal.waitForScreen(containing: "r/worldnews · hot · 25 posts")
            #expect(shown, "\(screen)")
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.trimmingCharacters(in: .whitespaces).hasPrefix("AGE") == true, "no score or comment column: \(screen)")
            #expect(lines.first?.contains("SCORE") == false && lines.first?.contains("COMMENTS") == false, "\(screen)")
            #expect(lines.count > 1 && lines[1].contains("/r/WorldNews Live Thread"), "\(screen)")
            try await terminal.press("Enter")
            let (post, opened) = try await terminal.waitForScreen(containing: "with no nesting")
            #expect(opened, "\(post)")
            #expect(post.contains("u/Newyawker2022"), "\(post)")
            #expect(!post.contains("points"), "\(post)")
            try await terminal.press("q")
            #expect(try await terminal.waitForScreen(containing: "r/worldnews · hot · 25 posts").ok)
            try await terminal.press("q")
            #expect(try await terminal.waitForFile("status") == "0")
            #expect(RedditFeedEndToEndTests.jsonRequests(server) == 1)
        }
    }
}
