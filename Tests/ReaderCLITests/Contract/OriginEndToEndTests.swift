import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import TestSupport

/// Credentials stay with their origin, end to end: the built binary against two servers on
/// 127.0.0.1 (two ports, so two origins of one host), one of them redirecting to the other.
@Suite(.processSlot) struct OriginEndToEndTests {
    static let clientID = "p-jcoLKBynTLew"
    static let secret = "gko_LXELoV07ZBNUXrvWZfzE3aI"
    static let token = "token-ORIGINSECRET"

    /// Reddit's token endpoint and OAuth host on one server, whose listing path answers with
    /// `redirect` (the full Location) when one is set, and the listing to a request with the token.
    final class FakeOAuthReddit: ShutsDown, Sendable {
        let redirect = NIOLockedValueBox<String?>(nil)
        let tokenAnswer = NIOLockedValueBox<TestServer.Reply?>(nil)
        let server: TestServer

        func shutdown() async { await server.shutdown() }

        init() async throws {
            let redirect = self.redirect
            let tokenAnswer = self.tokenAnswer
            server = try await TestServer { request in
                if request.path == "/api/v1/access_token" {
                    return tokenAnswer.withLockedValue { $0 } ?? .json(Array(
                        #"{"access_token": "\#(OriginEndToEndTests.token)", "token_type": "bearer", "expires_in": 3600, "scope": "*"}"#.utf8))
                }
                guard request.headers["authorization"] == "bearer \(OriginEndToEndTests.token)" else {
                    return .json(Fixtures.bytes("reddit/error_401_invalid_token.json"), status: 401)
                }
                if request.path == "/r/popular/hot", let location = redirect.withLockedValue({ $0 }) {
                    return .respond(status: 302, headers: [("Location", location)], body: [])
                }
                return .json(Fixtures.bytes("reddit/listing_r_popular_hot_2026.json"))
            }
        }

        var apiRequests: [TestServer.Request] { server.requests.filter { $0.path != "/api/v1/access_token" } }
        var tokenRequests: [TestServer.Request] { server.requests.filter { $0.path == "/api/v1/access_token" } }
    }

    func reader(withAppIdentity reddit: FakeOAuthReddit) -> ReaderProcess {
        var reader = ReaderProcess(server: reddit.server)
        reader.environment["READER_REDDIT_CLIENT_ID"] = Self.clientID
        reader.environment["READER_REDDIT_CLIENT_SECRET"] = Self.secret
        reader.environment["READER_REDDIT_OAUTH_URL"] = reddit.server.baseURL
        return reader
    }

    /// A server that redirects every request to `location(request)`, and records them.
    func redirecting(_ location: @escaping @Sendable (TestServer.Request) -> String?) async throws -> TestServer {
        try await TestServer { request in
            guard let target = location(request) else { return SampleAPI.route(request) }
            return .respond(status: 301, headers: [("Location", target), ("Content-Type", "text/html")],
                            body: Array("<html>Moved</html>".utf8))
        }
    }

    // MARK: - The bearer token

    @Test(.replaysRecordings) func aRedirectFromTheOAuthHostToAnotherPortIsRefusedAndGetsNoToken() async throws {
        // Given the OAuth host redirecting to the same host on another port
        try await withShutdown(of: FakeOAuthReddit()) { reddit in
            try await withTestServer(SampleAPI.route) { elsewhere in
                reddit.redirect.withLockedValue { $0 = "http://127.0.0.1:\(elsewhere.port)/r/popular/hot?limit=25&raw_json=1" }

                // When reader follows the listing there
                let result = try await reader(withAppIdentity: reddit).run("posts", "popular", "-v")

                // Then the other port never sees the token (nor any request), and the refusal names it
                #expect(elsewhere.requests.allSatisfy { $0.headers["authorization"] == nil })
                #expect(elsewhere.requests.isEmpty)
                #expect(result.status == 76, "\(result.stderr)")
                #expect(result.stderr.contains("error T1010: refused to follow a redirect to http://127.0.0.1:\(elsewhere.port)/r/popular/hot: "
                    + "it leaves http://127.0.0.1:\(reddit.server.port) for another origin"), "\(result.stderr)")
                #expect(!result.stderr.contains("ORIGINSECRET") && !result.stdout.contains("ORIGINSECRET"))
            }
        }
    }

    @Test(.replaysRecordings) func aRedirectWithinTheOAuthOriginKeepsTheToken() async throws {
        // Given the OAuth host redirecting to another path of its own origin, written absolute
        try await withShutdown(of: FakeOAuthReddit()) { reddit in
            reddit.redirect.withLockedValue { $0 = "\(reddit.server.baseURL.uppercased())/r/popular/moved?limit=25&raw_json=1" }

            // When
            let result = try await reader(withAppIdentity: reddit).run("posts", "popular", "--json")

            // Then the redirect is followed with the token, and the listing is shown
            #expect(result.status == 0, "\(result.stderr)")
            #expect(reddit.apiRequests.map(\.target) == ["/r/popular/hot?limit=25&raw_json=1", "/r/popular/moved?limit=25&raw_json=1"])
            #expect(reddit.apiRequests.map { $0.headers["authorization"] } == ["bearer \(Self.token)", "bearer \(Self.token)"])
            #expect((result.json?["items"] as? [Any])?.isEmpty == false, "\(result.stdout.prefix(300))")
        }
    }

    @Test func aTokenRequestThatFailsIsNotRetriedLikeAGet() async throws {
        // Given a token endpoint that is unavailable, and retries allowed
        try await withShutdown(of: FakeOAuthReddit()) { reddit in
            reddit.tokenAnswer.withLockedValue { $0 = .json(Array("{}".utf8), status: 503) }

            // When
            let result = try await reader(withAppIdentity: reddit).run("posts", "popular", "--retries", "3", "--json")

            // Then the POST was sent once, and its failure is shown
            #expect(reddit.tokenRequests.count == 1)
            #expect(reddit.apiRequests.isEmpty)
            #expect(result.errorJSON?["code"] as? String == "H503", "\(result.stderr)")
            #expect(result.status == 69)
        }
    }

    // MARK: - Userinfo

    @Test(.replaysRecordings) func aRedirectWithAUserNameAndPasswordIsNeitherFollowedNorShown() async throws {
        // Given a Location with userinfo, to what is otherwise the same origin
        try await withShutdown(of: redirecting { request in
            request.query["moved"] == nil ? "http://spy:hunter2@127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "")/api/films/?moved=1" : nil
        }) { server in
            let reader = ReaderProcess(server: server)

            for arguments in [["films", "-v"], ["films", "-v", "--json"]] {
                // When
                let result = try await reader.run(arguments)

                // Then it is refused, and neither the name nor the password appears anywhere
                #expect(result.status == 76, "\(result.stderr)")
                for secret in ["hunter2", "spy"] {
                    #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(arguments): \(result.stderr)")
                }
                if arguments.contains("--json") {
                    // With -v the log comes first on stderr; the error object is its last line.
                    let last = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
                    let error = ((try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any])?["error"] as? [String: Any]
                    #expect(error?["code"] as? String == "T1010", "\(result.stderr)")
                    #expect(error?["message"] as? String
                        == "refused to follow a redirect to http://127.0.0.1:\(server.port)/api/films/: its Location holds a user name or password")
                } else {
                    #expect(result.stderr.contains("error T1010: refused to follow a redirect to http://127.0.0.1:\(server.port)/api/films/: "
                        + "its Location holds a user name or password"), "\(result.stderr)")
                }
            }
            #expect(server.requests.map(\.target) == ["/api/films/", "/api/films/"], "the redirect was never followed")
        }
    }

    // MARK: - Anonymous reads

    @Test(.replaysRecordings, arguments: [["films"], ["posts", "python"]])
    func aRedirectToAnotherOriginIsRefusedForAnonymousReads(_ arguments: [String]) async throws {
        // Given SWAPI or Reddit redirecting to another port of its host
        try await withTestServer(SampleAPI.route) { elsewhere in
            try await withShutdown(of: redirecting { "http://127.0.0.1:\(elsewhere.port)\($0.target)" }) { server in

                // When
                let result = try await ReaderProcess(server: server).run(arguments + ["--json"])

                // Then
                #expect(result.status == 76, "\(result.stderr)")
                #expect(result.errorJSON?["code"] as? String == "T1010")
                let message = result.errorJSON?["message"] as? String ?? ""
                #expect(message.hasPrefix("refused to follow a redirect to http://127.0.0.1:\(elsewhere.port)/"), "\(message)")
                #expect(message.hasSuffix("it leaves http://127.0.0.1:\(server.port) for another origin"), "\(message)")
                #expect(elsewhere.requests.isEmpty)
            }
        }
    }

    @Test(.replaysRecordings) func anUpgradeFromHTTPToHTTPSOnTheSameHostIsFollowed() async throws {
        // Given a redirect to https on the same host, where a plain-text server answers the handshake
        try await withShutdown(of: PlainTextListener()) { plain in
            try await withShutdown(of: redirecting { "https://127.0.0.1:\(plain.port)\($0.target)" }) { server in

                // When
                let result = try await ReaderProcess(server: server).run("films", "--json", "--retries", "0")

                // Then reader went there (and failed the TLS handshake): the redirect was not refused
                #expect(plain.connections.withLockedValue { $0 } == 1)
                #expect(result.errorJSON?["code"] as? String == "T1200", "\(result.stderr)")
                #expect(result.status == 76)
            }
        }
    }

    // MARK: - Ports outside 1…65535

    @Test(arguments: ["READER_SWAPI_URL", "READER_REDDIT_URL", "READER_REDDIT_OAUTH_URL"])
    func aBaseURLWithAPortOutOfRangeIsAConfigurationError(_ variable: String) async throws {
        // Given
        var reader = ReaderProcess()
        reader.environment[variable] = "http://127.0.0.1:99999/api"
        if variable == "READER_REDDIT_OAUTH_URL" { reader.environment["READER_REDDIT_CLIENT_ID"] = Self.clientID }

        // When
        let result = try await reader.run(variable == "READER_SWAPI_URL" ? "films" : "posts")

        // Then R1002, exit 78, and no trap
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("error R1002: \(variable) has a port outside 1…65535: \"http://127.0.0.1:99999/api\""), "\(result.stderr)")
        #expect(!result.stderr.contains("Fatal error"))
    }

    @Test(.replaysRecordings, arguments: ["99999", "0", "99999999999999999999"])
    func aRedirectToAPortOutOfRangeIsRefused(_ port: String) async throws {
        // Given
        try await withShutdown(of: redirecting { _ in "http://127.0.0.1:\(port)/api/films/" }) { server in

            // When
            let result = try await ReaderProcess(server: server).run("films")

            // Then refused before SwiftNIO sees it: no trap, no connection to port 80
            #expect(result.status == 76, "\(result.stderr)")
            #expect(result.stderr.hasPrefix("error T1010: refused to follow a redirect to http://127.0.0.1:\(port)/api/films/: "
                + "its port is outside 1…65535"), "\(result.stderr)")
            #expect(!result.stderr.contains("Fatal error"))
        }
    }
}

/// Accepts connections and answers each at once with plain-text HTTP, before any request: a TLS
/// client's handshake fails on it. Counts the connections.
final class PlainTextListener: ShutsDown, Sendable {
    let connections = NIOLockedValueBox(0)
    private let channel: any Channel
    let port: Int

    private final class Greeter: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let connections: NIOLockedValueBox<Int>
        init(connections: NIOLockedValueBox<Int>) { self.connections = connections }

        func channelActive(context: ChannelHandlerContext) {
            connections.withLockedValue { $0 += 1 }
            let bytes = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
            let channel = context.channel
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: bytes))).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    init() async throws {
        let connections = self.connections
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Greeter(connections: connections))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    func shutdown() async {
        try? await channel.close()
    }
}
