import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// The origin comparison that credentials and redirects depend on, with every expected value
/// written out.
@Suite struct OriginTests {
    struct Parsed: CustomTestStringConvertible, Sendable {
        var url: String
        /// scheme, host, port; nil when the URL has no origin reader can use.
        var expected: (String, String, Int)?
        var testDescription: String { url }
    }

    @Test(arguments: [
        Parsed(url: "https://OAuth.Reddit.com", expected: ("https", "oauth.reddit.com", 443)),
        Parsed(url: "HTTPS://oauth.reddit.com:443/r/swift", expected: ("https", "oauth.reddit.com", 443)),
        Parsed(url: "http://example.com/api", expected: ("http", "example.com", 80)),
        Parsed(url: "http://127.0.0.1:8080/api", expected: ("http", "127.0.0.1", 8080)),
        Parsed(url: "http://127.0.0.1:0080/api", expected: ("http", "127.0.0.1", 80)),
        Parsed(url: "http://127.0.0.1:/api", expected: ("http", "127.0.0.1", 80)),
        Parsed(url: "https://h:80/", expected: ("https", "h", 80)),
        Parsed(url: "http://[::1]:8080/", expected: ("http", "[::1]", 8080)),
        Parsed(url: "http://h:65535/", expected: ("http", "h", 65535)),
        Parsed(url: "http://h:65536/", expected: nil),
        Parsed(url: "http://h:99999/", expected: nil),
        Parsed(url: "http://h:0/", expected: nil),
        // URL.port is nil for this one, as for no port at all: it is not port 80.
        Parsed(url: "http://h:99999999999999999999/", expected: nil),
        Parsed(url: "ftp://h/", expected: nil),
        Parsed(url: "file:///tmp/x", expected: nil),
    ])
    func anOriginIsSchemeHostAndPortNormalised(_ parsed: Parsed) throws {
        let origin = Origin(try #require(URL(string: parsed.url)))
        #expect(origin?.scheme == parsed.expected?.0)
        #expect(origin?.host == parsed.expected?.1)
        #expect(origin?.port == parsed.expected?.2)
    }

    @Test(arguments: [("http://h/", true), ("http://h:1/", true), ("http://h:65535/", true), ("http://h:/", true),
                      ("http://h:0/", false), ("http://h:65536/", false), ("http://h:99999999999999999999/", false)])
    func aPortIsInRangeWhenAbsentOrWithin1To65535(_ text: String, _ expected: Bool) throws {
        #expect(Origin.hasPortInRange(try #require(URL(string: text))) == expected)
    }

    @Test func originsAreEqualOnlyWhenSchemeHostAndPortAre() throws {
        func origin(_ text: String) throws -> Origin? { Origin(try #require(URL(string: text))) }
        #expect(try origin("https://oauth.reddit.com") == origin("https://OAUTH.reddit.com:443/r/swift?limit=1"))
        #expect(try origin("http://127.0.0.1") == origin("http://127.0.0.1:80/"))
        #expect(try origin("https://oauth.reddit.com") != origin("http://oauth.reddit.com"))
        #expect(try origin("https://oauth.reddit.com") != origin("https://oauth.reddit.com:8443"))
        #expect(try origin("http://127.0.0.1:5000") != origin("http://127.0.0.1:6000"))
        #expect(try origin("http://127.0.0.1") != origin("http://localhost"))
    }

    @Test func anOriginIsShownWithoutItsDefaultPort() throws {
        #expect(try Origin(#require(URL(string: "HTTPS://OAuth.reddit.com:443/r")))?.description == "https://oauth.reddit.com")
        #expect(try Origin(#require(URL(string: "http://127.0.0.1:8080/api")))?.description == "http://127.0.0.1:8080")
        #expect(try Origin(#require(URL(string: "https://h:80/")))?.description == "https://h:80")
    }

    struct Redirect: CustomTestStringConvertible, Sendable {
        var from: String
        var to: String
        var expected: RedirectDecision
        var testDescription: String { "\(from) → \(to)" }
    }

    @Test(arguments: [
        Redirect(from: "http://127.0.0.1:5000/api/films", to: "http://127.0.0.1:5000/api/films/", expected: .follow),
        Redirect(from: "http://127.0.0.1:5000/a", to: "HTTP://127.0.0.1:5000/b", expected: .follow),
        Redirect(from: "https://oauth.reddit.com/a", to: "https://OAUTH.reddit.com:443/b", expected: .follow),
        Redirect(from: "http://swapi.dev/api/films/", to: "https://swapi.dev/api/films/", expected: .follow),
        Redirect(from: "http://127.0.0.1:8080/a", to: "https://127.0.0.1:8443/a", expected: .follow),
        Redirect(from: "https://swapi.dev/api/", to: "http://swapi.dev/api/", expected: .refuse(.downgrade)),
        Redirect(from: "https://127.0.0.1:8443/", to: "http://127.0.0.1:8443/", expected: .refuse(.downgrade)),
        Redirect(from: "http://127.0.0.1:5000/", to: "http://127.0.0.1:6000/", expected: .refuse(.anotherOrigin)),
        Redirect(from: "https://oauth.reddit.com/", to: "https://oauth.reddit.com:8443/", expected: .refuse(.anotherOrigin)),
        Redirect(from: "https://oauth.reddit.com/", to: "https://www.reddit.com/", expected: .refuse(.anotherOrigin)),
        Redirect(from: "http://swapi.dev/", to: "https://evil.example/", expected: .refuse(.anotherOrigin)),
        Redirect(from: "http://127.0.0.1:5000/", to: "http://127.0.0.1:5000@evil.example/", expected: .refuse(.userInfo)),
        Redirect(from: "http://h/", to: "http://user:password@h/", expected: .refuse(.userInfo)),
        Redirect(from: "http://h/", to: "http://user@h/", expected: .refuse(.userInfo)),
        Redirect(from: "http://h/", to: "http://:password@h/", expected: .refuse(.userInfo)),
        Redirect(from: "http://h/", to: "http://h:99999/", expected: .refuse(.portOutOfRange)),
        Redirect(from: "http://h/", to: "http://h:0/", expected: .refuse(.portOutOfRange)),
        Redirect(from: "http://h/", to: "http://h:99999999999999999999/", expected: .refuse(.portOutOfRange)),
        Redirect(from: "http://h/", to: "ftp://h/", expected: .refuse(.notHTTP)),
        Redirect(from: "http://h/", to: "mailto:someone@h", expected: .refuse(.notHTTP)),
    ])
    func redirectsAreFollowedWithinTheOriginOrAsAnUpgrade(_ redirect: Redirect) throws {
        let decision = Origin.redirect(from: try #require(URL(string: redirect.from)), to: try #require(URL(string: redirect.to)))
        #expect(decision == redirect.expected)
    }

    @Test func aRelativeLocationStaysInItsOrigin() throws {
        let source = try #require(URL(string: "https://oauth.reddit.com/r/swift/hot"))
        let target = try #require(URL(string: "/r/swift/hot?limit=25", relativeTo: source)?.absoluteURL)
        #expect(Origin.redirect(from: source, to: target) == .follow)
        let schemeRelative = try #require(URL(string: "//evil.example/r", relativeTo: source)?.absoluteURL)
        #expect(Origin.redirect(from: source, to: schemeRelative) == .refuse(.anotherOrigin))
    }

    @Test func aRefusedRedirectIsT1010Exit76AndNeverShowsUserInfoOrQuery() throws {
        let failure = TransportFailure.redirectRefused(
            .userInfo, from: try #require(URL(string: "http://127.0.0.1:5000/api/films/")),
            to: try #require(URL(string: "http://spy:hunter2@127.0.0.1:5000/api/films/?token=abc#frag")))
        let error = ReaderError.transport(failure)
        #expect(error.code.description == "T1010")
        #expect(error.exitCode.rawValue == 76)
        #expect(error.message == "refused to follow a redirect to http://127.0.0.1:5000/api/films/: its Location holds a user name or password")
        #expect(error.technicalDetail == "its Location holds a user name or password")

        let across = ReaderError.transport(TransportFailure.redirectRefused(
            .anotherOrigin, from: try #require(URL(string: "https://oauth.reddit.com/r/swift/hot")),
            to: try #require(URL(string: "HTTPS://Example.com:8443/r/swift/hot?x=1"))))
        #expect(across.message == "refused to follow a redirect to https://example.com:8443/r/swift/hot: it leaves https://oauth.reddit.com for another origin")
    }

    @Test func aRefusedRedirectIsNotRetriedAndACachedCopyIsServed() {
        let handler = ErrorHandler(retryPolicy: RetryPolicy(jitter: { 1 }))
        let error = ReaderError.transport(TransportFailure(.redirectRefused, host: "http://h:6000/", detail: "it leaves http://h:5000 for another origin"))
        #expect(handler.decide(error, in: ErrorContext(attempt: 1)) == .alert)
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable, attempt: 1)) == .ignore(.servedStale))
    }

    @Test(arguments: [
        ("http://user:pw@host:1/x?y@z", "http://host:1/x?y@z"),
        ("http://a@b@host/", "http://host/"),
        ("http://host/a@b", "http://host/a@b"),
        ("https://host", "https://host"),
        ("not a url @ all", "not a url @ all"),
    ])
    func userInfoIsRemovedBeforeAURLIsShown(_ text: String, _ expected: String) {
        #expect(Origin.removingUserInfo(text) == expected)
    }

    @Test func aBaseURLWithAPasswordIsRefusedWithoutShowingIt() {
        #expect {
            _ = try ServiceConfiguration.fromEnvironment(["READER_SWAPI_URL": "http://user:s3cret@127.0.0.1:5000/api"])
        } throws: { error in
            guard let error = error as? ReaderError, case .invalidConfiguration(let text) = error else { return false }
            return text == #"READER_SWAPI_URL holds a user name or password, which ReaderKit never sends: "http://127.0.0.1:5000/api""#
        }
    }

    @Test(arguments: ["http://127.0.0.1:99999/api", "http://127.0.0.1:0/api", "https://h:99999999999999999999/api"])
    func aBaseURLWithAPortOutOfRangeIsR1002(_ value: String) {
        #expect {
            _ = try ServiceConfiguration.fromEnvironment(["READER_REDDIT_OAUTH_URL": value])
        } throws: { error in
            guard let error = error as? ReaderError, case .invalidConfiguration(let text) = error else { return false }
            return error.code.description == "R1002" && error.exitCode.rawValue == 78
                && text == "READER_REDDIT_OAUTH_URL has a port outside 1…65535: \"\(value)\""
        }
    }

    @Test func theTransportRefusesAPortOutOfRangeBeforeSwiftNIOSeesIt() async throws {
        // A library user can build a ServiceConfiguration with any URL: the transport is the last guard.
        try await withShutdown(of: AsyncHTTPTransport(connectTimeout: .seconds(2))) { transport in
            let url = try #require(URL(string: "http://127.0.0.1:99999/api/"))
            await #expect {
                _ = try await transport.send(HTTPRequest(url: url), deadline: .now.advanced(by: .seconds(2)))
            } throws: { error in
                guard let failure = error as? TransportFailure else { return false }
                return failure.reason == .unknown && failure.detail == "http://127.0.0.1:99999/api/: the port is outside 1…65535; the request was not sent"
            }
        }
    }
}
