import Foundation
import ReaderKit
import Testing
import TestSupport

/// Help that helps, with the built binary: every command's `--help` ends with examples that are
/// never wrapped mid-command, whatever the width; an unknown command is answered with the one
/// meant, in reader's own error style.
@Suite(.processSlot) struct HelpThatHelpsEndToEndTests {
    /// Every command a user can ask help for, as its words after `reader`.
    static let commands: [[String]] = [
        [], ["posts"], ["comments"], ["films"], ["people"], ["planets"], ["species"], ["starships"], ["vehicles"],
        ["sync"], ["status"], ["cache"], ["cache", "stats"], ["cache", "list"], ["cache", "clear"], ["cache", "prune"], ["cache", "path"],
        ["completions"], ["manual"],
    ]

    /// The programs an example line may start with: any other start is a command cut in two.
    static let programs = ["reader ", "mkdir ", "ls "]

    @Test(arguments: [40, 80])
    func everyCommandsHelpEndsWithWholeExamples(columns: Int) async throws {
        var reader = ReaderProcess()
        reader.environment["COLUMNS"] = String(columns)
        var widest = 0
        for words in Self.commands {
            // When asking for help, as --help and as `reader help …`.
            let help = try await reader.run(words + ["--help"])
            #expect(help.status == 0, "\(words): \(help.stderr)")
            let sections = help.stdout.components(separatedBy: "\nEXAMPLES:\n")
            try #require(sections.count == 2, "\(words) has examples: \(help.stdout)")
            let examples = sections[1].split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.isEmpty }.map(String.init)
            #expect(!examples.isEmpty, "\(words)")
            for line in examples {
                // Then each example is one whole line: indented, starting with a program.
                #expect(line.hasPrefix("  ") && Self.programs.contains { line.dropFirst(2).hasPrefix($0) }, "\(words): \(line.debugDescription)")
                widest = max(widest, line.count)
            }
            // The examples of a command are its own.
            let name = words.last ?? "reader"
            #expect(examples.contains { $0.contains(" \(name)") || name == "reader" }, "\(words): \(examples)")
            let viaHelp = try await reader.run(["help"] + words)
            #expect(viaHelp.stdout.hasSuffix(sections[1]), "\(words) via help")
        }
        // Some example is wider than the terminal: it was left whole, not wrapped.
        if columns == 40 { #expect(widest > 40) }
    }

    /// Browse draws on the terminal and writes no JSON: its help does not offer `--json`, and the
    /// flag given is refused with the reason, as before.
    @Test func browsesHelpListsOnlyWhatBrowseTakes() async throws {
        let reader = ReaderProcess()
        let help = try await reader.run("browse", "--help")
        #expect(help.status == 0)
        #expect(!help.stdout.contains("--json"), "\(help.stdout)")
        #expect(help.stdout.contains("--offline") && help.stdout.contains("--no-color"), "\(help.stdout)")
        #expect(try await reader.run("posts", "--help").stdout.contains("--json"))
        let json = try await reader.run("browse", "--json", "python")
        #expect(json.status == 64 && json.stderr.contains("browse draws on the terminal and writes no JSON"), "\(json.stderr)")
    }

    @Test func theManualHasTheExamplesToo() async throws {
        let manual = try await ReaderProcess().run("manual")
        #expect(manual.status == 0)
        #expect(manual.stdout.contains("  reader films --search hope"), "\(manual.stdout)")
        #expect(manual.stdout.contains("  reader cache prune --older-than 12h --service swapi"))
    }

    @Test func anUnknownCommandIsAnsweredWithTheOneMeant() async throws {
        let reader = ReaderProcess()

        // A slip in a command name.
        let film = try await reader.run("film")
        #expect(film.status == 64)
        #expect(film.stderr.hasPrefix("error R1001: \"film\" is not a command of reader: did you mean \"films\"?\n"), "\(film.stderr)")
        #expect(film.stderr.contains("hint: "), "\(film.stderr)")

        // In a subcommand, and a transposition.
        let stat = try await reader.run("cache", "stat")
        #expect(stat.status == 64 && stat.stderr.hasPrefix("error R1001: \"stat\" is not a command of reader cache: did you mean \"stats\"?"),
                "\(stat.stderr)")
        // The usage and help are of `reader cache`, not of `cache stats`, which runs by default.
        #expect(stat.stderr.contains("hint: see 'reader cache --help' for the arguments it takes"), "\(stat.stderr)")
        #expect(stat.stderr.contains("Usage: reader cache [--json]") && !stat.stderr.contains("reader cache stats"), "\(stat.stderr)")
        let stauts = try await reader.run("stauts")
        #expect(stauts.stderr.hasPrefix("error R1001: \"stauts\" is not a command of reader: did you mean \"status\"?"), "\(stauts.stderr)")

        // Nothing near: the commands are listed instead.
        let far = try await reader.run("xyzzy")
        #expect(far.status == 64 && far.stderr.contains("\"xyzzy\" is not a command of reader: the commands are films, people, planets, species, starships, vehicles, posts, comments, browse, sync"),
                "\(far.stderr)")

        // An option: the parser's own suggestion, in reader's error style.
        let option = try await reader.run("films", "--pag", "2")
        #expect(option.status == 64 && option.stderr.hasPrefix("error R1001: Unknown option '--pag'. Did you mean '--page'?"),
                "\(option.stderr)")
    }

    @Test func aValueNotAmongAnOptionsChoicesIsAnsweredWithTheOneMeant() async throws {
        let reader = ReaderProcess()
        let slip = try await reader.run("posts", "--sort", "hto", "python")
        #expect(slip.status == 64)
        #expect(slip.stderr.hasPrefix("error R1001: \"hto\" is not a value of --sort: did you mean \"hot\"?\n"), "\(slip.stderr)")
        let far = try await reader.run("posts", "--sort=xyz")
        #expect(far.status == 64)
        #expect(far.stderr.hasPrefix(
            "error R1001: \"xyz\" is not a value of --sort: the values are hot, new, top, rising, controversial, relevance or comments\n"),
                "\(far.stderr)")
        #expect(far.stderr.contains("hint: see 'reader posts --help' for the arguments it takes"), "\(far.stderr)")
    }

    @Test func aSlipIsTheSameSlipAfterHelpAndWithAnOption() async throws {
        let reader = ReaderProcess()
        // `reader help flims` asks about a command that is not there: not reader's whole help.
        let help = try await reader.run("help", "flims")
        #expect(help.status == 64 && help.stdout.isEmpty, "\(help.stdout)")
        #expect(help.stderr.hasPrefix("error R1001: \"flims\" is not a command of reader: did you mean \"films\"?\n"), "\(help.stderr)")
        let known = try await reader.run("help", "films")
        #expect(known.status == 0 && known.stdout.contains("USAGE: reader films"), "\(known.stdout)")

        // An option after the slip is not what went wrong: `--json` is refused only because no command took it.
        let json = try await reader.run("film", "--json")
        #expect(json.status == 64)
        #expect(json.errorJSON?["message"] as? String == "\"film\" is not a command of reader: did you mean \"films\"?", "\(json.stderr)")
    }

    @Test func theSettingsAndTheCacheStatisticsFitFortyColumns() async throws {
        var reader = ReaderProcess()
        reader.environment["COLUMNS"] = "40"
        for words in [["config"], ["cache"], ["cache", "stats"]] {
            let result = try await reader.run(words)
            #expect(result.status == 0, "\(words): \(result.stderr)")
            let wide = result.stdout.split(separator: "\n").filter { TerminalText.width(String($0)) > 40 }
            #expect(wide.isEmpty, "\(words): \(wide)")
        }
        let config = try await reader.run("config")
        #expect(config.stdout.contains("\ntimeout = 20s (built-in)\n"), "\(config.stdout)")
        let stats = try await reader.run("cache")
        #expect(stats.stdout.contains("API     ENTRIES  SIZE  HITS  HIT RATIO"), "\(stats.stdout)")
    }
}
