import Foundation
import ReaderKit
import Testing
import TestSupport

/// A server that echoes a credential back — the token endpoint quoting the client secret or the
/// `Basic` credential, an API quoting the `Authorization` header in an error body or a page
/// title — never gets it shown: not in the message, not in `--json`, not with `-v`.
@Suite(.processSlot) struct SecretsEndToEndTests {
    static let clientID = "echo-app-id"
    static let secret = "ECHOEDSECRETVALUE42"
    static let token = "SEKRETTOKEN123abc"
    static var basic: String { Data("\(clientID):\(secret)".utf8).base64EncodedString() }

    func reader(_ server: TestServer) -> ReaderProcess {
        var reader = ReaderProcess(server: server)
        reader.environment["READER_REDDIT_OAUTH_URL"] = server.baseURL
        reader.environment["READER_REDDIT_CLIENT_ID"] = Self.clientID
        reader.environment["READER_REDDIT_CLIENT_SECRET"] = Self.secret
        return reader
    }

    func expectNoSecret(_ result: ReaderProcess.Result, _ label: String) {
        for secret in [Self.secret, Self.basic, Self.token, String(Self.basic.prefix(20))] {
            #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(label) shows \(secret): \(result.stderr)")
        }
    }

    static let tokenEndpointEchoes: [(status: Int, body: String)] = [
        (200, #"{"error": "\#(clientID):\#(secret)"}"#),
        (400, #"{"error": "invalid_client Basic \#(basic)"}"#),
        (401, #"{"message": "\#(secret)", "error": 401}"#),
    ]

    @Test(arguments: tokenEndpointEchoes.indices)
    func theTokenEndpointEchoingTheSecretNeverGetsItShown(_ index: Int) async throws {
        let echo = Self.tokenEndpointEchoes[index]
        try await withTestServer { _ in .json(Array(echo.body.utf8), status: echo.status) } body: { server in
            let reader = reader(server)
            for arguments in [["posts", "python"], ["posts", "python", "--json"], ["posts", "python", "-v"], ["posts", "python", "--json", "-v"]] {
                let result = try await reader.run(arguments)
                #expect(result.status == 77, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("R1004"), "\(arguments): \(result.stderr)")
                expectNoSecret(result, "\(echo.status) \(arguments)")
            }
        }
    }

    /// The API's answers, each quoting the `Authorization` header it received where `{}` stands.
    static let apiEchoes: [(status: Int, contentType: String, body: String, code: String)] = [
        (400, "application/json", #"{"message": "bad header {}", "error": 400}"#, "A400"),
        (403, "application/json", #"{"reason": "quarantined", "quarantine_message": "tok={}", "error": 403}"#, "A403"),
        (200, "text/html", "<html><title>{}</title></html>", "D1001"),
    ]

    @Test(arguments: apiEchoes.indices)
    func anAPIEchoingTheTokenNeverGetsItShown(_ index: Int) async throws {
        let echo = Self.apiEchoes[index]
        try await withTestServer { request in
            if request.path == "/api/v1/access_token" {
                return .json(Array(#"{"access_token": "\#(Self.token)", "token_type": "bearer", "expires_in": 3600}"#.utf8))
            }
            let authorization = request.headers["authorization"] ?? "none"
            return .respond(status: echo.status, headers: [("Content-Type", echo.contentType)], body: Array(echo.body.replacingOccurrences(of: "{}", with: authorization).utf8))
        } body: { server in
            let reader = reader(server)
            for arguments in [["posts", "python", "--retries", "0"], ["posts", "python", "--retries", "0", "--json", "-v"]] {
                let result = try await reader.run(arguments)
                #expect(result.status != 0, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(echo.code), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("[redacted]"), "the echo is shown, less the token: \(result.stderr)")
                expectNoSecret(result, "\(echo.code) \(arguments)")
            }
            // The token did reach the API: the test would pass vacuously otherwise.
            #expect(server.requests.contains { $0.headers["authorization"] == "bearer \(Self.token)" })
        }
    }

    /// The same echoes with the token padded by what the terminal does not draw: cleaning the text
    /// for the terminal would rebuild the token, so it is looked for as it would be shown.
    static let paddings = ["\u{200B}", "\u{00AD}", "\u{202E}", "\u{1B}[0m", "\u{FE0F}", "\u{0301}"]

    @Test(arguments: paddings)
    func anAPIEchoingTheTokenPaddedWithInvisibleCharactersNeverGetsItShown(_ padding: String) async throws {
        try await withTestServer { request in
            if request.path == "/api/v1/access_token" {
                return .json(Array(#"{"access_token": "\#(Self.token)", "token_type": "bearer", "expires_in": 3600}"#.utf8))
            }
            let authorization = (request.headers["authorization"] ?? "none").map { String($0) }.joined(separator: padding)
            let body = JSONValue.object(["message": .string("bad header \(authorization)"), "error": .number(400)])
            return .respond(status: 400, headers: [("Content-Type", "application/json")], body: body.serialized())
        } body: { server in
            let reader = reader(server)
            for arguments in [["posts", "python", "--retries", "0"], ["posts", "python", "--retries", "0", "--json", "-v"],
                              ["status"], ["status", "--json"], ["sync", "reddit", "python", "--retries", "0"]] {
                let result = try await reader.run(arguments)
                #expect(result.status != 0, "\(arguments): \(result.stderr)")
                // As a terminal (or a program that cleans the JSON's strings) would show it.
                let shown = TerminalText.sanitise(result.stdout + result.stderr, maxLength: .max)
                #expect(shown.range(of: Self.token, options: .caseInsensitive) == nil, "\(arguments) shows the token: \(shown)")
                #expect(shown.contains("[redacted]") || arguments.first == "sync", "\(arguments): \(shown)")
            }
            #expect(server.requests.contains { $0.headers["authorization"] == "bearer \(Self.token)" })
        }
    }

    /// A redirect's Location is the server's to write: `-v` logs each hop's URL without the token.
    @Test func aRedirectCarryingTheTokenIsLoggedWithoutIt() async throws {
        try await withTestServer { request in
            if request.path == "/api/v1/access_token" {
                return .json(Array(#"{"access_token": "\#(Self.token)", "token_type": "bearer", "expires_in": 3600}"#.utf8))
            }
            if request.path.hasPrefix("/r/python/hot") {
                return .respond(status: 302, headers: [("Location", "/r/python/\(Self.token)/x")], body: [])
            }
            return .respond(status: 404, headers: [("Content-Type", "application/json")], body: Array(#"{"error": 404}"#.utf8))
        } body: { server in
            let result = try await reader(server).run(["posts", "python", "--retries", "0", "-v"])
            #expect(server.requests.contains { $0.path == "/r/python/\(Self.token)/x" }, "the redirect was followed")
            #expect(result.stderr.contains("/r/python/[redacted]/x"), "\(result.stderr)")
            expectNoSecret(result, "-v")
        }
    }
}
