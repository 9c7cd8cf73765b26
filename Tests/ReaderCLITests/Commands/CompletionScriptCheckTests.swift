import ArgumentParser
import Foundation
import Testing
@testable import ReaderCLI

/// ArgumentParser's check for `--generate-completion-script` is skipped while a command line that
/// cannot ask for a script is parsed (issue 15: it was most of `reader --version`'s start-up), and
/// nothing a person reads changes.
@Suite(.processSlot) struct CompletionScriptCheckTests {
    @Test(arguments: [("--generate-completion-script", true), ("--generate-completion-script=zsh", true),
                      ("--generate-completion-scriptx", true), ("--generate", false), ("completions", false),
                      ("-generate-completion-script", false), ("bash", false)])
    func anArgumentThatMayAskForAScriptIsRecognised(argument: String, mayAsk: Bool) {
        #expect(CompletionScriptCheck.mayAskForScript(argument) == mayAsk)
    }

    @Test func theCheckIsOffOnlyWhileTheParseRuns() {
        #expect(Reader.configuration._superCommandName == nil)
        let inside = CompletionScriptCheck.skipping(unless: false) { Reader.configuration._superCommandName }
        #expect(inside == "reader-parse")
        #expect(Reader.configuration._superCommandName == nil)
        let asked = CompletionScriptCheck.skipping(unless: true) { Reader.configuration._superCommandName }
        #expect(asked == nil)
    }

    @Test func aCommandParsedWithTheCheckOffIsTheSameCommand() throws {
        let parsed = try CompletionScriptCheck.skipping(unless: false) {
            Result { try Reader.parseAsRoot(["films", "2", "--offline", "--json"]) }
        }.get()
        let films = try #require(parsed as? Reader.Films)
        #expect(films.query.id == 2)
        #expect(films.options.offline)
        #expect(films.options.output.json)
    }

    /// A usage error, help and the version are worded after the parse, with the standard
    /// configuration: the placeholder never shows.
    @Test(arguments: [["films", "--nosuch"], ["--help"], ["help", "films"], ["films", "--page", "x"], ["--version"], ["film"]])
    func whatAParseEndsWithIsWordedAsWithoutTheSkip(arguments: [String]) throws {
        let skipped = CompletionScriptCheck.skipping(unless: false) { Result { try Reader.parseAsRoot(arguments) } }
        let standard = Result { try Reader.parseAsRoot(arguments) }
        func words(_ result: Result<any ParsableCommand, any Error>) -> String {
            switch result {
            // `help films` parses into ArgumentParser's help command, which words the help when it
            // runs (after the parse): the end-to-end test below reads it.
            case .success(let command): return "\(type(of: command))"
            case .failure(let error): return Reader.fullMessage(for: error) + " \(Reader.exitCode(for: error).rawValue)"
            }
        }
        let skippedWords = words(skipped)
        #expect(!skippedWords.contains("reader-parse"), "\(skippedWords)")
        #expect(skippedWords == words(standard))
        #expect(!skippedWords.isEmpty)
    }

    @Test func aCompletionScriptIsStillGivenForTheFlag() async throws {
        let reader = ReaderProcess()
        for arguments in [["--generate-completion-script", "bash"], ["--generate-completion-script=zsh"]] {
            let result = try await reader.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.contains("reader") && result.stdout.contains("max-stale"), "\(arguments)")
            #expect(!result.stdout.contains("reader-parse"), "\(arguments)")
        }
        for arguments in [["films", "--help"], ["help", "films"]] {
            let help = try await reader.run(arguments)
            #expect(help.status == 0)
            #expect(help.stdout.contains("USAGE: reader films"), "\(arguments): \(help.stdout)")
            #expect(!help.stdout.contains("reader-parse"), "\(arguments)")
        }
    }
}
