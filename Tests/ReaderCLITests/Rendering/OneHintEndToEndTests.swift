import Foundation
import Testing
import TestSupport

/// One hint, about the service and the command at hand (issue 30 item 17): a refused argument's
/// hint names that command's help once (the parser's "See 'reader films --help' for more
/// information." followed reader's "see 'reader help'"); an address to check is the command's
/// service's alone; browse without a terminal names the command for scripts of the service it was to show.
@Suite(.processSlot) struct OneHintEndToEndTests {
    @Test func aRefusedArgumentHasOneHintNamingItsCommandsHelp() async throws {
        let result = try await ReaderProcess().run("films", "--page", "-1")
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("\n  hint: see 'reader films --help' for the arguments it takes\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("reader help'"), "\(result.stderr)")
        #expect(!result.stderr.contains("for more information"), "\(result.stderr)")
        #expect(result.stderr.contains("Usage:"), "the usage is kept: \(result.stderr)")
    }

    @Test func anUnreachableServiceNamesOnlyItsOwnAddress() async throws {
        let swapi = try await ReaderProcess(swapiURL: "http://127.0.0.1:9/api").run("films", "1")
        #expect(swapi.stderr.hasPrefix("error T1004:"), "\(swapi.stderr)")
        #expect(swapi.stderr.contains("READER_SWAPI_URL"), "\(swapi.stderr)")
        #expect(!swapi.stderr.contains("READER_REDDIT"), "\(swapi.stderr)")
        let reddit = try await ReaderProcess(redditURL: "http://127.0.0.1:9").run("posts", "swift")
        #expect(reddit.stderr.hasPrefix("error T1004:"), "\(reddit.stderr)")
        #expect(reddit.stderr.contains("READER_REDDIT_URL"), "\(reddit.stderr)")
        #expect(!reddit.stderr.contains("READER_SWAPI_URL"), "\(reddit.stderr)")
    }

    @Test func browseWithoutATerminalNamesTheCommandForScriptsOfItsService() async throws {
        var reader = ReaderProcess()
        reader.environment["TERM"] = "dumb"
        let swapi = try await reader.run("browse", "swapi")
        #expect(swapi.status == 64, "\(swapi.stderr)")
        #expect(swapi.stderr.contains("'reader films' is for scripts"), "\(swapi.stderr)")
        #expect(!swapi.stderr.contains("reader posts"), "\(swapi.stderr)")
        #expect(!swapi.stderr.contains("reader help'"), "\(swapi.stderr)")
        let reddit = try await reader.run("browse", "python")
        #expect(reddit.stderr.contains("'reader posts' is for scripts"), "\(reddit.stderr)")
    }
}
