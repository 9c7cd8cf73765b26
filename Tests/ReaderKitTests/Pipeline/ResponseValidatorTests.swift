import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// The validation layers in order: status (with the API's body) before content type.
@Suite struct ResponseValidatorTests {
    func failure(_ response: HTTPResponse) -> ReaderError? {
        do { try ResponseValidator.validate(response, url: "http://x/y") ; return nil } catch { return error }
    }

    @Test(.replaysRecordings) func anHTMLNotFoundPageIsNotFoundNotInvalidJSON() throws {
        let error = try #require(failure(HTTPResponse(status: 404, headers: ["Content-Type": "text/html; charset=utf-8"],
                                                      body: Data(Fixtures.bytes("swapi/unknown_resource_404.html")))))
        #expect(error.code.description == "H404")
        #expect(error.exitCode.rawValue == 66)
        #expect(error.message.contains("not found"))
    }

    @Test(.replaysRecordings) func swapisNotFoundBodyIsTheAPISpeaking() throws {
        let error = try #require(failure(HTTPResponse(status: 404, headers: ["Content-Type": "application/json"],
                                                      body: Data(Fixtures.bytes("swapi/people_9999_not_found.json")))))
        #expect(error.code.description == "A404")
        #expect(error.message.contains("Not found"))
    }

    @Test(.replaysRecordings) func redditsQuarantineReasonReachesTheMessage() throws {
        let error = try #require(failure(HTTPResponse(status: 403, headers: ["Content-Type": "application/json"],
                                                      body: Data(Fixtures.bytes("reddit/error_403_quarantined_reason.json")))))
        #expect(error.code.description == "A403")
        #expect(error.message.contains("quarantined"))
        #expect(error.exitCode.rawValue == 77)
    }

    @Test(.replaysRecordings) func redditsRateLimitPageIsA429WithItsRetryAfter() throws {
        let error = try #require(failure(HTTPResponse(status: 429, headers: ["Content-Type": "text/html", "Retry-After": "4"],
                                                      body: Data(Fixtures.bytes("reddit/error_429_too_many_requests.html")))))
        guard case .status(let status) = error else { Issue.record("not a status failure"); return }
        #expect(status.status == 429 && status.retryAfterSeconds == 4)
        #expect(error.code.description == "H429")
    }

    @Test func anHTMLPageWithStatus200IsAContentTypeFailureWithItsTitle() throws {
        let error = try #require(failure(HTTPResponse(status: 200, headers: ["Content-Type": "text/html"],
                                                      body: Data("<html><title>Hotel \u{1B}[31mWiFi</title>".utf8))))
        guard case .contentType(let content) = error else { Issue.record("not a content type failure"); return }
        #expect(content.pageTitle == "Hotel WiFi")
        #expect(error.code.description == "D1001")
    }

    @Test func jsonPassesAndJSONWithoutAContentTypeIsSniffed() {
        #expect(failure(HTTPResponse(status: 200, headers: ["Content-Type": "application/json; charset=UTF-8"], body: Data("{}".utf8))) == nil)
        #expect(failure(HTTPResponse(status: 200, headers: [:], body: Data(" [1]".utf8))) == nil)
        #expect(failure(HTTPResponse(status: 200, headers: [:], body: Data("hello".utf8))) != nil)
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(ResponseValidator.retryAfterSeconds("7", now: now) == 7)
        #expect(ResponseValidator.retryAfterSeconds("Tue, 14 Nov 2023 22:14:20 GMT", now: now) == 60)
        #expect(ResponseValidator.retryAfterSeconds("soon", now: now) == nil)
        #expect(ResponseValidator.retryAfterSeconds("-3", now: now) == nil)
    }

    /// An error envelope in a 200 names its status only when that is an error status: the body's
    /// number is the server's word, not a code reader makes up (`A-5`, `A9223372036854775807`).
    @Test func aStatusInAnErrorBodyIsTakenOnlyWhenItIsAnErrorStatus() {
        for (body, code) in [(#"{"error": -5, "message": "neg"}"#, "A200"), (#"{"error": 9223372036854775807}"#, "A200"),
                             (#"{"error": 304}"#, "A200"), (#"{"error": 0, "message": "x"}"#, "A200"),
                             (#"{"error": 404, "message": "Not Found"}"#, "A404"), (#"{"error": 503, "message": "busy"}"#, "A503")] {
            let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            let result = Result { () throws(ReaderError) in try ResponseValidator.decode(SWAPIPage<Film>.self, from: response, url: "http://x/y") }
            guard case .failure(let error) = result else { Issue.record("\(body) decoded"); continue }
            #expect(error.code.description == code, "\(body)")
        }
    }

    /// Header numbers are decimal: `Double`'s parser also reads hex, `nan` and `infinity`.
    @Test func headerNumbersAreDecimalOnly() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(ResponseValidator.retryAfterSeconds("0x10", now: now) == nil)
        #expect(ResponseValidator.retryAfterSeconds("infinity", now: now) == nil)
        #expect(ResponseValidator.retryAfterSeconds("16", now: now) == 16)
        #expect(RateLimitAnnouncement.xRatelimit(["X-Ratelimit-Remaining": "0", "X-Ratelimit-Reset": "0x10"]) == nil)
        #expect(RateLimitAnnouncement.xRatelimit(["X-Ratelimit-Remaining": "nan", "X-Ratelimit-Reset": "5"]) == nil)
        #expect(RateLimitAnnouncement.xRatelimit(["X-Ratelimit-Remaining": "0.0", "X-Ratelimit-Reset": "16"])?.secondsUntilReset == 16)
    }

    /// Only Reddit's search page itself means "no such subreddit"; a path that starts the same does not.
    @Test func onlyTheSearchPageMeansNoSuchSubreddit() {
        let from = URL(string: "https://www.reddit.com/r/nowhere/hot.json")!
        let reddit = RedditService()
        #expect(reddit.failure(redirectedTo: URL(string: "https://www.reddit.com/subreddits/search.json?q=nowhere")!, from: from)?.status == 404)
        #expect(reddit.failure(redirectedTo: URL(string: "https://www.reddit.com/subreddits/search?q=nowhere")!, from: from)?.status == 404)
        #expect(reddit.failure(redirectedTo: URL(string: "https://www.reddit.com/subreddits/searchX")!, from: from) == nil)
        #expect(reddit.failure(redirectedTo: URL(string: "https://www.reddit.com/r/elsewhere/hot.json")!, from: from) == nil)
    }

    /// A token endpoint that redirects is the server breaking OAuth, not the user's arguments.
    @Test func aRedirectingTokenEndpointIsTheServersFault() throws {
        let response = HTTPResponse(status: 302, headers: ["Location": "https://www.reddit.com/login"])
        do throws(ReaderError) {
            _ = try RedditToken.read(response, url: "https://www.reddit.com/api/v1/access_token", clientID: "id", installedApp: true, now: Date())
            Issue.record("a token from a redirect")
        } catch {
            #expect(error.code.description == "H302")
            #expect(error.exitCode == .protocolError)
            #expect(error.message == "the server answered 302 Redirect that reader cannot follow")
            #expect(error.hints().text == "the service answered wrongly: it is the service's to fix; try again later, or tell the service")
        }
    }

    /// 2xx answers of the token endpoint without a token reader can use, and the code each is:
    /// the server answering wrongly (a captive portal, a broken proxy), never a refusal.
    static let tokenlessAnswers: [(name: String, contentType: String, body: String, code: String)] = [
        ("an HTML page", "text/html", "<html><title>Hotel WiFi login</title></html>", "D1001"),
        ("bad JSON", "application/json", #"{"access_token": "#, "D1002"),
        ("no access_token", "application/json", #"{"token_type": "bearer"}"#, "D1003"),
        ("a number for a token", "application/json", #"{"access_token": 7}"#, "D1004"),
        ("an empty token", "application/json", #"{"access_token": ""}"#, "D1005"),
        ("a token with CRLF", "application/json", #"{"access_token": "a\r\nX-Injected: 1"}"#, "D1005"),
        ("a token with a space", "application/json", #"{"access_token": "a b"}"#, "D1005"),
        ("a non-ASCII token", "application/json", #"{"access_token": "tökén"}"#, "D1005"),
        ("a 100 KB token", "application/json", #"{"access_token": "\#(String(repeating: "a", count: 100_000))"}"#, "D1005"),
    ]

    @Test(arguments: tokenlessAnswers.indices)
    func aTokenEndpoint2xxWithoutAUsableTokenIsTheServersFaultNotARefusal(_ index: Int) throws {
        let answer = Self.tokenlessAnswers[index]
        let response = HTTPResponse(status: 200, headers: ["Content-Type": answer.contentType], body: Data(answer.body.utf8))
        do throws(ReaderError) {
            _ = try RedditToken.read(response, url: "https://www.reddit.com/api/v1/access_token", clientID: "id", installedApp: false, now: Date())
            Issue.record("\(answer.name): a token")
        } catch {
            #expect(error.code.description == answer.code, "\(answer.name): \(error)")
            #expect(error.exitCode == (answer.code == "D1001" ? .protocolError : .dataError), "\(answer.name)")
            #expect(!error.hints().text.contains("READER_REDDIT_CLIENT"), "\(answer.name): \(error.hints().text)")
        }
    }

    /// An answer that says it refuses is a refusal, whatever its status.
    @Test func aTokenEndpoint200SayingErrorIsStillARefusal() throws {
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"{"error": "invalid_grant"}"#.utf8))
        do throws(ReaderError) {
            _ = try RedditToken.read(response, url: "https://www.reddit.com/api/v1/access_token", clientID: "id", installedApp: false, now: Date())
            Issue.record("a token")
        } catch {
            #expect(error.code.description == "R1004", "\(error)")
        }
    }

    /// Raw control characters and invalid UTF-8 are not JSON (RFC 8259 §7, §8.1): D1002, with
    /// the reason in the detail. A number too large for the model stays D1005: that JSON is valid.
    static let textViolations: [(bytes: [UInt8], reason: String)] = [
        ([0x01], "a raw control character (U+0001) inside a string at byte 16"),
        ([0x0A], "a raw control character (U+000A) inside a string at byte 16"),
        ([0xFF, 0xFE], "invalid UTF-8"),
    ]

    struct TitledFilm: Decodable { var title: String; var episode_id: Int }

    @Test(arguments: 0..<3)
    func controlBytesAndInvalidUTF8AreCorruptJSON(_ index: Int) throws {
        typealias Film = TitledFilm
        let (bytes, reason) = Self.textViolations[index]
        let body = Array(#"{"title": "A New"#.utf8) + bytes + Array(#" Hope", "episode_id": 4}"#.utf8)
        #expect(JSONValue.textViolation(in: body) == reason)
        do throws(ReaderError) {
            let film = try ResponseValidator.decode(Film.self, from: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"],
                                                                                   body: Data(body)), url: "http://x/y")
            Issue.record("decoded \(film.title)")
        } catch {
            #expect(error.code.description == "D1002", "\(error.technicalDetail)")
            #expect(error.technicalDetail.contains(reason), "\(error.technicalDetail)")
        }
        let large = Array(#"{"title": "A New Hope", "episode_id": 1e30}"#.utf8)
        #expect(JSONValue.textViolation(in: large) == nil)
        do throws(ReaderError) {
            _ = try ResponseValidator.decode(Film.self, from: HTTPResponse(status: 200, headers: ["Content-Type": "application/json"],
                                                                          body: Data(large)), url: "http://x/y")
            Issue.record("decoded 1e30 as an Int")
        } catch {
            #expect(error.code.description == "D1005", "\(error.technicalDetail)")
        }
    }
}

extension ReaderError: Equatable {
    public static func == (lhs: ReaderError, rhs: ReaderError) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }

}
