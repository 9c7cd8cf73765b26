import Foundation
@testable import ReaderCLI
import ReaderKit
import Testing

/// `reader manual` is the documentation an installed user has: it names every exit code, every
/// environment variable, every file reader keeps, and browse's keys, and sends no one to a
/// README they do not have.
@Suite(.processSlot) struct ManualPageEndToEndTests {
    @Test func theManualNamesEveryExitCode() async throws {
        let manual = try await ReaderProcess().run("manual")
        #expect(manual.status == 0)
        let status = try #require(manual.stdout.components(separatedBy: ".SH EXIT STATUS\n").last?
            .components(separatedBy: "\n.SH ").first)
        for code in ReaderKit.ExitCode.allCases {
            #expect(status.contains(".B \(code.rawValue)\n"), "exit code \(code.rawValue)")
        }
    }

    @Test func theManualNamesEveryEnvironmentVariable() async throws {
        let manual = try await ReaderProcess().run("manual")
        let environment = try #require(manual.stdout.components(separatedBy: ".SH ENVIRONMENT\n").last?
            .components(separatedBy: "\n.SH ").first)
        let declared = ServiceRegistry.builtIn.settings.compactMap(\.variable)
        #expect(declared.contains("READER_SWAPI_URL") && declared.contains("READER_REDDIT_CLIENT_SECRET"))
        let own = ["READER_CACHE_PATH", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "HOME", "NO_COLOR", "TERM", "COLUMNS", "BROWSER",
                   "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"]
        for variable in declared + own {
            #expect(environment.contains(variable), "\(variable)")
        }
    }

    @Test func theManualNamesEveryFileAndBrowsesKeys() async throws {
        let manual = try await ReaderProcess().run("manual")
        let files = try #require(manual.stdout.components(separatedBy: ".SH FILES\n").last?.components(separatedBy: "\n.SH ").first)
        for file in ["config.toml", "cache.sqlite", "reddit-token.json"] {
            #expect(files.contains(file), "\(file)")
        }
        let keys = try #require(manual.stdout.components(separatedBy: ".SH BROWSE KEYS\n").last?.components(separatedBy: "\n.SH ").first)
        for key in ["j ↓  k ↑", "g Home  G End", "PgDn ^d  PgUp ^u", "Enter l →", "Esc h ←", "q", "^c", "^z", "r", "s", "/", "?"] {
            #expect(keys.contains(".B \(key)\n"), "\(key)")
        }
        #expect(!manual.stdout.contains("README"), "an installed user has no README")
    }
}
