import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// Every example of the README and the guide is run by the built `reader`, so that none can be
/// wrong: a fenced ```` ```console ```` block's `$ reader …` lines are run in order, one document
/// as one session (its own HOME and cache), against a loopback server holding the whole SWAPI and
/// the recorded Reddit listings, and each must end with the exit code shown (`$ echo $?` and the
/// number on the line after it; 0 when none is shown) and print every line shown under it.
/// CONTRIBUTING.md ("Examples in the documentation") describes the convention.
@Suite(.processSlot) struct DocumentationExamplesTests {
    static let documents = ["README.md", "docs/GUIDE.md"]

    @Test(.replaysRecordings, arguments: documents)
    func everyExampleRunsAsShown(document: String) async throws {
        let text = try String(contentsOf: PackageRoot.appending(document), encoding: .utf8)
        let blocks = try DocumentationExamples.blocks(in: text)
        #expect(blocks.contains { $0.notRun == nil && !$0.commands.isEmpty }, "\(document) has examples to run")
        let data = SWAPIDataSet(fromRecordings: true)
        let linked = try ReadmeSampleEndToEndTests.linkedResources()
        let handler: TestServer.Handler = { request in
            if let body = linked[request.path] { return .json(body) }
            if request.path == "/api/" { return Fixtures.route(request) }
            if let reply = data.reply(to: request) { return reply }
            if request.path == "/comments/2xmo63.json" { return .json(Fixtures.bytes("reddit/comments_r_python_2xmo63.json")) }
            return Self.redditListing(request)
        }
        var server = try await TestServer(handler)
        let port = server.port
        let reader = ReaderProcess(server: server)
        var ran = 0
        do {
            for block in blocks {
                if let reason = block.notRun {
                    print("\(document):\(block.line): not run: \(reason)")
                    continue
                }
                // The services cannot be reached: nothing listens on their port for the block.
                if block.serverDown { await server.shutdown() }
                for example in block.commands {
                    var process = reader
                    process.environment.merge(example.environment) { $1 }
                    let result = try await process.run(example.arguments)
                    ran += 1
                    let place = "\(document):\(example.line): $ \(example.source)"
                    #expect(result.status == example.status, "\(place): exit \(result.status)\n\(result.stdout)\(result.stderr)")
                    let printed = (result.stdout + "\n" + result.stderr).split(separator: "\n").map { DocumentationExamples.normalised(String($0)) }
                    for line in example.output where !DocumentationExamples.matches(line, anyOf: printed) {
                        Issue.record("\(place): prints no line like \(line.debugDescription); it printed:\n\(result.stdout)\(result.stderr)")
                    }
                }
                if block.serverDown { server = try await TestServer(port: port, handler) }
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        #expect(ran >= 5, "\(document): \(ran) examples ran")
    }

    /// The convention itself, on a sample: what runs, with what exit code and output, what is
    /// skipped and why.
    @Test func theConventionReadsCommandsStatusesAndOutput() throws {
        let sample = """
            Prose with `reader films` inline is no example.

            ```console
            $ reader films --page 2      # a comment
            ID  NAME
            …
            $ COLUMNS=100 reader posts 'a b' "c d"
            $ echo $?
            64
            ```

            ```console server-down
            $ reader films --offline
            ```

            ```console not-run: needs a terminal
            $ reader browse
            ```

            ```sh
            swift build
            ```
            """
        let blocks = try DocumentationExamples.blocks(in: sample)
        try #require(blocks.count == 3)
        #expect(blocks[0].commands.map(\.arguments) == [["films", "--page", "2"], ["posts", "a b", "c d"]])
        #expect(blocks[0].commands.map(\.status) == [0, 64])
        #expect(blocks[0].commands[0].output == ["ID NAME"])
        #expect(blocks[0].commands[1].environment == ["COLUMNS": "100"])
        #expect(blocks[0].commands[0].line == 4)
        #expect(blocks[1].serverDown && blocks[1].notRun == nil)
        #expect(blocks[2].notRun == "needs a terminal")

        // A reader command outside a console block would not be run: it is refused.
        #expect(throws: DocumentationExamples.Problem.self) { try DocumentationExamples.blocks(in: "```sh\nreader films\n```\n") }
        // So is a shell feature the test does not run.
        #expect(throws: DocumentationExamples.Problem.self) { try DocumentationExamples.blocks(in: "```console\n$ reader films | head\n```\n") }
        #expect(throws: DocumentationExamples.Problem.self) { try DocumentationExamples.blocks(in: "```console\n$ ls\n```\n") }
    }

    @Test func shownLinesMatchAllowingForAgesAndElisions() {
        let printed = ["notice T1004: showing cached data from 0 s ago: cannot connect to 127.0.0.1:4242: refused",
                       "  501       26  9 years  r/Python   A new version of Wilson's uniform spanning tree algorithm"]
            .map(DocumentationExamples.normalised)
        let notice = DocumentationExamples.normalised("notice T1004: showing cached data from 2 h ago: cannot connect to …")
        #expect(DocumentationExamples.matches(notice, anyOf: printed))
        #expect(DocumentationExamples.matches(DocumentationExamples.normalised("501 26 9 years r/Python A new version …"), anyOf: printed))
        #expect(!DocumentationExamples.matches(DocumentationExamples.normalised("notice T1003: showing cached data …"), anyOf: printed))
        #expect(!DocumentationExamples.matches(DocumentationExamples.normalised("501 27 9 years"), anyOf: printed))
    }

    /// The recorded Reddit listings, cut to the `limit` asked for with the cursor after the last
    /// post kept, as Reddit answers.
    @Sendable static func redditListing(_ request: TestServer.Request) -> TestServer.Reply {
        let reply = Fixtures.route(request)
        guard let limit = request.query["limit"].flatMap({ Int($0) }),
              case .respond(let status, let headers, let body) = reply,
              var listing = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
              var data = listing["data"] as? [String: Any], let children = data["children"] as? [[String: Any]],
              children.count > limit else { return reply }
        let kept = Array(children.prefix(limit))
        data["children"] = kept
        data["after"] = (kept.last?["data"] as? [String: Any])?["name"] ?? NSNull()
        listing["data"] = data
        guard let cut = try? JSONSerialization.data(withJSONObject: listing) else { return reply }
        return .respond(status: status, headers: headers, body: Array(cut))
    }
}

/// The examples of a Markdown document, by the convention CONTRIBUTING.md describes.
enum DocumentationExamples {
    /// A fenced ```` ```console ```` block.
    struct Block {
        /// Its fence's line, counted from 1.
        var line: Int
        /// Why it is not run (`console not-run: REASON`), or nil.
        var notRun: String?
        /// Whether the services refuse connections while it runs (`console server-down`).
        var serverDown: Bool
        var commands: [Command]
    }

    /// One `$ reader …` line with what it shows.
    struct Command {
        var line: Int
        var source: String
        var environment: [String: String]
        var arguments: [String]
        /// The exit code shown by `$ echo $?`, else 0.
        var status: Int32
        /// The lines shown under it, normalised (``normalised(_:)``).
        var output: [String]
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    static func blocks(in text: String) throws(Problem) -> [Block] {
        var blocks: [Block] = []
        var fence: String? = nil
        var current: Block? = nil
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).enumerated() {
            let number = index + 1
            if let open = fence {
                if line.trimmingCharacters(in: .whitespaces) == "```" {
                    if var block = current {
                        block.commands = block.commands.map { command in
                            var command = command
                            command.output = command.output.filter { !["", "…", "..."].contains($0) }
                            return command
                        }
                        blocks.append(block)
                    }
                    fence = nil
                    current = nil
                    continue
                }
                guard open.hasPrefix("console") else {
                    if line.trimmingCharacters(in: .whitespaces).hasPrefix("reader ") {
                        throw Problem(description: "line \(number): `\(line)` is an example outside a ```console block, which is never run")
                    }
                    continue
                }
                guard current?.notRun == nil else { continue }
                if line.hasPrefix("$ ") {
                    let source = String(line.dropFirst(2))
                    if source == "echo $?" {
                        guard current?.commands.isEmpty == false else { throw Problem(description: "line \(number): `echo $?` after no command") }
                        continue
                    }
                    current?.commands.append(try command(source, line: number))
                } else if var block = current, !block.commands.isEmpty {
                    let last = block.commands.count - 1
                    let previous = text.split(separator: "\n", omittingEmptySubsequences: false)[index - 1]
                    if previous == "$ echo $?" {
                        guard let status = Int32(line.trimmingCharacters(in: .whitespaces)) else {
                            throw Problem(description: "line \(number): `echo $?` shows \(line.debugDescription), no exit code")
                        }
                        block.commands[last].status = status
                    } else {
                        block.commands[last].output.append(normalised(line))
                    }
                    current = block
                }
                continue
            }
            guard line.hasPrefix("```") else { continue }
            let info = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
            fence = info
            guard info.hasPrefix("console") else { continue }
            let options = info.dropFirst("console".count).trimmingCharacters(in: .whitespaces)
            var block = Block(line: number, notRun: nil, serverDown: false, commands: [])
            if options.hasPrefix("not-run:") {
                block.notRun = options.dropFirst("not-run:".count).trimmingCharacters(in: .whitespaces)
                if block.notRun?.isEmpty == true { throw Problem(description: "line \(number): not-run without a reason") }
            } else if options == "server-down" {
                block.serverDown = true
            } else if !options.isEmpty {
                throw Problem(description: "line \(number): unknown console option \(options.debugDescription)")
            }
            current = block
        }
        return blocks
    }

    /// `NAME=value … reader ARGUMENTS  # comment`, split as a shell would (quotes, no expansion).
    static func command(_ source: String, line: Int) throws(Problem) -> Command {
        var words: [String] = []
        var word: String? = nil
        var quote: Character? = nil
        var previous: Character = " "
        for character in source {
            if let open = quote {
                if character == open { quote = nil } else { word = (word ?? "") + String(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                word = word ?? ""
            } else if character == "#" && previous == " " && word == nil {
                break
            } else if character == " " {
                if let done = word { words.append(done) }
                word = nil
            } else if "|&;<>`$(){}".contains(character) {
                throw Problem(description: "line \(line): `\(source)` uses the shell (\(character)); mark its block not-run, with a reason")
            } else {
                word = (word ?? "") + String(character)
            }
            previous = character
        }
        if let done = word { words.append(done) }
        var environment: [String: String] = [:]
        while let first = words.first, let equals = first.firstIndex(of: "="),
              first[..<equals].allSatisfy({ $0.isUppercase || $0 == "_" || $0.isNumber }) {
            environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
            words.removeFirst()
        }
        guard words.first == "reader" else {
            throw Problem(description: "line \(line): `\(source)` does not run reader; mark its block not-run, with a reason")
        }
        let shown = source.components(separatedBy: " #").first?.trimmingCharacters(in: .whitespaces) ?? source
        return Command(line: line, source: shown, environment: environment, arguments: Array(words.dropFirst()), status: 0, output: [])
    }

    /// A line with its spacing collapsed (a table's columns are as wide as what they hold) and
    /// every age or duration made one word, `<time>` (`3 h ago`, `1.3 ms`, `9 years`).
    static func normalised(_ line: String) -> String {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        return words.replacing(/\d+(\.\d+)? ?(ms|s|sec|min|h|d|days?|hours?|minutes?|seconds?|weeks?|months?|years?)\b/, with: "<time>")
    }

    /// Whether a shown line is one of `printed`: its parts around each `…` appear in that line in
    /// order, the first at its start.
    static func matches(_ shown: String, anyOf printed: [String]) -> Bool {
        let parts = shown.components(separatedBy: "…").map { $0.trimmingCharacters(in: .whitespaces) }
        return printed.contains { line in
            guard let first = parts.first, line.trimmingCharacters(in: .whitespaces).hasPrefix(first) else { return false }
            var rest = line.trimmingCharacters(in: .whitespaces).dropFirst(first.count)
            for part in parts.dropFirst() where !part.isEmpty {
                guard let found = rest.range(of: part) else { return false }
                rest = rest[found.upperBound...]
            }
            return true
        }
    }
}
