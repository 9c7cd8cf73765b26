import Foundation
import NIOConcurrencyHelpers
import ReaderKit  // not @testable: a service is built on the public API alone
import Testing
import TestSupport

/// A service defined outside ReaderKit, as a library user would: every extension point the
/// pipeline asks of it is observed on the wire or in the result, against a loopback server.
@Suite struct ServiceExtensionPointTests {
    /// A made-up API with rules of its own: a `.js` suffix, a fixed query item, its own headers,
    /// error body `{"fault": {"code": …, "text": …}}`, rate limit `Quota-Left`/`Quota-Reset`, and a
    /// redirect to `/missing` that means "not found".
    struct Widgets: Service {
        var name: ServiceName = "widgets"
        var baseURL: URL
        var freshness = FreshnessPolicy.Rule(defaultLifetime: .seconds(300))
        var authenticator: (any Authenticator)?

        func adapt(_ request: inout ServiceRequest) {
            request.path += ".js"
            request.query.append(URLQueryItem(name: "format", value: "plain"))
            request.headers.remove("User-Agent")
            request.headers.add("User-Agent", "widgets-test/1")
        }

        func errorBody(in body: Data, status: Int) -> APIErrorBody? {
            struct Fault: Decodable { struct Inner: Decodable { var code: String; var text: String }; var fault: Inner }
            guard let fault = try? JSONDecoder().decode(Fault.self, from: body) else { return nil }
            return APIErrorBody(reason: fault.fault.code, message: fault.fault.text)
        }

        func rateLimit(in headers: HeaderFields) -> RateLimitAnnouncement? {
            guard let left = headers["Quota-Left"].flatMap(Double.init), let reset = headers["Quota-Reset"].flatMap(Double.init) else { return nil }
            return RateLimitAnnouncement(remaining: left, secondsUntilReset: reset)
        }

        func failure(redirectedTo location: URL, from url: URL) -> StatusFailure? {
            location.path.hasPrefix("/missing") ? StatusFailure(status: 404, url: url.absoluteString) : nil
        }

        func explanation(of failure: StatusFailure) -> ServiceExplanation? {
            failure.status == 404 ? ServiceExplanation(reason: "no_widget", message: "there is no such widget", hint: "list the widgets") : nil
        }
    }

    struct Widget: Decodable, Sendable { var id: Int; var name: String }

    /// The test's temporary folder, removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-service")

    /// A cache file not yet made, in a folder not yet made, in the test's temporary folder.
    func cachePath() -> String {
        scratch.url.appendingPathComponent("\(UUID().uuidString)/cache.sqlite").path
    }

    func client(_ server: TestServer, _ service: Widgets? = nil, cachePath: String? = nil) -> ReaderClient {
        let widgets = service ?? Widgets(baseURL: URL(string: server.baseURL + "/v2")!)
        return ReaderClient(configuration: .init(services: ServiceConfiguration([widgets]), cachePath: cachePath, timeout: .seconds(30)),
                            sleep: { _ in })
    }

    @Test func theServiceAdaptsTheRequestAndItsEntriesAreKeptUnderItsName() async throws {
        try await withTestServer { _ in .json(Array(#"{"id": 7, "name": "sprocket"}"#.utf8)) } body: { server in
            let path = cachePath()
            try await withShutdown(of: client(server, cachePath: path)) { client in
                let widget = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/7"))
                #expect(widget.value.name == "sprocket")
                #expect(widget.metadata.url == server.baseURL + "/v2/widgets/7.js?format=plain")
                #expect(server.requests.map(\.target) == ["/v2/widgets/7.js?format=plain"])
                #expect(server.requests.first?.headers["user-agent"] == "widgets-test/1")

                // A second load is a cache hit under the service's own rule (five minutes): no request.
                let again = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/7"))
                #expect(again.metadata.source == .cache && server.requests.count == 1)
                let statistics = try await client.cacheStatistics()
                #expect(statistics.services["widgets"]?.entries == 1 && statistics.services["widgets"]?.hits == 1)
                #expect(try await client.clearCache(service: "other").entries == 0)
                #expect(try await client.clearCache(service: "widgets").entries == 1)
            }
        }
    }

    @Test func itsErrorBodyAndExplanationAreWhatTheFailureSays() async throws {
        try await withTestServer { request in
            request.path.hasSuffix("/1.js")
                ? .json(Array(#"{"fault": {"code": "locked", "text": "widget 1 is locked"}}"#.utf8), status: 423)
                : .json([], status: 302, headers: [("Location", "/missing?id=2")])
        } body: { server in
            await withShutdown(of: client(server)) { client in
                do throws(LoadFailure) {
                    _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/1"))
                    Issue.record("a 423 loaded")
                } catch {
                    #expect(error.error.code.description == "A423")
                    #expect(error.error.reason == "locked")
                    #expect(error.error.message.contains("widget 1 is locked"))
                }
                do throws(LoadFailure) {
                    _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/2"))
                    Issue.record("a redirect to /missing loaded")
                } catch {
                    #expect(error.error.code.description == "H404")
                    #expect(error.error.message == "there is no such widget")
                    #expect(error.error.hints().text == "list the widgets")
                    #expect(error.error.reason == "no_widget")
                }
                #expect(!server.requests.contains { $0.path.hasPrefix("/missing") }, "the redirect that means not found is not followed")
            }
        }
    }

    @Test func itsRateLimitHeadersStopTheNextRequest() async throws {
        try await withTestServer { _ in
            .json(Array(#"{"id": 3, "name": "cog"}"#.utf8), headers: [("Quota-Left", "0"), ("Quota-Reset", "500"), ("Cache-Control", "no-cache")])
        } body: { server in
            try await withShutdown(of: client(server)) { client in
                _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/3"))
                do throws(LoadFailure) {
                    _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/4"))
                    Issue.record("a request was sent with no quota left")
                } catch {
                    guard case .rateLimited(let failure) = error.error else { Issue.record("not rate limited: \(error.error)"); return }
                    #expect(failure.service == "widgets")
                }
                #expect(server.requests.count == 1)
            }
        }
    }

    @Test func anEndpointOfAServiceNotConfiguredIsAConfigurationError() async throws {
        await withShutdown(of: ReaderClient(configuration: .init(services: ServiceConfiguration([]), cachePath: nil))) { client in
            do throws(LoadFailure) {
                _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/1"))
                Issue.record("loaded without the service")
            } catch {
                #expect(error.error.code.description == "R1002")
            }
        }
    }

    @Test func serviceNamesAreCheckedWhereTheyAreMade() {
        #expect(ServiceName(rawValue: "open-library2")?.rawValue == "open-library2")
        for bad in ["", "Reddit", "2swapi", "a b", "a/b", "x;DROP", String(repeating: "a", count: 33), "é"] {
            #expect(ServiceName(rawValue: bad) == nil, "\(bad)")
        }
    }

    // MARK: - An authenticator

    /// Hands out `token-1`, `token-2`… and counts how often it was asked.
    final class Tokens: Authenticator, Sendable {
        let origin: Origin
        let issued = NIOLockedValueBox(0)
        init(origin: Origin) { self.origin = origin }
        var secrets: Set<String> { ["client-secret-value"] }
        func obtainCredential(in session: AuthenticationSession) async throws(ReaderError) -> AuthenticationCredential {
            let number = issued.withLockedValue { $0 += 1; return $0 }
            return AuthenticationCredential(value: "token-\(number)", expiresAt: session.now.addingTimeInterval(3600))
        }
    }

    @Test func theCredentialGoesOnlyToItsOriginAndARefusalRenewsItOnce() async throws {
        // token-1 is refused; token-2 is taken. Another origin (a second server) never sees a token.
        try await withTestServer { _ in .json(Array(#"{"id": 9, "name": "elsewhere"}"#.utf8)) } body: { other in
            try await withTestServer { request in
                if request.path.hasSuffix("/away.js") { return .json([], status: 302, headers: [("Location", other.baseURL + "/v2/widgets/9.js")]) }
                return request.headers["authorization"] == "Bearer token-2"
                    ? .json(Array(#"{"id": 5, "name": "gear"}"#.utf8)) : .json(Array("{}".utf8), status: 401)
            } body: { server in
                let tokens = Tokens(origin: Origin(URL(string: server.baseURL)!)!)
                try await withShutdown(of: client(server, Widgets(baseURL: URL(string: server.baseURL + "/v2")!, authenticator: tokens))) { client in
                    let widget = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/5"))
                    #expect(widget.value.name == "gear")
                    #expect(tokens.issued.withLockedValue { $0 } == 2)
                    #expect(server.requests.map { $0.headers["authorization"] } == ["Bearer token-1", "Bearer token-2"])
                    // A redirect to another origin is refused before anything is sent there (T1010), token or not.
                    do throws(LoadFailure) {
                        _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "away"))
                        Issue.record("followed a redirect to another origin")
                    } catch {
                        #expect(error.error.code.description == "T1010")
                    }
                    #expect(other.requests.isEmpty)
                }
            }
        }
    }

    /// Reads a 403 whose fault is `token_expired` as a refusal of the token, as some APIs send it.
    final class ForbiddingTokens: Authenticator, Sendable {
        let origin: Origin
        let issued = NIOLockedValueBox(0)
        init(origin: Origin) { self.origin = origin }
        var secrets: Set<String> { [] }
        func obtainCredential(in session: AuthenticationSession) async throws(ReaderError) -> AuthenticationCredential {
            let number = issued.withLockedValue { $0 += 1; return $0 }
            return AuthenticationCredential(value: "token-\(number)", expiresAt: session.now.addingTimeInterval(3600))
        }
        func isRefusal(_ error: ReaderError) -> Bool {
            guard case .status(let failure) = error else { return false }
            return failure.status == 403 && failure.apiError?.reason == "token_expired"
        }
    }

    @Test func theAuthenticatorDecidesWhatARefusedCredentialIs() async throws {
        // A 403 that the authenticator reads as a refusal renews the token once; a 401 it does not
        // read as one is a plain failure, and nothing is renewed.
        try await withTestServer { request in
            if request.path.hasSuffix("/widgets/401.js") { return .json(Array("{}".utf8), status: 401) }
            return request.headers["authorization"] == "Bearer token-2"
                ? .json(Array(#"{"id": 5, "name": "gear"}"#.utf8)) : .json(Array(#"{"fault": {"code": "token_expired", "text": "log in again"}}"#.utf8), status: 403)
        } body: { server in
            let tokens = ForbiddingTokens(origin: Origin(URL(string: server.baseURL)!)!)
            await withShutdown(of: client(server, Widgets(baseURL: URL(string: server.baseURL + "/v2")!, authenticator: tokens))) { client in
                do throws(LoadFailure) {
                    let widget = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/5"))
                    #expect(widget.value.name == "gear")
                } catch {
                    Issue.record("\(error.error)")
                }
                #expect(tokens.issued.withLockedValue { $0 } == 2)
                do throws(LoadFailure) {
                    _ = try await client.load(Endpoint<Widget>(service: "widgets", path: "widgets/401"))
                    Issue.record("a 401 was read as a widget")
                } catch {
                    #expect(error.error.code.description == "H401")
                }
                #expect(tokens.issued.withLockedValue { $0 } == 2, "a 401 this authenticator does not call a refusal renews nothing")
            }
        }
    }

    @Test func concurrentRefusalsOfOneCredentialRenewItOnlyOnce() async throws {
        // Every request with token-1 is refused, and all of them are sent before any answer
        // comes back: each 401 must not renew again a credential a sibling already renewed.
        try await withTestServer { request in
            request.headers["authorization"] == "Bearer token-1"
                ? .json(Array("{}".utf8), status: 401) : .json(Array(#"{"id": 1, "name": "ok"}"#.utf8))
        } body: { server in
            let tokens = Tokens(origin: Origin(URL(string: server.baseURL)!)!)
            await withShutdown(of: client(server, Widgets(baseURL: URL(string: server.baseURL + "/v2")!, authenticator: tokens))) { client in
                let endpoints = (1...6).map { Endpoint<Widget>(service: "widgets", path: "widgets/\($0)") }
                let results = await client.loadConcurrently(endpoints)
                #expect(results.allSatisfy { (try? $0.get())?.value.name == "ok" })
                #expect(tokens.issued.withLockedValue { $0 } == 2, "one renewal for all six refusals")
            }
        }
    }

    /// The engine names no service: every rule of SWAPI's or Reddit's lives in `Services/`.
    /// Comments may use them as examples; code may not.
    @Test func noFileOfTheEngineNamesAService() throws {
        let sources = PackageRoot.appending("Sources/ReaderKit")
        let allowed = ["Services/", "ReaderKit.docc/"]
        let names = ["reddit", "swapi", "quarantin", "subreddit", "network security"]
        var offenders: [String] = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") && !allowed.contains(where: file.hasPrefix) {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//") else { continue }
                let lowered = code.lowercased()
                if names.contains(where: lowered.contains) { offenders.append("\(file):\(number + 1): \(code)") }
            }
        }
        #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
        #expect(FileManager.default.fileExists(atPath: sources.appendingPathComponent("Client/ReaderClient.swift").path), "the scan reads the sources")
    }
}
