import Foundation
import Testing
import TestSupport

/// `reader` behind a real proxy (tinyproxy on 127.0.0.1), as a user behind a company proxy runs
/// it: HTTP_PROXY and friends honoured, NO_PROXY going around, each failure of the proxy its own
/// code and exit code, and the proxy's password in no output at any verbosity.
@Suite(.processSlot, .enabled(if: TinyProxy.unavailableReason == nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run installs it)"))
struct ProxyEndToEndTests {
    static let user = "alice"
    static let password = "Pr0xyPa55-word"

    func reader(_ server: TestServer, proxy: String, variable: String = "HTTP_PROXY") -> ReaderProcess {
        var reader = ReaderProcess(server: server)
        reader.environment[variable] = proxy
        return reader
    }

    func expectNoPassword(_ result: ReaderProcess.Result, _ label: String) {
        let basic = Data("\(Self.user):\(Self.password)".utf8).base64EncodedString()
        for secret in [Self.password, basic] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(label) shows \(secret): \(result.stdout) \(result.stderr)")
        }
    }

    @Test func filmsAndPostsGoThroughTheProxy() async throws {
        try await withTinyProxy { proxy in
            try await withTestServer(SampleAPI.route) { server in
                let reader = reader(server, proxy: proxy.url)
                let films = try await reader.run("films")
                #expect(films.status == 0, "\(films.stderr)")
                #expect(films.stdout.contains("A New Hope"))
                let posts = try await reader.run("posts", "python")
                #expect(posts.status == 0, "\(posts.stderr)")
                #expect(server.requests.contains { $0.path == "/api/films/" })
                #expect(proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
                #expect(proxy.log.components(separatedBy: "CONNECT 127.0.0.1:\(server.port) ").count - 1 >= 2)
            }
        }
    }

    @Test func noProxyGoesAroundTheProxy() async throws {
        try await withTinyProxy { proxy in
            try await withTestServer(SampleAPI.route) { server in
                var reader = reader(server, proxy: proxy.url)
                reader.environment["no_proxy"] = "example.org,127.0.0.1"
                let films = try await reader.run("films")
                #expect(films.status == 0, "\(films.stderr)")
                #expect(server.requests.count == 1)
                #expect(!proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
            }
        }
    }

    /// Without credentials tinyproxy answers 407: the proxy asking for them.
    @Test func aProxyAskingForCredentialsIsT1307AndExit78() async throws {
        try await withTinyProxy(basicAuth: (user: Self.user, password: Self.password)) { proxy in
            try await withTestServer(SampleAPI.route) { server in
                let reader = reader(server, proxy: proxy.url, variable: "http_proxy")
                let result = try await reader.run("films", "--retries", "0")
                #expect(result.status == 78, "\(result.stderr)")
                #expect(result.stderr.contains("T1307"), "\(result.stderr)")
                #expect(result.stderr.contains("the proxy http://127.0.0.1:\(proxy.port) (from http_proxy) asks for credentials (407 Proxy Authentication Required): none were given"),
                        "\(result.stderr)")
                #expect(!result.stderr.contains("cannot find host"))
                #expect(server.requests.isEmpty)
                let json = try await reader.run("films", "--retries", "0", "--json")
                #expect(json.errorJSON?["code"] as? String == "T1307", "\(json.stderr)")
            }
        }
    }

    /// A proxy that answers 407 to the credentials given (a loopback stub: tinyproxy answers them
    /// 401) refused them: T1307, exit 78, the password never shown.
    @Test func aProxyRefusingTheCredentialsWith407IsT1307AndExit78() async throws {
        try await withTestServer({ _ in .respond(status: 407, headers: [("Proxy-Authenticate", #"Basic realm="stub""#)], body: []) }) { proxy in
            try await withTestServer(SampleAPI.route) { server in
                let reader = reader(server, proxy: "http://\(Self.user):\(Self.password)@127.0.0.1:\(proxy.port)", variable: "http_proxy")
                for arguments in [["films", "--retries", "0"], ["films", "--retries", "0", "-v"]] {
                    let result = try await reader.run(arguments)
                    #expect(result.status == 78, "\(arguments): \(result.stderr)")
                    #expect(result.stderr.contains("error T1307: the proxy http://\(Self.user):***@127.0.0.1:\(proxy.port) (from http_proxy) asks for credentials (407 Proxy Authentication Required): it refused the user name and password given\n"),
                            "\(arguments): \(result.stderr)")
                    expectNoPassword(result, "\(arguments)")
                }
                #expect(proxy.requests.allSatisfy { $0.method == "CONNECT" } && proxy.requests.count == 2, "\(proxy.requests.map(\.method))")
                #expect(server.requests.isEmpty)
            }
        }
    }

    /// tinyproxy (1.11) answers wrong credentials with 401, not 407, which AsyncHTTPClient reports
    /// without the status, as any refusal of a tunnel: the proxy refused it (T1308, exit 69), and
    /// the message and hint say the credentials given may be why.
    @Test func wrongCredentialsToTinyproxyAreItsRefusalNamingThemAndExit69() async throws {
        try await withTinyProxy(basicAuth: (user: Self.user, password: Self.password)) { proxy in
            try await withTestServer(SampleAPI.route) { server in
                let reader = reader(server, proxy: "http://\(Self.user):not-the-password@127.0.0.1:\(proxy.port)", variable: "http_proxy")
                let result = try await reader.run("films", "--retries", "0")
                #expect(result.status == 69, "\(result.stderr)")
                #expect(result.stderr.hasPrefix("error T1308: the proxy http://\(Self.user):***@127.0.0.1:\(proxy.port) (from http_proxy) refused to open a connection to 127.0.0.1:\(server.port): it answered with an error of its own, which may be its refusal of the user name and password given\n"),
                        "\(result.stderr)")
                #expect(result.stderr.contains("hint: check the user name and password in http_proxy; otherwise"), "\(result.stderr)")
                #expect(!result.stderr.contains("not-the-password"), "\(result.stderr)")
                #expect(server.requests.isEmpty)
                let json = try await reader.run("films", "--retries", "0", "--json")
                #expect(json.errorJSON?["code"] as? String == "T1308", "\(json.stderr)")
            }
        }
    }

    /// A status under 100 from the service, through the proxy's tunnel: a malformed status line,
    /// T1011, exit 76, as directly; not a crash.
    @Test func aStatusUnder100ThroughTheProxyIsT1011AndExit76() async throws {
        try await withTinyProxy { proxy in
            try await withTestServer({ _ in .raw(Array("HTTP/1.1 099 X\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)) }) { server in
                let result = try await reader(server, proxy: proxy.url).run("films", "--retries", "0")
                #expect(result.status == 76, "\(result.stderr)")
                #expect(result.stderr.hasPrefix("error T1011: 127.0.0.1 answered outside HTTP: bytes that are not an HTTP answer (through the proxy http://127.0.0.1:\(proxy.port) (from HTTP_PROXY))\n"),
                        "\(result.stderr)")
                #expect(proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
            }
        }
    }

    @Test func theRightCredentialsGetThroughAndAreNeverShown() async throws {
        try await withTinyProxy(basicAuth: (user: Self.user, password: Self.password)) { proxy in
            try await withTestServer(SampleAPI.route) { server in
                let reader = reader(server, proxy: "http://\(Self.user):\(Self.password)@127.0.0.1:\(proxy.port)")
                for arguments in [["films", "-v"], ["films", "--json", "-v", "--refresh"], ["config"], ["config", "--json"],
                                  ["status"], ["status", "--json"]] {
                    let result = try await reader.run(arguments)
                    #expect(result.status == 0, "\(arguments): \(result.stderr)")
                    expectNoPassword(result, "\(arguments)")
                }
                #expect(proxy.sawConnect(toPort: server.port))
            }
        }
    }

    @Test func anUnreachableProxyIsT1306AndNamesTheProxyNotTheService() async throws {
        let closed = try TestServer.ReservedPort()
        defer { close(closed.socket) }
        try await withTestServer(SampleAPI.route) { server in
            let reader = reader(server, proxy: "http://\(Self.user):\(Self.password)@127.0.0.1:\(closed.port)", variable: "HTTPS_PROXY")
            // The services are http:// here: ALL_PROXY would carry them, HTTPS_PROXY does not.
            var allProxy = reader
            allProxy.environment["ALL_PROXY"] = "http://\(Self.user):\(Self.password)@127.0.0.1:\(closed.port)"
            for arguments in [["films", "--retries", "0"], ["films", "--retries", "0", "-v"], ["films", "--retries", "0", "--json", "-v"]] {
                let result = try await allProxy.run(arguments)
                #expect(result.status == 75, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("T1306"), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("http://\(Self.user):***@127.0.0.1:\(closed.port) (from ALL_PROXY)"), "\(result.stderr)")
                expectNoPassword(result, "\(arguments)")
            }
            #expect(server.requests.isEmpty)
            let direct = try await reader.run("films")
            #expect(direct.status == 0, "HTTPS_PROXY is not for http:// URLs: \(direct.stderr)")
        }
    }

    @Test func aProxyReaderCannotUseIsR1002BeforeAnyRequest() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = reader(server, proxy: "socks5://\(Self.user):\(Self.password)@127.0.0.1:1080", variable: "ALL_PROXY")
            let result = try await reader.run("films")
            #expect(result.status == 78, "\(result.stderr)")
            #expect(result.stderr.contains("R1002"))
            #expect(result.stderr.contains("ALL_PROXY is not a proxy reader can use: it is a socks5:// proxy, and reader supports only http:// proxies"),
                    "\(result.stderr)")
            #expect(server.requests.isEmpty)
            expectNoPassword(result, "socks5")
        }
    }

    @Test func aProxyReaderCannotUseStopsOnlyWhatSendsRequests() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let direct = ReaderProcess(server: server)
            #expect(try await direct.run("films").status == 0)
            let before = server.requests.count
            // An ALL_PROXY set for other programs: reading offline and the cache need no proxy.
            var socks = direct
            socks.environment["ALL_PROXY"] = "socks5://\(Self.user):\(Self.password)@127.0.0.1:1080"
            let offline = try await socks.run("films", "--offline", "--json")
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(offline.json?["items"] as? [Any] != nil, "\(offline.stdout)")
            #expect(try await socks.run("cache", "stats").status == 0)
            // What sends requests refuses, as before: never directly where a proxy was asked for.
            for command in [["films", "--refresh"], ["status"], ["sync", "swapi"]] {
                let refused = try await socks.run(command)
                #expect(refused.status == 78 && refused.stderr.contains("R1002"), "\(command): \(refused.stderr)")
                expectNoPassword(refused, "socks5")
            }
            #expect(server.requests.count == before)
            // `reader config` shows the rest, and says the proxies are unusable, then the error.
            let config = try await socks.run("config")
            #expect(config.status == 78 && config.stderr.contains("ALL_PROXY is not a proxy reader can use"), "\(config.stderr)")
            #expect(config.stdout.contains("https-proxy") && config.stdout.contains("unusable (R1002 below)"), "\(config.stdout)")
            expectNoPassword(config, "socks5")
        }
    }

    @Test func configAndStatusSayWhichProxyEachServiceUses() async throws {
        try await withTinyProxy { proxy in
            try await withTestServer(SampleAPI.route) { server in
                var reader = reader(server, proxy: "http://\(Self.user):\(Self.password)@127.0.0.1:\(proxy.port)")
                reader.environment["READER_REDDIT_URL"] = "http://localhost:\(server.port)"
                reader.environment["NO_PROXY"] = "localhost,10.0.0.0/33"
                let shown = "http://\(Self.user):***@127.0.0.1:\(proxy.port)"

                let config = try await reader.run("config")
                #expect(config.status == 0, "\(config.stderr)")
                let lines = config.stdout.split(separator: "\n").map { String($0) }
                #expect(lines.contains { $0.hasPrefix("http-proxy") && $0.contains("$HTTP_PROXY") && $0.hasSuffix(shown) }, "\(config.stdout)")
                #expect(lines.contains { $0.hasPrefix("swapi.proxy") && $0.hasSuffix("\(shown) (from HTTP_PROXY)") }, "\(config.stdout)")
                #expect(lines.contains { $0.hasPrefix("reddit.proxy") && $0.hasSuffix("direct (NO_PROXY names localhost)") }, "\(config.stdout)")
                // An entry that is none of NO_PROXY's forms is said to be passed over.
                #expect(lines.contains { $0.hasPrefix("no-proxy") && $0.hasSuffix("localhost, 10.0.0.0/33 (ignored)") }, "\(config.stdout)")
                let configJSON = try #require(try await reader.run("config", "--json").json)
                let settings = try #require(configJSON["settings"] as? [String: Any])
                #expect((settings["swapi.proxy"] as? [String: Any])?["value"] as? String == shown)
                #expect((settings["reddit.proxy"] as? [String: Any])?["from"] as? String == "$NO_PROXY")

                let status = try await reader.run("status")
                #expect(status.status == 0, "\(status.stdout) \(status.stderr)")
                #expect(status.stdout.contains("swapi: \(shown) (from HTTP_PROXY)"), "\(status.stdout)")
                #expect(status.stdout.contains("reddit: direct (NO_PROXY names localhost)"), "\(status.stdout)")
                let statusJSON = try #require(try await reader.run("status", "--json").json)
                let services = try #require(statusJSON["services"] as? [[String: Any]])
                #expect(services.first { $0["api"] as? String == "swapi" }?["proxy"] as? String == shown)
                #expect(services.first { $0["api"] as? String == "reddit" }?["route"] as? String == "direct (NO_PROXY names localhost)")
            }
        }
    }
}
