import ArgumentParser
import Foundation
import Testing
import TestSupport
@testable import ReaderCLI
import ReaderKit

/// `o` starts `$BROWSER` with no secret of reader's: a real browser (a script) writes down the
/// environment it was given.
@Suite struct LinkOpenerTests {
    /// A service with one secret setting, as a plugin added later declares it.
    struct KeyedService: ServicePlugin {
        var name: ServiceName { "keyed" }
        var settings: [ServiceSetting] {
            [ServiceSetting(key: "keyed.id", variable: "READER_KEYED_ID", summary: "Its id.", kind: .identity(check: { _ in nil }, unset: "none")),
             ServiceSetting(key: "keyed.key", variable: "READER_KEYED_KEY", summary: "Its key.", kind: .secret(of: "keyed.id", check: { _ in nil }))]
        }
        func service(from settings: ServiceSettings) throws(ReaderError) -> any Service {
            throw .invalidConfiguration("not in a test")
        }
    }

    @Test func theBrowserGetsNoSecretAndNoProxyPassword() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = folder.appendingPathComponent("environment").path
        let browser = folder.appendingPathComponent("browser").path
        // The whole environment, written then moved into place, so that a half-written file is never read.
        try "#!/bin/sh\nenv > \"\(written).part\"; mv \"\(written).part\" \"\(written)\"\n".write(toFile: browser, atomically: true, encoding: .utf8)
        chmod(browser, 0o700)
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": "/home/someone", "LANG": "C.UTF-8",
            "READER_REDDIT_CLIENT_ID": "the-id", "READER_REDDIT_CLIENT_SECRET": "the-reddit-secret",
            "READER_KEYED_KEY": "the-keyed-secret",
            "https_proxy": "http://alice:pa%40ss@proxy.example:3128/", "HTTP_PROXY": "http://bob:pw@proxy.example:3128",
            "ALL_PROXY": "socks5://proxy.example:1080", "no_proxy": "localhost",
        ]
        let registry = ServiceRegistry.builtIn.adding(KeyedService())
        #expect(LinkOpener.open("https://example.com/a", with: browser, environment: environment, registry: registry) == nil)
        #expect(await waitUntil { FileManager.default.fileExists(atPath: written) })
        let lines = try String(contentsOfFile: written, encoding: .utf8).split(separator: "\n").map(String.init)
        let given = Dictionary(lines.compactMap { line in line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) } },
                               uniquingKeysWith: { first, _ in first })
        #expect(given["READER_REDDIT_CLIENT_SECRET"] == nil)
        #expect(given["READER_KEYED_KEY"] == nil, "a secret setting of any service, found in the registry")
        #expect(!lines.contains { $0.contains("the-reddit-secret") || $0.contains("the-keyed-secret") || $0.contains("pa%40ss") || $0.contains(":pw@") })
        #expect(given["https_proxy"] == "http://proxy.example:3128/")
        #expect(given["HTTP_PROXY"] == "http://proxy.example:3128")
        #expect(given["ALL_PROXY"] == "socks5://proxy.example:1080")
        #expect(given["no_proxy"] == "localhost")
        #expect(given["READER_REDDIT_CLIENT_ID"] == "the-id", "an identity is no secret")
        #expect(given["HOME"] == "/home/someone")
    }

    @Test func proxyCredentialsAreTakenOut() {
        #expect(LinkOpener.withoutCredentials("http://u:p@h:1") == "http://u:p@h:1".replacingOccurrences(of: "u:p@", with: ""))
        #expect(LinkOpener.withoutCredentials("u:p@h:1") == "h:1")
        #expect(LinkOpener.withoutCredentials("http://u:p@x@h:1/a@b") == "http://h:1/a@b")
        #expect(LinkOpener.withoutCredentials("http://h:1") == "http://h:1")
        #expect(LinkOpener.withoutCredentials("http://h:1/?q=@") == "", "an @ that is not before the host: dropped, not guessed at")
    }

    @Test func theSecretsAreTheRegistrysSecretSettings() {
        // Reddit's may grow (a feed's key): whatever it declares as a secret is one.
        let builtIn = LinkOpener.secretVariables(of: .builtIn)
        #expect(builtIn.contains("READER_REDDIT_CLIENT_SECRET") && !builtIn.contains("READER_REDDIT_CLIENT_ID"))
        #expect(LinkOpener.secretVariables(of: ServiceRegistry.builtIn.adding(KeyedService())) == builtIn.union(["READER_KEYED_KEY"]))
    }
}
