import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// Application-only OAuth, end to end: one server on 127.0.0.1 plays Reddit's token endpoint and
/// its OAuth host, and the built binary runs against it.
@Suite(.processSlot) struct RedditOAuthEndToEndTests {
    static let clientID = "p-jcoLKBynTLew"
    static let secret = "gko_LXELoV07ZBNUXrvWZfzE3aI"

    /// A token endpoint and an OAuth host with switchable behaviour.
    final class FakeReddit: ShutsDown, Sendable {
        struct State {
            var issued = 0
            var expiresIn = 3600
            /// How many API requests, from now, answer 401 whatever the token.
            var unauthorizedAnswers = 0
            var refuseCredentials = false
        }

        let state = NIOLockedValueBox(State())
        let server: TestServer

        func shutdown() async { await server.shutdown() }

        init() async throws {
            let state = self.state
            server = try await TestServer { request in
                if request.path == "/api/v1/access_token" {
                    // An installed app has no secret: Reddit takes its id with an empty password.
                    let installed = String(decoding: request.body, as: UTF8.self)
                        .hasPrefix("grant_type=https%3A%2F%2Foauth.reddit.com%2Fgrants%2Finstalled_client&")
                    let password = installed ? "" : RedditOAuthEndToEndTests.secret
                    let expected = "Basic " + Data("\(RedditOAuthEndToEndTests.clientID):\(password)".utf8).base64EncodedString()
                    return state.withLockedValue { state in
                        guard request.method == "POST", !state.refuseCredentials, request.headers["authorization"] == expected else {
                            return .json(Array(#"{"message": "Unauthorized", "error": 401}"#.utf8), status: 401)
                        }
                        state.issued += 1
                        return .json(Array(#"{"access_token": "token-\#(state.issued)-SECRETVALUE", "token_type": "bearer", "expires_in": \#(state.expiresIn), "scope": "*"}"#.utf8))
                    }
                }
                return state.withLockedValue { state in
                    let current = "bearer token-\(state.issued)-SECRETVALUE"
                    if state.unauthorizedAnswers > 0 || request.headers["authorization"] != current {
                        state.unauthorizedAnswers = max(0, state.unauthorizedAnswers - 1)
                        return .json(Fixtures.bytes("reddit/error_401_invalid_token.json"), status: 401,
                                     headers: [("WWW-Authenticate", #"Bearer realm="reddit", error="invalid_token""#)])
                    }
                    if request.path.hasPrefix("/r/quarantined") {
                        return .json(Fixtures.bytes("reddit/error_403_quarantined_reason.json"), status: 403)
                    }
                    return .json(Fixtures.bytes("reddit/listing_r_popular_hot_2026.json"), headers: [
                        ("X-Ratelimit-Remaining", "996.0"), ("X-Ratelimit-Used", "4"), ("X-Ratelimit-Reset", "11")])
                }
            }
        }

        var tokenRequests: [TestServer.Request] { server.requests.filter { $0.path == "/api/v1/access_token" } }
        var apiRequests: [TestServer.Request] { server.requests.filter { $0.path != "/api/v1/access_token" } }
    }

    func reader(_ reddit: FakeReddit, secret: String? = RedditOAuthEndToEndTests.secret) -> ReaderProcess {
        var reader = ReaderProcess(server: reddit.server)
        reader.environment["READER_REDDIT_CLIENT_ID"] = Self.clientID
        reader.environment["READER_REDDIT_CLIENT_SECRET"] = secret
        reader.environment["READER_REDDIT_OAUTH_URL"] = reddit.server.baseURL
        return reader
    }

    var tokenPath: (ReaderProcess) -> String {
        { ($0.cachePath as NSString).deletingLastPathComponent + "/reddit-token.json" }
    }

    @Test(.replaysRecordings) func theFirstRunObtainsATokenAndTheNextReusesIt() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            let reader = reader(reddit)
            let first = try await reader.run("posts", "popular")
            #expect(first.status == 0, "\(first.stderr)")
            #expect(reddit.tokenRequests.count == 1)
            let grant = try #require(reddit.tokenRequests.first).body
            #expect(String(decoding: grant, as: UTF8.self) == "grant_type=client_credentials")
            // Read from the OAuth host, without `.json`, with the bearer token.
            #expect(reddit.apiRequests.map(\.target) == ["/r/popular/hot?limit=25&raw_json=1"])
            #expect(reddit.apiRequests.first?.headers["authorization"] == "bearer token-1-SECRETVALUE")

            // The token is kept where only the user can read it.
            let attributes = try FileManager.default.attributesOfItem(atPath: tokenPath(reader))
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let second = try await reader.run("posts", "popular", "--refresh")
            #expect(second.status == 0)
            #expect(reddit.tokenRequests.count == 1)
            #expect(reddit.apiRequests.count == 2)
        }
    }

    /// A token belongs to the host that issued it: when the addresses change between runs, the
    /// kept token is not sent to the new host, which is asked for one of its own.
    @Test(.replaysRecordings) func aKeptTokenIsNeverSentToAnotherHost() async throws {
        try await withShutdown(of: FakeReddit()) { first in
            try await withShutdown(of: FakeReddit()) { second in
                var reader = reader(first)
                #expect(try await reader.run("posts", "popular").status == 0)
                #expect(first.tokenRequests.count == 1)
                reader.environment["READER_REDDIT_URL"] = second.server.baseURL
                reader.environment["READER_REDDIT_OAUTH_URL"] = second.server.baseURL
                let moved = try await reader.run("posts", "popular", "--refresh")
                #expect(moved.status == 0, "\(moved.stderr)")
                #expect(second.tokenRequests.count == 1, "the new host issues its own token")
                #expect(second.apiRequests.allSatisfy { $0.headers["authorization"] == "bearer token-1-SECRETVALUE" })
                #expect(second.apiRequests.count == 1)
                // The first host's token never reached the second: the second issued token-1 of its own,
                // and its first request already carried it, not one it had not issued.
                #expect(second.server.requests.first?.path == "/api/v1/access_token")
            }
        }
    }

    @Test(.replaysRecordings) func aTokenCloseToExpiryIsRenewed() async throws {
        try await withShutdown(of: FakeReddit()) { (reddit) async throws in
            reddit.state.withLockedValue { $0.expiresIn = 30 }  // within the renewal margin
            let reader = reader(reddit)
            #expect(try await reader.run("posts", "popular").status == 0)
            #expect(try await reader.run("posts", "popular", "--refresh").status == 0)
            #expect(reddit.tokenRequests.count == 2)
        }
    }

    @Test(.replaysRecordings) func a401ResetsTheTokenOnceAndRetriesOnce() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            let reader = reader(reddit)
            #expect(try await reader.run("posts", "popular").status == 0)
            reddit.state.withLockedValue { $0.unauthorizedAnswers = 1 }  // the token was revoked
            let result = try await reader.run("posts", "popular", "--refresh", "--retries", "0")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(!result.stderr.contains("error") && !result.stderr.contains("A401"), "a reset is not an error to show: \(result.stderr)")
            #expect(reddit.tokenRequests.count == 2)
            #expect(reddit.apiRequests.count == 3)
            #expect(reddit.apiRequests.last?.headers["authorization"] == "bearer token-2-SECRETVALUE")
        }
    }

    @Test(.replaysRecordings) func aSecond401DoesNotLoop() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            reddit.state.withLockedValue { $0.unauthorizedAnswers = 100 }
            let reader = reader(reddit)
            let result = try await reader.run("posts", "popular", "--json")
            #expect(result.status == 77)
            #expect(reddit.tokenRequests.count == 2)
            #expect(reddit.apiRequests.count == 2)
            #expect(result.errorJSON?["code"] as? String == "A401")
            #expect(result.errorJSON?["reason"] as? String == "unauthorized")
            #expect((result.errorJSON?["hint"] as? String)?.contains("READER_REDDIT_CLIENT_ID") == true)
        }
    }

    /// A quarantined subreddit read with the app's token: refused, and not "anonymously".
    @Test(.replaysRecordings) func aQuarantinedSubredditReadWithTheTokenIsNotSaidToBeReadAnonymously() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            let result = try await reader(reddit).run("posts", "quarantined")
            #expect(result.status == 77 && result.stderr.contains("is quarantined"), "\(result.stderr)")
            #expect(reddit.apiRequests.last?.headers["authorization"] == "bearer token-1-SECRETVALUE")
            #expect(!result.stderr.contains("anonymously"), "\(result.stderr)")
            #expect(result.stderr.contains("the app identity of READER_REDDIT_CLIENT_ID does not opt in to it either"), "\(result.stderr)")
        }
    }

    @Test func wrongCredentialsSayWhichVariablesToCheck() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            let result = try await reader(reddit, secret: "wrong-secret").run("posts", "popular")
            #expect(result.status == 77)
            #expect(result.stderr.hasPrefix("error R1004: Reddit refused reader's app credentials (the token endpoint answered 401"))
            #expect(result.stderr.contains("check READER_REDDIT_CLIENT_ID and READER_REDDIT_CLIENT_SECRET"))
            #expect(reddit.tokenRequests.count == 1 && reddit.apiRequests.isEmpty)
        }
    }

    /// Four listings in one run: the refusal of the app's credentials is one token request, and
    /// each listing fails with it, at once.
    @Test func aRefusalOfTheAppsCredentialsIsAskedOnceARun() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            let result = try await reader(reddit, secret: "wrong-secret").run("sync", "reddit", "a", "b", "c", "d", "--json")
            #expect(result.status == 77, "\(result.stderr)")
            #expect(reddit.tokenRequests.count == 1, "\(reddit.tokenRequests.count) token requests")
            #expect(reddit.apiRequests.isEmpty)
            let sync = try #require(result.json?["reddit"] as? [String: Any], "\(result.stdout)")
            let failures = try #require(sync["failures"] as? [[String: Any]], "\(result.stdout)")
            #expect(failures.map { $0["code"] as? String } == ["R1004"])
            #expect(failures.first?["count"] as? Int == 4, "\(failures)")
            #expect((sync["not_read"] as? [[String: Any]])?.map { $0["name"] as? String } == ["r/a", "r/b", "r/c", "r/d"])
        }
    }

    /// A token renewed after a 401 and refused again: the app is refused, so renewal ends for
    /// the run; each later listing fails with the same A401 without a request.
    @Test(.replaysRecordings) func aRenewedTokenRefusedAgainEndsRenewalForTheRun() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            reddit.state.withLockedValue { $0.unauthorizedAnswers = 100 }
            let reader = reader(reddit)
            let result = try await reader.run("sync", "reddit", "a", "b", "c", "d", "--json")
            #expect(result.status == 77, "\(result.stderr)")
            #expect(reddit.tokenRequests.count == 2, "\(reddit.tokenRequests.count) token requests")
            #expect(reddit.apiRequests.count == 2, "\(reddit.apiRequests.map(\.target))")
            let sync = try #require(result.json?["reddit"] as? [String: Any], "\(result.stdout)")
            let failures = try #require(sync["failures"] as? [[String: Any]], "\(result.stdout)")
            #expect(failures.map { $0["code"] as? String } == ["A401"])
            #expect(failures.first?["count"] as? Int == 4, "\(failures)")
            #expect((sync["not_read"] as? [[String: Any]])?.map { $0["name"] as? String } == ["r/a", "r/b", "r/c", "r/d"])
            // The refused token is not kept for the next run.
            let kept = FileManager.default.contents(atPath: tokenPath(reader)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            #expect(!kept.contains("access_token"), "\(kept)")
        }
    }

    @Test(arguments: [["READER_REDDIT_CLIENT_ID": "has space"], ["READER_REDDIT_CLIENT_SECRET": "only-a-secret"],
                      ["READER_REDDIT_CLIENT_ID": "id", "READER_REDDIT_CLIENT_SECRET": "a:b"],
                      ["READER_REDDIT_OAUTH_URL": "ftp://oauth"]])
    func malformedConfigurationExits78(_ variables: [String: String]) async throws {
        var reader = ReaderProcess()
        for (name, value) in variables { reader.environment[name] = value }
        let result = try await reader.run("posts", "popular")
        #expect(result.status == 78)
        #expect(!result.stderr.contains("a:b") && !result.stderr.contains("only-a-secret"))
    }

    @Test(.replaysRecordings) func anInstalledAppUsesTheInstalledClientGrantWithAKeptDeviceID() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            // Tokens that are already within the renewal margin: the second run must ask again,
            // so there are two grants whose device ids can be compared.
            reddit.state.withLockedValue { $0.expiresIn = 30 }
            let reader = reader(reddit, secret: nil)
            let first = try await reader.run("posts", "popular")
            #expect(first.status == 0, "\(first.stderr)")
            let second = try await reader.run("posts", "popular", "--refresh")
            #expect(second.status == 0, "\(second.stderr)")
            let grants = reddit.tokenRequests.map { String(decoding: $0.body, as: UTF8.self) }
            try #require(grants.count == 2, "one grant a run: \(grants)")
            let prefix = "grant_type=https%3A%2F%2Foauth.reddit.com%2Fgrants%2Finstalled_client&device_id="
            #expect(grants.allSatisfy { $0.hasPrefix(prefix) }, "\(grants)")
            let deviceIDs = grants.map { $0.dropFirst(prefix.count) }
            // Reddit asks for 20 to 30 characters, the same for one installation.
            #expect(deviceIDs.allSatisfy { (20...30).contains($0.count) }, "\(deviceIDs)")
            #expect(deviceIDs[0] == deviceIDs[1], "the device id is kept between runs")
            #expect(deviceIDs[0] != "DO_NOT_TRACK_THIS_DEVICE", "a random id made for this installation and kept")
        }
    }

    @Test(.replaysRecordings) func theSecretAndTheTokenNeverAppearAtAnyVerbosity() async throws {
        try await withShutdown(of: FakeReddit()) { reddit in
            let reader = reader(reddit)
            var outputs: [ReaderProcess.Result] = []
            for arguments in [["posts", "popular", "-v"], ["posts", "popular", "--json", "-v", "--refresh"], ["status", "-v"],
                              ["status", "--json"]] {
                outputs.append(try await reader.run(arguments))
            }
            reddit.state.withLockedValue { $0.unauthorizedAnswers = 100 }
            outputs.append(try await reader.run("posts", "popular", "-v", "--refresh"))
            outputs.append(try await reader.run("posts", "popular", "-v", "--json", "--refresh"))
            reddit.state.withLockedValue { $0.refuseCredentials = true }
            outputs.append(try await reader.run("posts", "popular", "-v", "--refresh"))
            for output in outputs {
                for secret in [Self.secret, "SECRETVALUE", Data("\(Self.clientID):\(Self.secret)".utf8).base64EncodedString()] {
                    #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret))
                }
            }
            #expect(outputs[0].stderr.contains("POST"), "the verbose log shows the token request, not its secrets")
            #expect(outputs[2].stdout.contains("app token held, expires"))
        }
    }
}

extension RedditOAuthEndToEndTests {
    /// A captive portal answering the token endpoint with a 200 page: the service's fault, said as
    /// such, and not remembered as a refusal: each listing of the run asks for a token again.
    @Test func aTokenEndpoint200PageIsNotARefusalAndIsAskedAgain() async throws {
        try await withTestServer { _ in
            .respond(status: 200, headers: [("Content-Type", "text/html")], body: Array("<html><title>Hotel WiFi login</title></html>".utf8))
        } body: { server in
            var reader = ReaderProcess(server: server)
            reader.environment["READER_REDDIT_CLIENT_ID"] = Self.clientID
            reader.environment["READER_REDDIT_CLIENT_SECRET"] = Self.secret
            reader.environment["READER_REDDIT_OAUTH_URL"] = server.baseURL
            let one = try await reader.run("posts", "popular")
            #expect(one.status == 76, "\(one.stderr)")
            #expect(one.stderr.hasPrefix("error D1001: expected JSON but got text/html"), "\(one.stderr)")
            #expect(!one.stderr.contains("R1004") && !one.stderr.contains("READER_REDDIT_CLIENT"), "\(one.stderr)")

            let before = server.requests.count
            let sync = try await reader.run("sync", "reddit", "a", "b", "--json")
            let tokenRequests = server.requests.dropFirst(before).filter { $0.path == "/api/v1/access_token" }.count
            #expect(tokenRequests == 2, "one for each listing, \(tokenRequests) made: \(sync.stdout) \(sync.stderr)")
            #expect(!sync.stdout.contains("R1004"), "\(sync.stdout)")
        }
    }
}
