import Foundation
import Testing
import ReaderKit
import TestSupport

/// Requests through a real proxy (tinyproxy on 127.0.0.1): plain http and https through CONNECT
/// reach the loopback server; NO_PROXY goes around the proxy; each way the proxy fails is its own
/// code, naming the proxy and never its password.
@Suite(.serialized, .enabled(if: TinyProxy.unavailableReason == nil, "tinyproxy is not installed (apt-get install tinyproxy; .ci/run installs it)"))
struct ProxyTransportTests {
    static let certificates = Result { try TestCertificates() }
    static let password = "pr0xy-S3cret-42"

    func send(_ url: String, through transport: AsyncHTTPTransport) async throws -> Result<HTTPResponse, TransportFailure> {
        let request = HTTPRequest(url: try #require(URL(string: url)))
        do throws(TransportFailure) {
            return .success(try await transport.send(request, deadline: ContinuousClock.now.advanced(by: .seconds(60))))
        } catch {
            return .failure(error)
        }
    }

    func proxies(_ environment: [String: String]) throws -> ProxySettings {
        do throws(ReaderError) { return try ProxySettings(environment: environment) } catch { throw error }
    }

    @Test func plainHTTPGoesThroughTheProxy() async throws {
        try await withTinyProxy { proxy in
            try await withTestServer { _ in .json(Array(#"{"ok": true}"#.utf8)) } body: { server in
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30), proxies: try proxies(["http_proxy": proxy.url]))
                try await withShutdown(of: transport) { transport in
                    let response = try await send(server.baseURL + "/api/films/", through: transport).get()
                    #expect(response.status == 200)
                    #expect(String(decoding: response.body, as: UTF8.self) == #"{"ok": true}"#)
                }
                #expect(proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
                #expect(server.requests.map(\.target) == ["/api/films/"])
            }
        }
    }

    /// The test authority's certificate for 127.0.0.1, through the tunnel: TLS is end to end.
    @Test func httpsGoesThroughATunnel() async throws {
        let certificates = try Self.certificates.get()
        try await withTinyProxy { proxy in
            try await withShutdown(of: try await TestServer(tls: certificates.valid) { _ in .json(Array("{}".utf8)) }) { server in
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30), alsoTrusting: [certificates.authority],
                                                   proxies: try proxies(["HTTPS_PROXY": proxy.url]))
                try await withShutdown(of: transport) { transport in
                    let response = try await send(server.baseURL + "/", through: transport).get()
                    #expect(response.status == 200)
                }
                #expect(proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
            }
        }
    }

    @Test func noProxyGoesAroundTheProxy() async throws {
        try await withTinyProxy { proxy in
            try await withTestServer { _ in .json(Array("{}".utf8)) } body: { server in
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30),
                                                   proxies: try proxies(["http_proxy": proxy.url, "NO_PROXY": "localhost, 127.0.0.1"]))
                try await withShutdown(of: transport) { transport in
                    let response = try await send(server.baseURL + "/", through: transport).get()
                    #expect(response.status == 200)
                }
                #expect(!proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
                #expect(server.requests.count == 1)
            }
        }
    }

    /// tinyproxy answers a CONNECT without credentials with 407.
    @Test func aProxyAskingForCredentialsIsT1307() async throws {
        try await withTinyProxy(basicAuth: (user: "alice", password: Self.password)) { proxy in
            try await withTestServer { _ in .json(Array("{}".utf8)) } body: { server in
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30), proxies: try proxies(["http_proxy": proxy.url]))
                try await withShutdown(of: transport) { transport in
                    guard case .failure(let failure) = try await send(server.baseURL + "/", through: transport) else {
                        Issue.record("the proxy let the request through")
                        return
                    }
                    let error = ReaderError.transport(failure)
                    #expect(error.code.description == "T1307")
                    #expect(error.exitCode == .configuration)
                    #expect(error.failureClass == .refusedByProxy)
                    #expect(error.message == "the proxy http://127.0.0.1:\(proxy.port) (from http_proxy) asks for credentials (407 Proxy Authentication Required): none were given")
                    #expect(error.hints().text.contains("http_proxy"))
                }
                #expect(server.requests.isEmpty)
            }
        }
    }

    /// tinyproxy (1.11) answers a CONNECT with wrong credentials 401, not 407, which
    /// AsyncHTTPClient reports as an invalid proxy response, without its status: the proxy
    /// refused the tunnel (T1308), and the credentials given may be why.
    @Test func wrongCredentialsAreTheProxysRefusalNamingThem() async throws {
        try await withTinyProxy(basicAuth: (user: "alice", password: Self.password)) { proxy in
            try await withTestServer { _ in .json(Array("{}".utf8)) } body: { server in
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30),
                                                   proxies: try proxies(["http_proxy": "http://alice:wrong-password@127.0.0.1:\(proxy.port)"]))
                try await withShutdown(of: transport) { transport in
                    guard case .failure(let failure) = try await send(server.baseURL + "/", through: transport) else {
                        Issue.record("the proxy let the request through")
                        return
                    }
                    let error = ReaderError.transport(failure)
                    #expect(error.code.description == "T1308", "\(failure)")
                    #expect(error.exitCode == .unavailable)
                    #expect(error.message == "the proxy http://alice:***@127.0.0.1:\(proxy.port) (from http_proxy) refused to open a connection to 127.0.0.1:\(server.port): it answered with an error of its own, which may be its refusal of the user name and password given")
                    #expect(error.hints().text.hasPrefix("check the user name and password in http_proxy; otherwise the proxy's rules may forbid"), "\(error.hints().text)")
                    #expect(!"\(error.message) \(error.hints().text) \(error.technicalDetail)".contains("wrong-password"))
                }
                #expect(server.requests.isEmpty)
            }
        }
    }

    /// Through a tunnel, a status under 100 is refused as directly (StatusUnder100Handler): a
    /// malformed status line from the service, T1011, on the proxy's connection.
    @Test func aStatusUnder100ThroughTheProxyIsT1011NamingTheProxy() async throws {
        let bytes = Array("HTTP/1.1 099 X\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".utf8)
        try await withTinyProxy { proxy in
            try await withTestServer { _ in .raw(bytes) } body: { server in
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30), proxies: try proxies(["http_proxy": proxy.url]))
                try await withShutdown(of: transport) { transport in
                    guard case .failure(let failure) = try await send(server.baseURL + "/", through: transport) else {
                        Issue.record("a status of 099 was taken as an answer")
                        return
                    }
                    let error = ReaderError.transport(failure)
                    #expect(error.code.description == "T1011", "\(failure)")
                    #expect(error.exitCode == .protocolError)
                    #expect(error.message == "127.0.0.1 answered outside HTTP: bytes that are not an HTTP answer (through the proxy http://127.0.0.1:\(proxy.port) (from http_proxy))")
                }
                #expect(proxy.sawConnect(toPort: server.port), "the proxy's log: \(proxy.log)")
            }
        }
    }

    @Test func theRightCredentialsGetThrough() async throws {
        try await withTinyProxy(basicAuth: (user: "alice", password: Self.password)) { proxy in
            try await withTestServer { _ in .json(Array("{}".utf8)) } body: { server in
                let encoded = try #require(Self.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let transport = AsyncHTTPTransport(connectTimeout: .seconds(30),
                                                   proxies: try proxies(["http_proxy": "http://alice:\(encoded)@127.0.0.1:\(proxy.port)"]))
                try await withShutdown(of: transport) { transport in
                    let response = try await send(server.baseURL + "/", through: transport).get()
                    #expect(response.status == 200)
                }
                #expect(proxy.sawConnect(toPort: server.port))
                // The service never sees the proxy's credentials.
                #expect(server.requests.allSatisfy { $0.headers["proxy-authorization"] == nil })
            }
        }
    }

    @Test func aProxyThatIsNotThereIsT1306AndNamesIt() async throws {
        let closed = try TestServer.ReservedPort()
        defer { close(closed.socket) }
        let transport = AsyncHTTPTransport(connectTimeout: .seconds(30),
                                           proxies: try proxies(["HTTPS_PROXY": "http://bob:\(Self.password)@127.0.0.1:\(closed.port)"]))
        try await withShutdown(of: transport) { transport in
            guard case .failure(let failure) = try await send("https://www.reddit.com/r/swift.json", through: transport) else {
                Issue.record("a request through a closed port succeeded")
                return
            }
            let error = ReaderError.transport(failure)
            #expect(error.code.description == "T1306")
            #expect(error.exitCode == .temporaryFailure)
            #expect(error.failureClass == .unreachable)
            #expect(error.message == "cannot reach the proxy http://bob:***@127.0.0.1:\(closed.port) (from HTTPS_PROXY) to ask for www.reddit.com: nothing accepted the connection")
            #expect(!"\(error.message) \(error.hints().text) \(error.technicalDetail)".contains(Self.password))
        }
    }

    /// tinyproxy answers 500 to a CONNECT to a port where nothing listens: the proxy's own error.
    @Test func theProxysOwnErrorIsT1308() async throws {
        let closed = try TestServer.ReservedPort()
        defer { close(closed.socket) }
        try await withTinyProxy { proxy in
            let transport = AsyncHTTPTransport(connectTimeout: .seconds(30), proxies: try proxies(["http_proxy": proxy.url]))
            try await withShutdown(of: transport) { transport in
                guard case .failure(let failure) = try await send("http://127.0.0.1:\(closed.port)/", through: transport) else {
                    Issue.record("a request to a closed port succeeded")
                    return
                }
                let error = ReaderError.transport(failure)
                #expect(error.code.description == "T1308")
                #expect(error.exitCode == .unavailable)
                #expect(error.message == "the proxy http://127.0.0.1:\(proxy.port) (from http_proxy) refused to open a connection to 127.0.0.1:\(closed.port): it answered with an error of its own")
            }
            #expect(proxy.sawConnect(toPort: closed.port))
        }
    }
}
