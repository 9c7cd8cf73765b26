import Foundation
import NIOConcurrencyHelpers
import Testing
import TestSupport

/// `reader status`, `--wait`, colour, completions, the man page and every command's help.
@Suite(.processSlot) struct CommandsEndToEndTests {
    @Test func statusChecksEachServiceStepByStepAndExitsZeroWhenAllAreReachable() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            _ = try await reader.run("films")
            let result = try await reader.run("status")
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            for step in ["swapi    resolve", "swapi    connect", "swapi    request", "reddit   resolve", "reddit   connect", "reddit   request"] {
                #expect(result.stdout.contains(step), "\(step): \(result.stdout)")
            }
            #expect(result.stdout.contains("ok  200 OK"))
            #expect(result.stdout.contains("cache   \(reader.cachePath): "))
            #expect(result.stdout.contains("1 entry, newest"))

            let json = try await reader.run("status", "--json")
            #expect(json.json?["reachable"] as? Bool == true)
            let services = json.json?["services"] as? [[String: Any]] ?? []
            #expect(services.map { $0["api"] as? String } == ["swapi", "reddit"])
            #expect((services.first?["steps"] as? [[String: Any]])?.map { $0["step"] as? String } == ["resolve", "connect", "request"])
        }
    }

    @Test func statusNamesTheFirstFailureAndExitsWithItsCode() async throws {
        try await withTestServer(SampleAPI.route) { server in
            // SWAPI on a port where nothing listens; Reddit answering 503.
            try await withTestServer { _ in .json(Array("{}".utf8), status: 503) } body: { unavailable in
                let reader = ReaderProcess(server: server, swapiURL: "http://127.0.0.1:9/api", redditURL: unavailable.baseURL)
                let result = try await reader.run("status")
                #expect(result.status == 75, "\(result.stdout)")
                #expect(result.stdout.contains("error T1004: cannot connect to 127.0.0.1"))
                #expect(result.stdout.contains("swapi    request") && result.stdout.contains("not tried"))
                #expect(result.stdout.contains("error H503"))
            }
        }
    }

    @Test func waitWaitsForTheServiceToComeUp() async throws {
        // A port held but not listening: refused, as a service that is down, and no other
        // process can take it before the server starts listening on it.
        let port = try TestServer.ReservedPort()
        let reader = ReaderProcess(swapiURL: "http://127.0.0.1:\(port.port)/api")
        // The service comes up the moment reader says it is waiting, from the thread reading
        // reader's stderr: not when the test is next given a thread of its concurrency pool,
        // which tests running reader to its end may hold for longer than reader waits.
        let server = NIOLockedValueBox<TestServer?>(nil)
        let (running, waiting) = try await reader.launch(["films", "--wait", "--timeout", "60s"],
                                                         untilStandardErrorContains: "waiting for it",
                                                         whenSeen: { _ in server.withLockedValue { $0 = try? TestServer(blockingOn: port, SampleAPI.route) } })
        let result = await running.wait()
        #expect(waiting, "reader never said it was waiting: \(result.stderr)")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("A New Hope"))
        #expect(result.stderr.hasPrefix("notice T1004: 127.0.0.1 cannot be reached; waiting for it"))
        let started = server.withLockedValue { $0 }
        #expect(started?.requests.map(\.target) == ["/api/films/"])
        await started?.shutdown()
    }

    @Test func withoutWaitAnUnreachableServiceFailsAtOnce() async throws {
        let result = try await ReaderProcess(swapiURL: "http://127.0.0.1:9/api").run("films")
        #expect(result.status == 75 && result.stderr.hasPrefix("error T1004"))
        #expect(!result.stderr.contains("waiting"))
    }

    @Test func colourOnlyOnATerminalWithoutNoColor() async throws {
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            reader.environment["TERM"] = "xterm-256color"
            let coloured = try await reader.runOnTerminal(["films"], streams: .standardOutput)
            #expect(coloured.stdout.contains("\u{1B}[1mEPISODE"), "\(coloured.stdout.debugDescription)")

            for plain in [try await reader.runOnTerminal(["films", "--no-color"], streams: .standardOutput),
                          try await reader.run("films")] {
                #expect(plain.status == 0)
                #expect(!plain.stdout.contains("\u{1B}"))
            }
            reader.environment["NO_COLOR"] = "1"
            #expect(!(try await reader.runOnTerminal(["films"], streams: .standardOutput)).stdout.contains("\u{1B}"))
            reader.environment["NO_COLOR"] = nil
            reader.environment["TERM"] = "dumb"
            #expect(!(try await reader.runOnTerminal(["films"], streams: .standardOutput)).stdout.contains("\u{1B}"))
        }
    }

    @Test func completionsAndTheManPageComeFromTheParser() async throws {
        let reader = ReaderProcess()
        for shell in ["bash", "zsh", "fish"] {
            let script = try await reader.run("completions", shell)
            #expect(script.status == 0)
            #expect(script.stdout.contains("comments") && script.stdout.contains("max-stale"), "\(shell)")
        }
        #expect(try await reader.run("completions", "powershell").status == 64)
        let manual = try await reader.run("manual")
        #expect(manual.status == 0)
        #expect(manual.stdout.hasPrefix(".TH READER 1"))
        for text in [".SS reader comments", ".SS reader sync", ".SS reader cache prune", ".B --no-color", ".B --wait", "EXIT STATUS"] {
            #expect(manual.stdout.contains(text), "\(text)")
        }
        // Every variable the services declare, and reader's own, with the files.
        for variable in ["READER_SWAPI_URL", "READER_REDDIT_URL", "READER_REDDIT_OAUTH_URL", "READER_REDDIT_CLIENT_ID",
                         "READER_REDDIT_CLIENT_SECRET", "READER_CACHE_PATH", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "NO_COLOR"] {
            #expect(manual.stdout.contains(".B \(variable)\n"), "\(variable)")
        }
        #expect(manual.stdout.contains(".SH FILES\n"))
        // Prose is filled by man; only a sample kept as it is may be unfilled, and no line of one is long.
        var unfilled = false
        for line in manual.stdout.split(separator: "\n") {
            if line == ".nf" { unfilled = true } else if line == ".fi" { unfilled = false }
            else if unfilled { #expect(line.count <= 100, "an unfilled line of \(line.count): \(line.prefix(60))…") }
        }
        // The values a shell can offer: the shells, and what can be synced.
        let bash = try await reader.run("completions", "bash").stdout
        #expect(bash.contains(#"-W 'bash'$'\n''zsh'$'\n''fish'"#) && bash.contains(#"-W 'swapi'$'\n''reddit'"#))
        // The variables the services read are named where a newcomer looks first.
        let help = try await reader.run("--help")
        for variable in ["READER_SWAPI_URL", "READER_REDDIT_URL", "READER_REDDIT_CLIENT_ID"] {
            #expect(help.stdout.contains(variable), "\(variable)")
        }
        let version = try await reader.run("--version")
        #expect(version.status == 0 && version.stdout.range(of: #"^\d+\.\d+\.\d+\n$"#, options: .regularExpression) != nil)
    }

    @Test(arguments: ["posts", "comments", "films", "people", "planets", "species", "starships", "vehicles",
                      "sync", "status", "cache", "cache stats", "cache clear", "cache prune", "cache path", "completions", "manual"])
    func everyCommandHasHelp(_ command: String) async throws {
        let result = try await ReaderProcess().run(command.split(separator: " ").map(String.init) + ["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("OVERVIEW: "))
        #expect(result.stdout.contains("USAGE: reader \(command)"))
    }
}
