import Foundation
@testable import ReaderCLI
import ReaderKit
import Testing

/// reader says ReaderKit's hints and messages with its flags, variables and commands.
@Suite(.processSlot) struct CLIWordingTests {
    /// reader's wording of the built-in services, given them rather than reading the process's registry.
    static let wording = CLIWording(registry: .builtIn)
    static let refused = ReaderError.transport(TransportFailure(.cannotConnectToHost, host: "127.0.0.1", port: 9, detail: ""))
    static let serverError = ReaderError.status(StatusFailure(status: 500, url: "http://127.0.0.1:9/api/people/"))
    static let notFound = ReaderError.status(StatusFailure(status: 404, url: "http://127.0.0.1:9/api/people/?page=99",
                                                           apiError: APIErrorBody.recognise(Data(#"{"detail": "Not found"}"#.utf8))))

    static func reddit(_ status: Int, body: String = "{}", blockPage: Bool = false) -> ReaderError {
        var failure = StatusFailure(status: status, url: "https://www.reddit.com/r/python/hot.json", apiError: APIErrorBody.recognise(Data(body.utf8)))
        failure.isBlockPage = blockPage
        return ReaderError.status(failure).answered(by: RedditService())
    }

    @Test func theAddressToCheckIsOfTheServicesTheWordingWasGiven() {
        let hint = [Hint.checkServiceAddress]
        #expect(CLIWording(registry: ServiceRegistry([SWAPIPlugin()])).text(of: hint) == "check the service address (READER_SWAPI_URL)")
        #expect(CLIWording(registry: .builtIn, service: "swapi").text(of: hint) == "check the service address (READER_SWAPI_URL)")
        #expect(Self.wording.text(of: hint) == "check the service address (READER_SWAPI_URL, READER_REDDIT_URL, READER_REDDIT_OAUTH_URL)")
    }

    @Test func theCachedCopyDecidesWhatTheOfflineAndMaxStaleHintsSay() {
        #expect(Self.wording.text(of: Self.refused.hints(in: ErrorContext(cachedCopy: .none)))
                == "check your connection and the service address (READER_SWAPI_URL, READER_REDDIT_URL, READER_REDDIT_OAUTH_URL), and try again; nothing is cached for this request yet, so --offline cannot show it either")
        #expect(Self.wording.text(of: Self.refused.hints(in: ErrorContext(cachedCopy: .servable)))
                == "check your connection and the service address (READER_SWAPI_URL, READER_REDDIT_URL, READER_REDDIT_OAUTH_URL), and try again; --offline shows the cached copy")
        #expect(Self.wording.text(of: Self.serverError.hints(in: ErrorContext(cachedCopy: .olderThanMaxStale)))
                == "the service has a problem; try again later; the cached copy is older than --max-stale allows (--offline refuses it too): a larger --max-stale shows it")
        let timedOut = ReaderError.transport(TransportFailure(.timedOut, host: "swapi.dev", port: nil, detail: ""))
        #expect(Self.wording.text(of: timedOut.hints(in: ErrorContext(cachedCopy: .none)))
                == "try again, or give more time with --timeout; nothing is cached for this request yet, so --offline cannot show it either")
    }

    @Test func aPagePastTheEndNamesTheLastPageFlag() {
        #expect(Self.wording.text(of: Self.notFound.hints(in: ErrorContext(pageRange: .init(pages: 9, items: 82))))
                == "there are 9 pages (82 in all): the last is --page 9")
        #expect(Self.wording.text(of: Self.notFound.hints(in: ErrorContext(pageRange: .init(pages: 1, items: 6))))
                == "there is 1 page (6 in all): leave out --page")
    }

    @Test func theErrorsOwnHintsNameReadersFlagsAndVariables() {
        let hints = [
            (ReaderError.invalidArgument("x"), "see 'reader help' for the arguments each command takes"),
            (.transport(TransportFailure(.cannotFindHost, host: "swapi.dev", port: nil, detail: "")),
             "check the address and your DNS; try again with --offline to read cached data"),
            (.transport(TransportFailure(.connectionLost, host: "swapi.dev", port: nil, detail: "")),
             "check your connection and try again; --offline reads cached data"),
            (.transport(TransportFailure(.responseTooLarge, host: "swapi.dev", port: nil, detail: "")),
             "check the service address (READER_SWAPI_URL, READER_REDDIT_URL, READER_REDDIT_OAUTH_URL)"),
            (.transport(TransportFailure(.redirectRefused, host: "swapi.dev", port: nil, detail: "")),
             "a redirect is followed only to the same scheme, host and port, or from http to https on the same host; check the service address (READER_SWAPI_URL, READER_REDDIT_URL, READER_REDDIT_OAUTH_URL)"),
            (.status(StatusFailure(status: 503, url: "u", retryAfterSeconds: 60, retryAt: Date(timeIntervalSince1970: 0))),
             "try again then, or allow a longer wait with --max-wait"),
            (.status(StatusFailure(status: 451, url: "u")),
             "the service says it may not show this here, for legal reasons; the arguments are not at fault"),
            (.status(StatusFailure(status: 511, url: "u")),
             "a network login page (captive portal) is in the way; open a browser and sign in, or try another network"),
            (.status(StatusFailure(status: 403, url: "u")),
             "the resource is private or forbidden: it cannot be read with the credential sent, or without one"),
            (.cache(CacheFailure(.notCached, path: "p", detail: "")), "run the command once without --offline while connected"),
            (.cache(CacheFailure(.tooOld, path: "p", detail: "")), "allow older data with a larger --max-stale, or connect and try again"),
            (.cache(CacheFailure(.unwritable, path: "p", detail: "")),
             "make the file and its folder writable for this user (or free disk space), or name another file with --cache-path"),
            (.cache(CacheFailure(.unavailable, path: "p", detail: "")),
             "the cache path must name a regular file this user can read (or a place where one can be made); name another file with --cache-path"),
            (.cache(CacheFailure(.corrupt, path: "p", detail: "")), "name another file with --cache-path"),
            (.rateLimited(RateLimitFailure(service: "reddit", origin: "h", resetAt: Date(timeIntervalSince1970: 0))),
             "try again after the reset, or allow a longer wait with --max-wait"),
            (.authentication(AuthenticationFailure(status: 401, serverError: nil, withoutSecret: true, service: "reddit")),
             "check READER_REDDIT_CLIENT_ID: it must be an installed app's id; a script or web app also needs READER_REDDIT_CLIENT_SECRET"),
            (.authentication(AuthenticationFailure(status: 401, serverError: nil, withoutSecret: false, service: "reddit")),
             "check READER_REDDIT_CLIENT_ID and READER_REDDIT_CLIENT_SECRET: they must be the id and secret of one Reddit app"),
        ]
        for (error, hint) in hints {
            #expect(Self.wording.text(of: error.hints()) == hint, "\(error.code)")
            #expect(!error.hints().text.contains("READER_") && !error.hints().text.contains("--") && !error.hints().text.contains("reader help"),
                    "ReaderKit's own words for \(error.code): \(error.hints().text)")
        }
    }

    @Test func redditsExplanationsAreWordedForReader() {
        let appIdentity = "create a Reddit app and set READER_REDDIT_CLIENT_ID to its id (the README's \"Reddit with an app identity\" has the steps)"
        #expect(Self.wording.text(of: Self.reddit(404, body: #"{"message": "Not Found", "error": 404}"#).hints())
                == "check the spelling; 'reader posts' without a name reads the front page")
        // A 404 without Reddit's error body is a web server's where Reddit is not: the address to check.
        #expect(Self.wording.text(of: Self.reddit(404).hints()) == Self.wording.text(of: [.checkServiceAddressNotFound]))
        #expect(Self.wording.text(of: Self.reddit(403, body: #"{"reason": "quarantined"}"#).hints())
                == "it cannot be read anonymously; reader does not opt in for you")
        // With the app's token it was not anonymous.
        #expect(Self.wording.text(of: Self.reddit(403, body: #"{"reason": "quarantined"}"#).hints(in: ErrorContext(usesToken: true)))
                == "the app identity of READER_REDDIT_CLIENT_ID does not opt in to it either; reader does not opt in for you")
        #expect(Self.wording.text(of: Self.reddit(403, body: #"{"reason": "private"}"#).hints())
                == "it cannot be read without an invitation from its moderators")
        #expect(Self.wording.text(of: Self.reddit(403).hints())
                == "Reddit may block anonymous reading from this network; \(appIdentity), or try later or from another network")
        #expect(Self.wording.text(of: Self.reddit(403, blockPage: true).hints())
                == "READER_REDDIT_SOURCE=feed reads Reddit's Atom feeds, which it still serves (no scores or comment counts); or \(appIdentity) (new apps need Reddit's approval)")
        #expect(Self.wording.text(of: Self.reddit(403, blockPage: true).hints(in: ErrorContext(usesToken: true)))
                == "Reddit refused it although reader used the app identity of READER_REDDIT_CLIENT_ID; try later or from another network")
        #expect(Self.wording.text(of: Self.reddit(429).hints())
                == "wait a few minutes; reader already waits as long as Reddit asks, up to --max-wait")
        #expect(Self.wording.text(of: Self.reddit(401).hints())
                == "check READER_REDDIT_CLIENT_ID and READER_REDDIT_CLIENT_SECRET; the app may have been deleted or its access revoked")
        // Another service's words are shown as it wrote them.
        #expect(Self.wording.text(of: [.service("hackernews", reason: "not_found", withCredential: false, text: "check the item id")])
                == "check the item id")
    }

    @Test func messagesNameReadersFlagsWhereReaderKitNamesItsParameters() {
        /// What the error `build` throws says, in ReaderKit's words and in reader's.
        func message(_ build: () throws(ReaderError) -> Void) -> [String]? {
            do throws(ReaderError) { try build() } catch { return [error.message, CLIWording.message(of: error)] }
            return nil
        }
        #expect(message { () throws(ReaderError) in _ = try SWAPI.list(Film.self, page: 0) } == ["page must be a whole number from 1 to 10000, got 0",
                                                                          "--page must be a whole number from 1 to 10000, got 0"])
        #expect(message { () throws(ReaderError) in _ = try Reddit.posts(subreddit: "swift", sort: .hot, time: .week) }
                == ["time goes with sort top or controversial, not hot", "--time goes with --sort top or controversial, not hot"])
        #expect(message { () throws(ReaderError) in _ = try CacheLocation.resolve(explicitPath: "", environment: [:]) } == ["explicitPath is empty", "--cache-path is empty"])
        let tooOld = ReaderError.cache(CacheFailure(.tooOld, path: "p", detail: ""))
        #expect(tooOld.message == "the only cached copy is older than FreshnessPolicy.maximumStale allows")
        #expect(CLIWording.message(of: tooOld) == "the only cached copy is older than --max-stale allows")
        let waiting = Notice(kind: .waiting, code: ErrorCode(.transport, 1004),
                             wording: "h cannot be reached; waiting for it (\(name: "LoadOptions.waitForConnectivity"), up to \(name: "LoadOptions.deadline"))")
        #expect(waiting.message == "h cannot be reached; waiting for it (LoadOptions.waitForConnectivity, up to LoadOptions.deadline)")
        #expect(CLIWording.message(of: waiting) == "h cannot be reached; waiting for it (--wait, up to --timeout)")
    }

    @Test func readersArgumentErrorsNameItsFlags() async throws {
        let reader = ReaderProcess()
        let cases: [([String], String)] = [
            (["films", "--page", "0"], "error R1001: --page must be a whole number from 1 to 10000, got 0"),
            (["films", "--search", " "], "error R1001: --search needs some text"),
            (["posts", "swift", "--limit", "500"], "error R1001: --limit must be from 1 to 100, got 500"),
            (["posts", "swift", "--after", "x"], "error R1001: --after takes a post's fullname such as t3_2xmo63, got \"x\""),
            (["posts", "--user", "spez", "--sort", "rising"], "error R1001: --sort rising is not available for a user's posts"),
            (["comments", "2xmo63", "--depth", "11"], "error R1001: --depth must be from 1 to 10, got 11"),
            (["comments", "2xmo63", "--limit", "501"], "error R1001: --limit must be from 1 to 500, got 501"),
            (["cache", "stats", "--cache-path", ""], "error R1001: --cache-path is empty"),
        ]
        for (arguments, expected) in cases {
            let result = try await reader.run(arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.stderr.split(separator: "\n").first.map(String.init) == expected, "\(arguments): \(result.stderr)")
        }
    }
}
