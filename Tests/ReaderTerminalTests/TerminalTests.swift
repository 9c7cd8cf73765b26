import Testing
import ReaderTerminal

/// The width plain output is fitted to, and messages wrapped to it (moved from ReaderCLITests'
/// TableLayoutTests with the code).
@Suite struct TerminalTests {
    @Test func aWidthFromColumnsIsBounded() {
        // Not a terminal (descriptor -1): `$COLUMNS`, which is anyone's to set, else no limit.
        #expect(Terminal.width(of: -1, environment: ["COLUMNS": "99999999999999999999"]) == nil)
        #expect(Terminal.width(of: -1, environment: ["COLUMNS": "1000000"]) == Terminal.widest)
        #expect(Terminal.width(of: -1, environment: ["COLUMNS": "-3"]) == nil)
        #expect(Terminal.width(of: -1, environment: ["COLUMNS": "72"]) == 72)
        #expect(Terminal.width(of: -1, environment: [:]) == nil)
    }

    @Test func messagesWrapWithoutSplittingACommand() {
        let footer = "37 linked names could not be loaded (A404); they show as links. 'reader sync swapi' makes them available offline"
        let lines = Terminal.wrapMessage(footer, width: 40).split(separator: "\n").map(String.init)
        #expect(lines == ["37 linked names could not be loaded", "(A404); they show as links.",
                          "'reader sync swapi' makes them available", "offline"])
        #expect(Terminal.wrapMessage("page 3 of 9, 82 in all; next: --page 4, or --all", width: 36)
                == "page 3 of 9, 82 in all; next:\n--page 4, or --all")
        #expect(Terminal.wrapMessage(footer, width: nil) == footer)
        // A word longer than the line is broken, not cut. The path is ASCII: a character a cell.
        let path = "/tmp/" + String(repeating: "folder/", count: 10) + "cache.sqlite"
        let broken = Terminal.wrapMessage("cache " + path, width: 30, hangingIndent: 4).split(separator: "\n")
        #expect(broken.allSatisfy { $0.count <= 30 })
        #expect(broken.dropFirst().allSatisfy { $0.hasPrefix("    ") })
        #expect(broken.map { $0.drop { $0 == " " } }.joined().contains(path))
    }
}
