import Foundation
import Testing
import ReaderKit
import TestSupport

/// What each answer of a proxy to `CONNECT` becomes, from a stub proxy: a loopback TestServer that
/// answers every request with one status. A 407 is the proxy asking for credentials (T1307),
/// whether or not some were given; any other refusal is the proxy's own (T1308), and when
/// credentials were given they may be why, as AsyncHTTPClient does not say which status it was.
@Suite(.serialized) struct ProxyAnswerTests {
    static let password = "stub-S3cret-7"

    /// What a GET of a service through a proxy at `proxyURL` fails with.
    func failure(through proxyURL: String) async throws -> TransportFailure {
        let proxies: ProxySettings
        do throws(ReaderError) { proxies = try ProxySettings(environment: ["http_proxy": proxyURL]) } catch { throw error }
        return try await withShutdown(of: AsyncHTTPTransport(connectTimeout: .seconds(30), proxies: proxies)) { transport in
            try await TransportFaultTests().failure(of: "http://service.invalid/api/films/", through: transport)
        }
    }

    /// A stub proxy answering `status` to every request.
    func withStubProxy(answering status: Int, _ body: (TestServer) async throws -> Void) async throws {
        try await withTestServer { _ in
            .respond(status: status, headers: status == 407 ? [("Proxy-Authenticate", #"Basic realm="stub""#)] : [], body: [])
        } body: { proxy in
            try await body(proxy)
            #expect(proxy.requests.map(\.method) == ["CONNECT"])
            #expect(proxy.requests.first?.target == "service.invalid:80")
        }
    }

    @Test func a407ToCredentialsGivenIsT1307SayingTheyWereRefused() async throws {
        try await withStubProxy(answering: 407) { proxy in
            let failure = try await failure(through: "http://alice:\(Self.password)@127.0.0.1:\(proxy.port)")
            let error = ReaderError.transport(failure)
            #expect(error.code.description == "T1307", "\(failure)")
            #expect(error.exitCode == .configuration)
            #expect(error.message == "the proxy http://alice:***@127.0.0.1:\(proxy.port) (from http_proxy) asks for credentials (407 Proxy Authentication Required): it refused the user name and password given")
            #expect(proxy.requests.first?.headers["proxy-authorization"] == "Basic " + Data("alice:\(Self.password)".utf8).base64EncodedString())
        }
    }

    @Test func a407WithoutCredentialsIsT1307SayingNoneWereGiven() async throws {
        try await withStubProxy(answering: 407) { proxy in
            let error = ReaderError.transport(try await failure(through: "http://127.0.0.1:\(proxy.port)"))
            #expect(error.code.description == "T1307")
            #expect(error.message.hasSuffix(": none were given"), "\(error.message)")
        }
    }

    /// tinyproxy's answer to wrong credentials: the refusal is the proxy's, and the credentials
    /// may be why.
    @Test func a401ToCredentialsGivenIsT1308NamingTheCredentials() async throws {
        try await withStubProxy(answering: 401) { proxy in
            let error = ReaderError.transport(try await failure(through: "http://alice:\(Self.password)@127.0.0.1:\(proxy.port)"))
            #expect(error.code.description == "T1308")
            #expect(error.exitCode == .unavailable)
            #expect(error.message == "the proxy http://alice:***@127.0.0.1:\(proxy.port) (from http_proxy) refused to open a connection to service.invalid:80: it answered with an error of its own, which may be its refusal of the user name and password given")
            #expect(error.hints().text == "check the user name and password in http_proxy; otherwise the proxy's rules may forbid this host or port, or it cannot reach the service itself: ask whoever runs it, or name the host in NO_PROXY to connect directly")
            #expect(!"\(error.message) \(error.hints().text) \(error.technicalDetail)".contains(Self.password))
        }
    }

    /// Without credentials, a refusal says nothing of them.
    @Test func a403WithoutCredentialsIsT1308() async throws {
        try await withStubProxy(answering: 403) { proxy in
            let error = ReaderError.transport(try await failure(through: "http://127.0.0.1:\(proxy.port)"))
            #expect(error.code.description == "T1308")
            #expect(error.message == "the proxy http://127.0.0.1:\(proxy.port) (from http_proxy) refused to open a connection to service.invalid:80: it answered with an error of its own")
            #expect(error.hints().text == "the proxy's rules may forbid this host or port, or it cannot reach the service itself: ask whoever runs it, or name the host in NO_PROXY to connect directly")
        }
    }
}
