import Foundation
import Testing
import TestSupport

/// What reaches stdout, and how the process ends, whatever is outside: a body JSONDecoder reads
/// but a strict parser would not, a full disk, a closed stdout or pipe, an argument made of escape
/// sequences, Ctrl-\.
@Suite(.processSlot) struct OutputAndProcessEndToEndTests {
    /// A server answering `films/` with `body`, and everything else from the fixtures.
    private func serving(films body: [UInt8]) async throws -> TestServer {
        try await TestServer { request in
            request.path == "/api/films/" ? .json(body) : Fixtures.route(request)
        }
    }

    private var films: [UInt8] { Fixtures.bytes("swapi/films.json") }

    /// `films.json` with `members` added to the first film, right after its title.
    private func filmsWithFirstFilm(adding members: String) throws -> [UInt8] {
        let text = String(decoding: films, as: UTF8.self)
        let title = #""title":"A New Hope","#
        let range = try #require(text.range(of: title))
        return Array(text.replacingCharacters(in: range, with: title + members + ",").utf8)
    }

    private func titles(_ result: ReaderProcess.Result) -> [String] {
        (result.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
    }

    // MARK: --json reads every body the models read

    @Test(.replaysRecordings) func jsonHasTheItemsOfABodyWithAByteOrderMark() async throws {
        try await withShutdown(of: serving(films: [0xEF, 0xBB, 0xBF] + films)) { server in
            let reader = ReaderProcess(server: server)
            let table = try await reader.run("films")
            #expect(table.status == 0 && table.stdout.contains("A New Hope"), "\(table.stderr)")
            let json = try await reader.run("films", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            #expect(titles(json).count == 6, "\(json.stdout.prefix(300))")
            #expect(titles(json).first == "A New Hope")
        }
    }

    @Test(.replaysRecordings) func jsonHasTheItemsOfABodyInUTF16() async throws {
        let utf16 = String(decoding: films, as: UTF8.self).utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        try await withShutdown(of: serving(films: [0xFF, 0xFE] + utf16)) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").stdout.contains("Revenge of the Sith"))
            let json = try await reader.run("films", "--json")
            #expect(json.status == 0 && titles(json).count == 6, "\(json.stderr)")
        }
    }

    @Test(.replaysRecordings) func numbersBeyondDoubleInFieldsTheModelsSkipAreWrittenAsSent() async throws {
        let body = try filmsWithFirstFilm(adding: #""huge":1e999,"tiny":-1E-999,"wide":18446744073709551616123"#)
        try await withShutdown(of: serving(films: body)) { server in
            let reader = ReaderProcess(server: server)
            let table = try await reader.run("films")
            #expect(table.status == 0 && table.stdout.contains("A New Hope") && table.stdout.contains("Revenge of the Sith"))
            let json = try await reader.run("films", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            var rest = json
            for member in [#""huge":1e999"#, #""tiny":-1E-999"#, #""wide":18446744073709551616123"#] {
                #expect(json.stdout.contains(member), "\(member)")
                // JSONSerialization, which reads the rest here, takes no number beyond Double.
                rest.stdout = rest.stdout.replacingOccurrences(of: member, with: #""number":0"#)
            }
            #expect(titles(rest).count == 6, "\(json.stdout.prefix(300))")
        }
    }

    @Test(.replaysRecordings) func aNameGivenTwiceKeepsItsFirstValueInTheTableAndInJSON() async throws {
        // JSONDecoder, which the table's models use, keeps the first of two members with one name.
        let body = try filmsWithFirstFilm(adding: #""title":"Second Title","episode_id":99"#)
        try await withShutdown(of: serving(films: body)) { server in
            let reader = ReaderProcess(server: server)
            let table = try await reader.run("films")
            let firstRow = try #require(table.stdout.split(separator: "\n").first { $0.contains("A New Hope") }, "\(table.stdout)")
            #expect(firstRow.contains(" 99 ") && !table.stdout.contains("Second Title"), "\(table.stdout)")
            let json = try await reader.run("films", "--json")
            let first = (json.json?["items"] as? [[String: Any]])?.first
            #expect(first?["title"] as? String == "A New Hope")
            #expect(first?["episode_id"] as? Int == 99, "the first of 99 and the fixture's 4")
        }
    }

    @Test(.replaysRecordings) func aBodyJSONCannotWriteBackFailsWithADecodingCodeNeverAnEmptyList() async throws {
        // JSONDecoder skips `01` unread in a field no model reads; there is no JSON value to write for it.
        let body = try filmsWithFirstFilm(adding: #""odd":01"#)
        try await withShutdown(of: serving(films: body)) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").stdout.contains("A New Hope"))
            let json = try await reader.run("films", "--json")
            #expect(json.status == 65, "\(json.stdout)")
            #expect(json.stdout.isEmpty)
            #expect(json.errorJSON?["code"] as? String == "D1002", "\(json.stderr)")
        }
    }

    // MARK: output that cannot be written

    @Test(.replaysRecordings, arguments: [["films"], ["films", "--json"]])
    func aFullDiskIsAnErrorWithItsCodeAndTheCacheKeepsWhatWasFetched(arguments: [String]) async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            let fromNetwork = try await reader.run(arguments, prefix: ["/bin/sh", "-c", #"exec "$0" "$@" >/dev/full"#])
            #expect(fromNetwork.status == 74, "\(fromNetwork.stderr)")
            let fromCache = try await reader.run(arguments + ["--offline"], prefix: ["/bin/sh", "-c", #"exec "$0" "$@" >/dev/full"#])
            #expect(fromCache.status == 74, "\(fromCache.stderr)")
            for result in [fromNetwork, fromCache] {
                if arguments.contains("--json") {
                    #expect(result.errorJSON?["code"] as? String == "O1001", "\(result.stderr)")
                    #expect(result.errorJSON?["exit_code"] as? Int == 74)
                } else {
                    #expect(result.stderr == """
                        error O1001: the output cannot be written: no space left on device
                          hint: free some space, or send the output elsewhere

                        """)
                }
            }
            // What was fetched is stored, and the file reads.
            let offline = try await reader.run("films", "--offline", "--json")
            #expect(offline.status == 0 && titles(offline).count == 6, "\(offline.stderr)")
            #expect(try await reader.run("cache", "stats").status == 0)
        }
    }

    @Test(.replaysRecordings) func aClosedStdoutIsAnErrorWithItsCode() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            for arguments in [["films"], ["films", "--offline"], ["cache", "path"], ["--version"]] {
                let result = try await reader.run(arguments, prefix: ["/bin/sh", "-c", #"exec "$0" "$@" >&-"#])
                #expect(result.status == 74, "\(arguments): \(result.stderr)")
                #expect(result.stderr.hasPrefix("error O1001: the output cannot be written: stdout is closed"), "\(arguments): \(result.stderr)")
            }
            let offline = try await reader.run("films", "--offline")
            #expect(offline.status == 0 && offline.stdout.contains("A New Hope"), "\(offline.stderr)")
        }
    }

    /// Runs `reader ARGUMENTS` with stdout on a pipe whose reading end is closed before it starts.
    private func runIntoClosedPipe(_ reader: ReaderProcess, _ arguments: [String]) throws -> (reason: Foundation.Process.TerminationReason, status: Int32, stderr: String) {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let process = Foundation.Process()
        process.executableURL = ReaderProcess.executable
        process.arguments = arguments
        process.environment = reader.environment
        let err = reader.folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = pipe.fileHandleForWriting
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        return (process.terminationReason, process.terminationStatus, (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }

    @Test(.replaysRecordings) func aClosedPipeEndsQuietlyBySIGPIPEWhetherTheDataCameFromTheNetworkOrTheCache() async throws {
        try await withTestServer(Fixtures.route) { server in
            let reader = ReaderProcess(server: server)
            let fromNetwork = try runIntoClosedPipe(reader, ["films"])
            let fromCache = try runIntoClosedPipe(reader, ["films", "--offline"])
            let fromNetworkAsJSON = try runIntoClosedPipe(reader, ["films", "--json", "--refresh"])
            for (name, result) in [("network", fromNetwork), ("cache", fromCache), ("network, --json", fromNetworkAsJSON)] {
                #expect(result.reason == .uncaughtSignal && result.status == SIGPIPE, "\(name): \(result.reason) \(result.status)")
                #expect(result.stderr.isEmpty, "\(name): \(result.stderr)")
            }
            // The fetched data stayed stored.
            let offline = try await reader.run("films", "--offline", "--json")
            #expect(offline.status == 0 && titles(offline).count == 6, "\(offline.stderr)")
        }
    }

    // MARK: argument errors

    @Test(.replaysRecordings) func aHugeArgumentFullOfEscapeSequencesGivesAShortCleanR1001() async throws {
        let hostile = String(repeating: "\u{1B}[2J\u{1B}]0;owned\u{07}x", count: 5_000) + "\u{9B}31m"
        let reader = ReaderProcess()
        let text = try await reader.run("films", "--page", hostile)
        #expect(text.status == 64)
        #expect(text.stderr.hasPrefix("error R1001: The value 'xxxx"), "\(text.stderr.prefix(200))")
        #expect(text.stderr.contains("is invalid for '--page <page>'"), "the option is still named, after the cut")
        #expect(!text.stderr.contains("\u{1B}") && !text.stderr.contains("\u{9B}") && !text.stderr.contains("\u{07}"))
        #expect(text.stderr.utf8.count < 1_000, "\(text.stderr.utf8.count) bytes")

        let json = try await reader.run("films", "--json", "--page", hostile)
        #expect(json.status == 64)
        let message = try #require(json.errorJSON?["message"] as? String, "\(json.stderr.prefix(200))")
        #expect(json.errorJSON?["code"] as? String == "R1001")
        #expect(!message.contains("\u{1B}") && !message.contains("\u{9B}") && !message.contains("\u{07}"))
        #expect(message.count < 400, "\(message.count) characters")
        #expect(json.stderr.utf8.count < 1_000)
    }

    // MARK: signals

    @Test(.replaysRecordings) func ctrlBackslashEndsReaderBySIGQUITWithoutACrashReport() async throws {
        // A port where nothing listens, and --wait: reader waits there until the signal comes.
        // Port 9, not a test server's port let go: the system hands ephemeral ports out again,
        // and a server of a test running alongside once took this one, answered reader's retry
        // (the signal then came too late to end it), and saw a request it never expected.
        let reader = ReaderProcess(swapiURL: "http://127.0.0.1:9/api")
        // As from a terminal: SIGQUIT at its default, whatever the test runner ignores. The
        // signal is sent from the thread reading reader's stderr the moment it says it waits.
        let (running, waiting) = try await reader.launch(["films", "--wait", "--timeout", "60s"],
                                                         prefix: ["/usr/bin/env", "--default-signal=QUIT"],
                                                         untilStandardErrorContains: "waiting for it",
                                                         whenSeen: { kill($0, SIGQUIT) })
        #expect(waiting, "reader never said it was waiting")
        let result = await running.wait()
        #expect(running.process.terminationReason == .uncaughtSignal && result.status == SIGQUIT,
                "\(running.process.terminationReason) \(result.status)")
        for crashText in ["Crash", "crash", "Backtrac", "Thread 0", "Signal 3"] {
            #expect(!result.stderr.contains(crashText), "\(crashText): \(result.stderr.prefix(400))")
        }
        #expect(result.stderr == "notice T1004: 127.0.0.1 cannot be reached; waiting for it (--wait, up to --timeout)\n")
    }
}
