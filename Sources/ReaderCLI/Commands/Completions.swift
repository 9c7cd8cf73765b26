import ArgumentParser
import Foundation
import ReaderKit

extension Reader {
    struct Completions: ParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "completions",
            abstract: "Print a shell completion script.",
            discussion: """
                Install it where your shell looks for completions, as the examples below do for \
                bash, zsh and fish. For zsh, ~/.zshrc needs 'fpath+=~/.zfunc' before 'compinit'.
                """)

        static let examples = [
            "mkdir -p ~/.local/share/bash-completion/completions",
            "reader completions bash > ~/.local/share/bash-completion/completions/reader",
            "mkdir -p ~/.zfunc && reader completions zsh > ~/.zfunc/_reader",
            "reader completions fish > ~/.config/fish/completions/reader.fish",
        ]

        @Argument(help: "bash, zsh or fish.", completion: .list(["bash", "zsh", "fish"]))
        var shell: String

        func validate() throws {
            guard CompletionShell(rawValue: shell) != nil else {
                throw ValidationError("no completions for \"\(TerminalText.sanitise(shell, maxLength: 20))\": choose bash, zsh or fish")
            }
        }

        func run() throws {
            try StandardOutput.write(Data((Reader.completionScript(for: CompletionShell(rawValue: shell)!) + "\n").utf8))
        }
    }

    struct Manual: ParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "manual",
            abstract: "Print reader's man page (roff), generated from the same definitions as --help.",
            discussion: """
                Install it as the examples below do, then read it with 'man reader'; or read it at \
                once without installing it.
                """)

        static let examples = [
            "mkdir -p ~/.local/share/man/man1",
            "reader manual > ~/.local/share/man/man1/reader.1",
            "reader manual | man -l -",
        ]

        func run() throws {
            try StandardOutput.write(Data(ManualPage.render(Reader._dumpHelp()).utf8))
        }
    }
}
