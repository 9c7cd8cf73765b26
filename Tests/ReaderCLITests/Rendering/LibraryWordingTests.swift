import Foundation
@testable import ReaderCLI
import ReaderKit
import Testing
import TestSupport

/// ReaderKit words its messages and advice for a program that uses it: no string literal in
/// Sources/ReaderKit names a `reader` flag (`--offline`), a `reader` command (`reader help`,
/// `'reader posts'`) or a `READER_` environment variable, except in the files of the functions that
/// read the environment themselves, which name the variable they read. `reader` words its own
/// (CLIWording), and every name ReaderKit marks in a message has a flag there.
@Suite struct LibraryWordingTests {
    static let packageRoot = PackageRoot.url

    /// The files whose functions read the environment themselves
    /// (each built-in service's `fromEnvironment`, `RedditCredentials.fromEnvironment`,
    /// `CacheLocation.resolve`, the debug build's test hook): their errors name the variable read.
    static let readersOfTheEnvironment: Set<String> = [
        "Services/SWAPI/SWAPIService.swift", "Services/Reddit/RedditService+Environment.swift", "Services/Reddit/RedditCredentials.swift", "Services/Reddit/RedditFeedKey.swift", "Cache/CacheLocation.swift",
        "Cache/TestHook.swift",
    ]

    /// reader's commands, as its parser knows them, and `help`.
    static var commands: Set<String> {
        Set(["help"] + Reader.configuration.subcommands.map { $0._commandName })
    }

    /// What a literal must not say, with the reason given when it does.
    static func problems(in literal: String, file: String) -> [String] {
        var found: [String] = []
        if let flag = literal.firstMatch(of: /(?:^|[^A-Za-z0-9_-])(--[a-z][a-z-]*)/) {
            found.append("names the flag \(flag.output.1)")
        }
        for match in literal.matches(of: /\breader ([a-z]+)\b/) where commands.contains(String(match.output.1)) {
            found.append("names the command 'reader \(match.output.1)'")
        }
        if !readersOfTheEnvironment.contains(file), let variable = literal.firstMatch(of: /READER_[A-Z_]+/) {
            found.append("names the environment variable \(variable.output)")
        }
        return found
    }

    static func kitSources() throws -> [(path: String, text: String)] {
        let root = packageRoot.appendingPathComponent("Sources/ReaderKit")
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.sorted().map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func noStringLiteralInReaderKitNamesAFlagACommandOrAReaderVariable() throws {
        let sources = try Self.kitSources()
        #expect(sources.count > 50, "the scan reads ReaderKit's sources")
        var literals = 0
        var problems: [String] = []
        for (path, text) in sources {
            for literal in SwiftStringLiterals.scan(text) {
                literals += 1
                problems += Self.problems(in: literal.text, file: path).map { "Sources/ReaderKit/\(path):\(literal.line): \"\(literal.text)\" \($0)" }
            }
        }
        #expect(literals > 500, "the scan finds ReaderKit's string literals")
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func everyNameReaderKitMarksInAMessageHasAFlagInReader() throws {
        var names: [String: String] = [:]
        for (path, text) in try Self.kitSources() {
            for match in text.matches(of: /\\\(name: "([^"]+)"\)/) { names[String(match.output.1)] = path }
        }
        #expect(names.count >= 10, "\(names)")
        for (name, path) in names.sorted(by: { $0.key < $1.key }) {
            #expect(CLIWording.flags[name]?.hasPrefix("--") == true, "\(name) (Sources/ReaderKit/\(path)) has no flag in CLIWording.flags")
        }
    }

    // MARK: - The scanner reads Swift's literals as the compiler does

    @Test func theScannerFindsEveryKindOfLiteralAndNothingInComments() {
        let source = #####"""
            // "--in-a-comment" is not a literal
            /* nor "--here", /* nested "--deeper" */ still "--comment" */
            let a = "plain --flag"
            let b = "escaped \" quote, then \(value("--nested")) and \\"
            let c = """
                multi-line --line \(x)
                with "quotes"
                """
            let d = #"raw \(not interpolated) "quoted" --raw"#
            let e = #"raw \#(interpolated("--raw-nested")) end"#
            let f = "a \(g(h("(")) + ")") b"
            """#####
        let literals = SwiftStringLiterals.scan(source)
        #expect(literals.map(\.text) == [
            "plain --flag",
            #"escaped \" quote, then \#(SwiftStringLiterals.interpolation) and \\"#,
            "--nested",
            "    multi-line --line \(SwiftStringLiterals.interpolation)\n    with \"quotes\"\n    ",
            #"raw \(not interpolated) "quoted" --raw"#,
            "raw \(SwiftStringLiterals.interpolation) end",
            "--raw-nested",
            "a \(SwiftStringLiterals.interpolation) b",
            "(",
            ")",
        ])
        #expect(literals.map(\.line) == [3, 4, 4, 5, 9, 10, 10, 11, 11, 11])
    }

    @Test func theChecksCatchWhatTheySeekAndNothingElse() {
        #expect(Self.problems(in: "try again with --offline", file: "Client/ReaderClient.swift") == ["names the flag --offline"])
        #expect(Self.problems(in: "see 'reader help'", file: "Errors/Hint.swift") == ["names the command 'reader help'"])
        #expect(Self.problems(in: "'reader posts' reads", file: "Errors/Hint.swift") == ["names the command 'reader posts'"])
        #expect(Self.problems(in: "set READER_SWAPI_URL", file: "Errors/Hint.swift") == ["names the environment variable READER_SWAPI_URL"])
        #expect(Self.problems(in: "set READER_SWAPI_URL", file: "Services/SWAPI/SWAPIService.swift").isEmpty)
        #expect(Self.problems(in: "larger than reader accepts; x--y; a - b; \u{FFFC}", file: "Errors/Hint.swift").isEmpty)
    }
}

/// The string literals of Swift source, found as the compiler finds them: comments skipped
/// (nested ones too), escapes kept, interpolations scanned as code (their own literals are
/// literals), raw strings (`#"…"#`) and multi-line ones (`"""`) read to their own delimiters.
enum SwiftStringLiterals {
    /// What stands for an interpolation in a literal's text.
    static let interpolation = "\u{FFFC}"

    struct Literal: Equatable {
        var line: Int
        /// The literal's text between its delimiters, escapes as written.
        var text: String
    }

    static func scan(_ source: String) -> [Literal] {
        var scanner = Scanner(scalars: Array(source.unicodeScalars))
        scanner.code(nested: false)
        return scanner.found.sorted { $0.order < $1.order }.map(\.literal)
    }

    private struct Scanner {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        /// Literals in the order they open (an interpolation's literal ends before its own).
        var found: [(order: Int, literal: Literal)] = []

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < scalars.count {
                if scalars[index] == "\n" { line += 1 }
                index += 1
            }
        }

        /// Whether `count` `#` follow at `offset`.
        func hashes(_ count: Int, at offset: Int) -> Bool {
            (0..<count).allSatisfy { peek(offset + $0) == "#" }
        }

        /// Code, up to the end, or up to the `)` that closes an interpolation when `nested`.
        mutating func code(nested: Bool) {
            var depth = 0
            while let scalar = peek() {
                switch scalar {
                case "/" where peek(1) == "/":
                    while let next = peek(), next != "\n" { _ = next; advance() }
                case "/" where peek(1) == "*":
                    advance(2)
                    var level = 1
                    while level > 0, peek() != nil {
                        if peek() == "/" && peek(1) == "*" { level += 1; advance(2) }
                        else if peek() == "*" && peek(1) == "/" { level -= 1; advance(2) }
                        else { advance() }
                    }
                case "#", "\"":
                    var count = 0
                    while peek(count) == "#" { count += 1 }
                    if peek(count) == "\"" {
                        advance(count)
                        string(hashes: count)
                    } else {
                        advance(max(count, 1))
                    }
                case "(" where nested:
                    depth += 1
                    advance()
                case ")" where nested:
                    advance()
                    if depth == 0 { return }
                    depth -= 1
                default:
                    advance()
                }
            }
        }

        /// A literal from its opening quote, with `hashes` `#` before it (already passed).
        mutating func string(hashes count: Int) {
            let order = index
            let startLine = line
            let multiLine = peek(1) == "\"" && peek(2) == "\""
            advance(multiLine ? 3 : 1)
            if multiLine, peek() == "\n" { advance() }
            var text = String.UnicodeScalarView()
            while let scalar = peek() {
                if scalar == "\"" {
                    let quotes = multiLine ? 3 : 1
                    if (0..<quotes).allSatisfy({ peek($0) == "\"" }), hashes(count, at: quotes) {
                        advance(quotes + count)
                        break
                    }
                }
                if scalar == "\\", hashes(count, at: 1) {
                    if peek(1 + count) == "(" {
                        advance(2 + count)
                        text.append(contentsOf: SwiftStringLiterals.interpolation.unicodeScalars)
                        code(nested: true)
                        continue
                    }
                    // An escape: the backslash, its hashes and the escaped character, as written.
                    for offset in 0...(1 + count) { if let next = peek(offset) { text.append(next) } }
                    advance(2 + count)
                    continue
                }
                text.append(scalar)
                advance()
            }
            found.append((order, Literal(line: startLine, text: String(text))))
        }
    }
}
