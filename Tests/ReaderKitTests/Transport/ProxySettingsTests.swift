import Foundation
import Testing
import ReaderKit

/// The proxies the environment names, read as curl reads them, and the hosts NO_PROXY sends
/// directly.
@Suite struct ProxySettingsTests {
    static let reddit = URL(string: "https://www.reddit.com/r/swift.json")!
    static let plain = URL(string: "http://swapi.dev/api/films/")!

    func settings(_ environment: [String: String]) throws -> ProxySettings {
        do throws(ReaderError) { return try ProxySettings(environment: environment) } catch { throw error }
    }

    func refusal(_ environment: [String: String]) -> ReaderError? {
        do throws(ReaderError) { _ = try ProxySettings(environment: environment); return nil } catch { return error }
    }

    @Test func noVariableMeansDirect() throws {
        let proxies = try settings(["HOME": "/root"])
        #expect(proxies == .direct)
        #expect(proxies.route(for: Self.reddit) == .direct)
        #expect(proxies.route(for: Self.plain).shown == "direct")
    }

    @Test func eachSchemeHasItsVariableAndAllProxyIsTheFallback() throws {
        let proxies = try settings(["HTTPS_PROXY": "http://secure.example:3128", "http_proxy": "plain.example:8080",
                                    "ALL_PROXY": "http://fallback.example:1"])
        #expect(proxies.route(for: Self.reddit).server?.shown == "http://secure.example:3128")
        #expect(proxies.route(for: Self.reddit).shown == "http://secure.example:3128 (from HTTPS_PROXY)")
        #expect(proxies.route(for: Self.plain).shown == "http://plain.example:8080 (from http_proxy)")
        let fallback = try settings(["all_proxy": "http://fallback.example:1"])
        #expect(fallback.route(for: Self.reddit).shown == "http://fallback.example:1 (from all_proxy)")
        #expect(fallback.route(for: Self.plain).shown == "http://fallback.example:1 (from all_proxy)")
    }

    @Test func theLowerCaseFormWinsAndAnEmptyOneIsUnset() throws {
        let both = try settings(["https_proxy": "http://lower.example:1", "HTTPS_PROXY": "http://upper.example:2"])
        #expect(both.https?.host == "lower.example")
        #expect(both.https?.variable == "https_proxy")
        let empty = try settings(["https_proxy": "", "HTTPS_PROXY": "http://upper.example:2"])
        #expect(empty.https?.variable == "HTTPS_PROXY")
    }

    /// In a CGI program a request's `Proxy:` header arrives as HTTP_PROXY ("httpoxy"): never read there.
    @Test func upperCaseHTTPProxyIsNotReadInACGIProgram() throws {
        #expect(try settings(["HTTP_PROXY": "http://p.example:1"]).http?.host == "p.example")
        #expect(try settings(["HTTP_PROXY": "http://p.example:1", "REQUEST_METHOD": "GET"]).http == nil)
        #expect(try settings(["http_proxy": "http://p.example:1", "REQUEST_METHOD": "GET"]).http?.host == "p.example")
    }

    @Test func credentialsArePercentDecodedAndNeverShown() throws {
        let proxies = try settings(["HTTPS_PROXY": "http://al%40ice:p%3Ass%2Fw0rd@proxy.example:3128/"])
        let server = try #require(proxies.https)
        #expect(server.user == "al@ice")
        #expect(server.password == "p:ss/w0rd")
        #expect(server.shown == "http://al@ice:***@proxy.example:3128")
        // Interpolated, printed or dumped, as a log line or a failed expectation would show it.
        var dumped = ""
        dump(proxies, to: &dumped)
        for text in ["\(server)", String(reflecting: server), "\(proxies)", String(reflecting: proxies.route(for: Self.reddit)), dumped] {
            #expect(!text.contains("w0rd"), "\(text)")
        }
        #expect(proxies.secrets.contains("p:ss/w0rd"))
        #expect(proxies.secrets.contains(Data("al@ice:p:ss/w0rd".utf8).base64EncodedString()))
    }

    @Test func aProxyWithoutAPortIsOnCurlsDefaultPortAndIPv6IsBracketed() throws {
        #expect(try settings(["HTTPS_PROXY": "proxy.example"]).https?.port == 1080)
        let v6 = try #require(try settings(["HTTPS_PROXY": "http://[::1]:3128"]).https)
        #expect(v6.host == "::1")
        #expect(v6.shown == "http://[::1]:3128")
    }

    @Test(arguments: [
        ("socks5://proxy.example:1080", "it is a socks5:// proxy, and reader supports only http:// proxies"),
        ("https://proxy.example:443", "it is a https:// proxy, and reader supports only http:// proxies"),
        ("http://proxy.example:99999", "its port is not a number from 1 to 65535"),
        ("http://proxy.example:", "its port is not a number from 1 to 65535"),
        ("http://:3128", "it names no host"),
        ("http://user:p%ZZ@proxy.example:1", "its password is not valid percent-encoding"),
        ("http://pro xy.example:1", "its host is not a host name or address"),
        ("http://[::1:1", "its IPv6 address has no closing ]"),
    ])
    func aProxyReaderCannotUseIsAConfigurationErrorThatNamesTheVariable(_ value: String, _ why: String) throws {
        let error = try #require(refusal(["https_proxy": value]))
        #expect(error.code.description == "R1002")
        #expect(error.exitCode == .configuration)
        #expect(error.message.hasPrefix("https_proxy is not a proxy reader can use: \(why)"), "\(error.message)")
    }

    @Test func aRefusalNeverShowsThePassword() throws {
        let error = try #require(refusal(["HTTPS_PROXY": "http://alice:hunter2secret@proxy.example:notaport"]))
        #expect(!error.message.contains("hunter2secret"))
    }

    // MARK: - NO_PROXY

    func route(_ url: String, noProxy: String) throws -> ProxySettings.Route {
        try settings(["HTTPS_PROXY": "http://p.example:1", "HTTP_PROXY": "http://p.example:1", "NO_PROXY": noProxy])
            .route(for: try #require(URL(string: url)))
    }

    @Test(arguments: [
        // A name and every name under it, with or without a leading dot, never a longer name.
        ("https://www.reddit.com/", "reddit.com", "reddit.com"),
        ("https://reddit.com/", ".reddit.com", ".reddit.com"),
        ("https://www.reddit.com/", "*.reddit.com", "*.reddit.com"),
        ("https://WWW.Reddit.COM./", "reddit.com", "reddit.com"),
        ("https://www.reddit.com/", "example.org, *", "*"),
        ("https://www.reddit.com/", "example.org reddit.com", "reddit.com"),
        // Addresses, blocks and ports.
        ("http://127.0.0.1:8080/", "127.0.0.1", "127.0.0.1"),
        ("http://10.1.2.3/", "10.0.0.0/8", "10.0.0.0/8"),
        ("http://[::1]:8080/", "::1", "::1"),
        ("http://[fd00::5]/", "fd00::/8", "fd00::/8"),
        ("http://127.0.0.1:8080/", "127.0.0.1:8080", "127.0.0.1:8080"),
        ("https://swapi.dev/api/", "swapi.dev:443", "swapi.dev:443"),
        ("http://[::1]:8080/", "[::1]:8080", "[::1]:8080"),
    ])
    func noProxyNamesTheHost(_ url: String, _ noProxy: String, _ entry: String) throws {
        #expect(try route(url, noProxy: noProxy) == .bypassed(entry: entry, variable: "NO_PROXY"))
    }

    @Test(arguments: [
        ("https://notreddit.com/", "reddit.com"),
        ("https://reddit.com.evil.example/", "reddit.com"),
        ("http://11.1.2.3/", "10.0.0.0/8"),
        ("http://127.0.0.1:8081/", "127.0.0.1:8080"),
        ("https://swapi.dev/api/", "swapi.dev:80"),
        ("http://[::2]/", "::1"),
        ("https://www.reddit.com/", "www.*.com, 10.0.0.0/99, , :"),
    ])
    func noProxyLeavesOtherHostsToTheProxy(_ url: String, _ noProxy: String) throws {
        #expect(try route(url, noProxy: noProxy).server?.host == "p.example")
    }

    @Test func theEntriesPassedOverAreNamedInOrder() {
        let bypass = ProxySettings.Bypass("www.*.com, 10.0.0.0/99,.example.com :, host:99999 ::1 10.0.0.0/99", variable: "NO_PROXY")
        #expect(bypass.entries == ["www.*.com", "10.0.0.0/99", ".example.com", ":", "host:99999", "::1", "10.0.0.0/99"])
        #expect(bypass.ignoredEntries == ["www.*.com", "10.0.0.0/99", ":", "host:99999", "10.0.0.0/99"])
        #expect(ProxySettings.Bypass("*, .a.example").ignoredEntries.isEmpty)
    }

    @Test func theLowerCaseNoProxyWinsAndIsNamed() throws {
        let proxies = try settings(["HTTPS_PROXY": "http://p.example:1", "no_proxy": "reddit.com", "NO_PROXY": "other.example"])
        #expect(proxies.route(for: Self.reddit).shown == "direct (no_proxy names reddit.com)")
    }
}

/// From the second attack: through a proxy, a lost connection or a deadline was told as the
/// service's alone ("the connection to swapi.dev was lost"): the proxy it went through is named.
@Suite struct FailuresThroughAProxyTests {
    @Test func anyTransportFailureThroughAProxyNamesIt() {
        var lost = TransportFailure(.connectionLost, host: "swapi.dev", detail: "closed")
        lost.proxy = "http://127.0.0.1:3128"
        lost.proxyVariable = "HTTPS_PROXY"
        #expect(ReaderError.transport(lost).message
                == "the connection to swapi.dev was lost before the answer was complete (through the proxy http://127.0.0.1:3128 (from HTTPS_PROXY))")
        var timedOut = TransportFailure(.timedOut, host: "swapi.dev", detail: "deadline")
        timedOut.proxy = "http://127.0.0.1:3128"
        #expect(ReaderError.transport(timedOut).message == "the request to swapi.dev timed out (through the proxy http://127.0.0.1:3128)")
        // The proxy's own failures say it once, as they did.
        var refused = TransportFailure(.proxyRefused, host: "swapi.dev", port: 443, detail: "502")
        refused.proxy = "http://127.0.0.1:3128"
        #expect(!ReaderError.transport(refused).message.contains("(through the proxy"))
    }
}
