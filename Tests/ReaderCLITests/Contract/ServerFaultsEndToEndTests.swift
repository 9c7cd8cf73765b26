import Foundation
import NIOConcurrencyHelpers
import ReaderKit
import Testing
import TestSupport

/// Faults that are the server's, named so with the built binary: a refused certificate, an
/// answer outside HTTP, a 304 nothing asked for, a redirect that cannot be followed, a listing
/// whose cursor repeats, JSON that is not text.
@Suite(.processSlot) struct ServerFaultsEndToEndTests {
    static let certificates = Result { try TestCertificates() }

    /// Stores `film 1` in `reader`'s cache as fetched from `server`, an hour ago, without a
    /// validator: a copy to serve (the binary trusts no test authority, so it cannot fetch it).
    func cacheFilmOne(for reader: ReaderProcess, from server: TestServer) async throws {
        let service = SWAPIService(baseURL: try #require(URL(string: server.baseURL + "/api")))
        let url = try #require(try SWAPI.resource(Film.self, id: 1).request(for: service)).url
        try FileManager.default.createDirectory(atPath: (reader.cachePath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let cache = try ResponseCache.open(path: reader.cachePath)
        _ = try await cache.store(CacheEntry(key: CacheKey.normalise(url), service: "swapi", url: url.absoluteString, status: 200,
                                       body: Data(Fixtures.bytes("swapi/films_1.json")), contentType: "application/json",
                                       fetchedAt: Date().addingTimeInterval(-3600)), sizeLimit: nil)
        cache.close()
    }

    // MARK: - Certificates

    @Test(.replaysRecordings) func anExpiredCertificateServesTheCachedCopyAndSaysWhy() async throws {
        // Given a copy of film 1, and a server whose certificate expired (and is self-signed).
        try await withShutdown(of: try await TestServer(tls: try Self.certificates.get().expiredSelfSigned, SampleAPI.route)) { server in
            let reader = ReaderProcess(server: server)
            try await cacheFilmOne(for: reader, from: server)

            // When asking the network for it.
            let result = try await reader.run("films", "1", "--max-age", "0s")

            // Then the copy is shown, with a notice that names the expired certificate.
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("A New Hope"), "\(result.stdout)")
            #expect(result.stderr.contains("notice T1201: showing cached data from 1 h ago: the certificate of 127.0.0.1 has expired (on 2020-02-01)"),
                    "\(result.stderr)")
            #expect(server.requests.isEmpty, "no request was sent over the refused connection")
        }
    }

    @Test func anExpiredCertificateWithNothingCachedIsTheServicesToFix() async throws {
        try await withShutdown(of: try await TestServer(tls: try Self.certificates.get().expiredSelfSigned, SampleAPI.route)) { server in
            let reader = ReaderProcess(server: server)

            let result = try await reader.run("films", "1", "--verbose")

            #expect(result.status == 69, "\(result.stderr)")
            #expect(result.stderr.contains("\nerror T1201: the certificate of 127.0.0.1 has expired (on 2020-02-01)\n"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: only the service can renew its certificate; try again later"), "\(result.stderr)")
            #expect(!result.stderr.contains("check the service address"), "\(result.stderr)")
            // --verbose says what the TLS library said, without the folders it was built in.
            let detail = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("  detail: ") })
            #expect(detail.contains("CERTIFICATE_VERIFY_FAILED") && !detail.contains("swift-nio-ssl") && !detail.contains(".cc:"), "\(detail)")
        }
    }

    @Test func aSelfSignedCertificateIsT1203() async throws {
        try await withShutdown(of: try await TestServer(tls: try Self.certificates.get().selfSigned, SampleAPI.route)) { server in
            let result = try await ReaderProcess(server: server).run("films", "1", "--json")
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.errorJSON?["code"] as? String == "T1203", "\(result.stderr)")
            #expect((result.errorJSON?["hint"] as? String)?.hasPrefix("a network that intercepts secure connections") == true, "\(result.stderr)")
        }
    }

    // MARK: - Answers outside HTTP

    @Test func twoContentLengthsAreTheServersFaultNotTheConnections() async throws {
        try await withTestServer { _ in
            .raw(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}".utf8))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "--retries", "0")
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error T1011: 127.0.0.1 answered outside HTTP: two Content-Lengths, or one where none may be\n"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("hint: the service answered wrongly: it is the service's to fix; try again later, or tell the service"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("check your connection"), "\(result.stderr)")
        }
    }

    // MARK: - 304 and redirects

    @Test(.replaysRecordings) func a304ToARequestThatWasNotConditionalServesTheCopy() async throws {
        // Given film 1 cached from an answer without ETag or Last-Modified.
        let notModified = NIOLockedValueBox(false)
        try await withTestServer { request in
            notModified.withLockedValue { $0 }
                ? .respond(status: 304, headers: [], body: [])
                : .json(Fixtures.bytes("swapi/films_1.json"))
        } body: { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films", "1").status == 0)

            // When the server answers 304 to the next request, which had nothing to be conditional on.
            notModified.withLockedValue { $0 = true }
            let result = try await reader.run("films", "1", "--max-age", "0s")

            // Then the copy is shown, as for any 304: confirmed, not served stale in place of an error.
            let asked = server.requests.filter { $0.path == "/api/films/1/" }
            #expect(asked.count == 2)
            #expect(asked.allSatisfy { $0.headers["if-none-match"] == nil && $0.headers["if-modified-since"] == nil })
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("A New Hope"), "\(result.stdout)")
            #expect(!result.stderr.contains("H304") && !result.stderr.contains("showing cached data"), "\(result.stderr)")
        }
    }

    @Test func a304WithNothingCachedIsTheServersFault() async throws {
        try await withTestServer { _ in .respond(status: 304, headers: [], body: []) } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "1")
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error H304: the server answered 304 Not Modified to a request with no cached copy to confirm\n"),
                    "\(result.stderr)")
            #expect(result.stderr.contains("hint: the service answered wrongly: it is the service's to fix"), "\(result.stderr)")
            #expect(!result.stderr.contains("arguments"), "\(result.stderr)")
        }
    }

    @Test(arguments: ["", "http://[::1"])
    func aRedirectWithoutALocationReaderCanReadIsTheServersFault(_ location: String) async throws {
        try await withTestServer { _ in .respond(status: 302, headers: location.isEmpty ? [] : [("Location", location)], body: []) } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "1")
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error H302: the server answered 302 Redirect that reader cannot follow\n"), "\(result.stderr)")
            #expect(result.stderr.contains("hint: the service answered wrongly: it is the service's to fix"), "\(result.stderr)")
            #expect(!result.stderr.contains("arguments"), "\(result.stderr)")
        }
    }

    // MARK: - Listings and JSON

    @Test func aCursorThatNeverAdvancesEndsThePagingWithANotice() async throws {
        // Given a listing that answers every page with the same posts and the same `after`.
        let children = (1...3).map { id in
            #"{"kind": "t3", "data": {"id": "p\#(id)", "name": "t3_p\#(id)", "title": "post \#(id)", "author": "a", "subreddit": "swift", "score": 1, "num_comments": 0, "created_utc": 1700000000, "permalink": "/p"}}"#
        }
        let page = Array(#"{"kind": "Listing", "data": {"after": "t3_p3", "before": null, "children": [\#(children.joined(separator: ","))]}}"#.utf8)
        try await withTestServer { _ in .json(page) } body: { server in

            // When reading ten pages.
            let result = try await ReaderProcess(server: server).run("posts", "swift", "--pages", "10")

            // Then each post is shown once, the paging stops with a notice, and no "more" leads back.
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.components(separatedBy: "post 1").count == 2, "\(result.stdout)")
            #expect(server.requests.count == 2, "the first page, and the one that repeated it")
            #expect(result.stderr.contains("warning R1006: the listing repeated itself after t3_p3: reading stopped after page 1 of 10"),
                    "\(result.stderr)")
            #expect(!result.stderr.contains("more: --after"), "\(result.stderr)")
        }
    }

    @Test(arguments: [[UInt8(0x01)], [0xFF, 0xFE]])
    func rawControlBytesOrInvalidUTF8AreInvalidJSON(_ bytes: [UInt8]) async throws {
        let body = Array(#"{"title": "A New"#.utf8) + bytes + Array(#" Hope", "episode_id": 4}"#.utf8)
        try await withTestServer { _ in .json(body) } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "1")
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error D1002: the answer is not valid JSON\n"), "\(bytes): \(result.stderr)")
        }
    }
}

extension ServerFaultsEndToEndTests {
    @Test func aCursorThatComesBackEndsThePagingAfterTheNewPosts() async throws {
        let listing: @Sendable (String, [String]) -> [UInt8] = { after, ids in
            let children = ids.map { id in
                #"{"kind": "t3", "data": {"id": "\#(id)", "name": "t3_\#(id)", "title": "post \#(id)", "author": "a", "subreddit": "swift", "score": 1, "num_comments": 0, "created_utc": 1700000000, "permalink": "/p"}}"#
            }
            return Array(#"{"kind": "Listing", "data": {"after": "\#(after)", "before": null, "children": [\#(children.joined(separator: ","))]}}"#.utf8)
        }
        // Given a listing whose second page holds new posts but points back at itself.
        try await withTestServer { request in
            request.query["after"] == nil ? .json(listing("t3_b", ["a", "b"])) : .json(listing("t3_b", ["c", "d"]))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "swift", "--limit", "2", "--pages", "5", "--json")
            #expect(result.status == 0, "\(result.stderr)")
            let ids = (result.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == ["a", "b", "c", "d"])
            #expect(server.requests.count == 2)
            #expect(result.stderr.contains("warning R1006: the listing repeated itself after t3_b: reading stopped after page 2 of 5"),
                    "\(result.stderr)")
        }
    }
}

extension ServerFaultsEndToEndTests {
    static func listing(after: String?, ids: [String]) -> [UInt8] {
        let children = ids.map { id in
            #"{"kind": "t3", "data": {"id": "\#(id)", "name": "t3_\#(id)", "title": "post \#(id)", "author": "a", "subreddit": "swift", "score": 1, "num_comments": 0, "created_utc": 1700000000, "permalink": "/p"}}"#
        }
        let cursor = after.map { #""\#($0)""# } ?? "null"
        return Array(#"{"kind": "Listing", "data": {"after": \#(cursor), "before": null, "children": [\#(children.joined(separator: ","))]}}"#.utf8)
    }

    /// Reddit's listings shift as they are read: each page here repeats the last post of the one
    /// before it, and the first lists a post three times.
    static let shiftingListing: @Sendable (TestServer.Request) -> TestServer.Reply = { request in
        switch request.query["after"] {
        case nil: .json(listing(after: "t3_aa", ids: ["p1", "p1", "p1", "p2"]))
        case "t3_aa": .json(listing(after: "t3_bb", ids: ["p2", "p3"]))
        case "t3_bb": .json(listing(after: "t3_cc", ids: ["p3", "p4"]))
        default: .json(listing(after: nil, ids: ["p5"]))
        }
    }

    @Test func postsRepeatedAcrossOrWithinPagesAreShownOnceInTheOrderFirstSeen() async throws {
        try await withTestServer(Self.shiftingListing) { server in
            let table = try await ReaderProcess(server: server).run("posts", "swift", "--pages", "10")
            #expect(table.status == 0, "\(table.stderr)")
            let shown = table.stdout.split(separator: "\n").compactMap { line in line.firstMatch(of: /\bp[0-9]\b/).map { String($0.output) } }
            #expect(shown == ["p1", "p2", "p3", "p4", "p5"], "\(table.stdout)")
            #expect(!table.stderr.contains("R1006"), "new posts on every page: no listing repeated itself: \(table.stderr)")
            #expect(server.requests.count == 4, "paging goes on while pages bring new posts")

            let json = try await ReaderProcess(server: server).run("posts", "swift", "--pages", "10", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            let ids = (json.json?["items"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == ["p1", "p2", "p3", "p4", "p5"])
        }
    }
}

extension ServerFaultsEndToEndTests {
    @Test(arguments: ["HTTP/1.1 101 Switching Protocols", "HTTP/1.1 999 Whatever"])
    func aStatusThatIsNoClientErrorIsTheServersFault(_ statusLine: String) async throws {
        try await withTestServer { _ in
            .raw(Array("\(statusLine)\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".utf8))
        } body: { server in
            let result = try await ReaderProcess(server: server).run("films", "1", "--retries", "0")
            #expect(result.stderr.contains("hint: the service answered wrongly: it is the service's to fix"), "\(statusLine): \(result.stderr)")
            #expect(!result.stderr.contains("arguments"), "\(statusLine): \(result.stderr)")
        }
    }
}
