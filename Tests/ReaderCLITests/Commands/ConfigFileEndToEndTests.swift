import Foundation
import Testing
import TestSupport

/// The config file, through the built binary: its values reach the commands, a flag beats the
/// environment beats the file beats the built-in default, a secret others can read is refused,
/// and a broken file is R1002 (exit 78) naming the file, the line and the key.
@Suite(.processSlot) struct ConfigFileEndToEndTests {
    /// A reader whose `$XDG_CONFIG_HOME/reader/config.toml` holds `text` with `mode`, and no
    /// service URLs in its environment unless a test puts them back.
    static func reader(config text: String?, mode: Int16 = 0o600, server: TestServer? = nil) throws -> (ReaderProcess, path: String) {
        var reader = ReaderProcess(server: server)
        reader.environment["READER_SWAPI_URL"] = nil
        reader.environment["READER_REDDIT_URL"] = nil
        let folder = reader.folder.appendingPathComponent("xdg/reader")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        reader.environment["XDG_CONFIG_HOME"] = reader.folder.appendingPathComponent("xdg").path
        let path = folder.appendingPathComponent("config.toml").path
        if let text {
            #expect(FileManager.default.createFile(atPath: path, contents: Data(text.utf8)))
            #expect(chmod(path, mode_t(mode)) == 0)
        }
        return (reader, path)
    }

    static func settings(_ result: ReaderProcess.Result) -> [String: [String: Any]] {
        (result.json?["settings"] as? [String: [String: Any]]) ?? [:]
    }

    /// The cache file and its size limit are settings too, though no key of the file sets them
    /// (issue 30 item 20): `reader config` shows where the file is, from where, and the limit.
    @Test func configShowsTheCachePathAndItsSizeLimit() async throws {
        var (reader, _) = try Self.reader(config: nil)
        let json = try await reader.run("config", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let settings = Self.settings(json)
        #expect(settings["cache-path"]?["value"] as? String == reader.cachePath)
        #expect(settings["cache-path"]?["from"] as? String == "$READER_CACHE_PATH")
        #expect(settings["cache-size"]?["value"] as? Int == 104_857_600)
        #expect(settings["cache-size"]?["source"] as? String == "default")
        let text = try await reader.run("config")
        let rows = text.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(rows.contains("cache-path $READER_CACHE_PATH \(reader.cachePath)"), "\(text.stdout)")
        #expect(rows.contains("cache-size built-in 100MB (--cache-size on a command)"), "\(text.stdout)")

        reader.environment["READER_CACHE_PATH"] = nil
        let builtIn = try await reader.run("config", "--json")
        #expect(Self.settings(builtIn)["cache-path"]?["value"] as? String == reader.folder.path + "/.cache/reader/cache.sqlite")
        #expect(Self.settings(builtIn)["cache-path"]?["source"] as? String == "default")
    }

    @Test func eachLayerWinsOverTheOneBelowIt() async throws {
        // Given a file that sets five values, the environment one of them, and a flag another.
        let (base, path) = try Self.reader(config: """
            timeout = "30s"
            retries = 5
            max-stale = "7d"

            [swapi]
            url = "http://127.0.0.1:7001/api"
            [reddit]
            url = "http://127.0.0.1:7002"
            """)
        var reader = base
        reader.environment["READER_REDDIT_URL"] = "http://127.0.0.1:7003"
        // When reader says what it runs with.
        let result = try await reader.run("config", "--json", "--retries", "2")
        // Then the flag beats the file, the environment beats the file, the file beats the default.
        #expect(result.status == 0, "\(result.stderr)")
        let settings = Self.settings(result)
        #expect(settings["retries"]?["value"] as? Int == 2 && settings["retries"]?["source"] as? String == "flag")
        #expect(settings["reddit.url"]?["value"] as? String == "http://127.0.0.1:7003")
        #expect(settings["reddit.url"]?["source"] as? String == "environment")
        #expect(settings["reddit.url"]?["from"] as? String == "$READER_REDDIT_URL")
        #expect(settings["timeout"]?["value"] as? Double == 30 && settings["timeout"]?["source"] as? String == "file")
        #expect(settings["timeout"]?["from"] as? String == "config file line 1")
        #expect(settings["max-stale"]?["value"] as? Double == 604_800)
        #expect(settings["swapi.url"]?["value"] as? String == "http://127.0.0.1:7001/api")
        #expect(settings["swapi.url"]?["source"] as? String == "file")
        #expect(settings["max-age"]?["source"] as? String == "default" && settings["max-age"]?["value"] is NSNull)
        #expect(settings["reddit.oauth-url"]?["value"] as? String == "https://oauth.reddit.com")
        let file = result.json?["config_file"] as? [String: Any]
        #expect(file?["path"] as? String == path && file?["found"] as? Bool == true)
    }

    @Test(.replaysRecordings) func theCommandsUseTheFileAndTheEnvironmentOverridesIt() async throws {
        try await withTestServer(Fixtures.route) { server in
            let (fromFile, _) = try Self.reader(config: "[swapi]\nurl = \"\(server.baseURL)/api\"\n")
            // The file's URL is used when the environment names none.
            let read = try await fromFile.run("films", "--json")
            #expect(read.status == 0, "\(read.stderr)")
            #expect(server.requests.map(\.target) == ["/api/films/"])
            // The environment's wins over it: port 9 refuses, and the server hears nothing more.
            var overridden = fromFile
            overridden.environment["READER_SWAPI_URL"] = "http://127.0.0.1:9/api"
            let refused = try await overridden.run("films", "--refresh")
            #expect(refused.status == 75 && refused.stderr.contains("T1004"), "\(refused.stderr)")
            #expect(server.requests.count == 1)
        }
    }

    @Test func theFilesRetriesApplyAndTheFlagBeatsThem() async throws {
        // A server that always answers 503, which is retried.
        try await withTestServer { _ in .respond(status: 503, headers: [("Content-Type", "text/html")], body: Array("busy".utf8)) } body: { server in
            let (reader, _) = try Self.reader(config: "retries = 0\n[swapi]\nurl = \"\(server.baseURL)/api\"\n")
            let once = try await reader.run("films")
            #expect(once.status == 69, "\(once.stderr)")
            #expect(server.requests.count == 1)
            let twice = try await reader.run("films", "--retries", "1")
            #expect(twice.status == 69)
            #expect(server.requests.count == 3)
        }
    }

    @Test(arguments: [Int16(0o644), 0o640, 0o604])
    func aSecretInAFileOthersCanReadIsRefused(mode: Int16) async throws {
        let secret = "gkoLXELoV07ZBNUXrvWZfzE3aI"
        let (reader, path) = try Self.reader(config: "[reddit]\nclient-id = \"p-jcoLKBynTLew\"\nclient-secret = \"\(secret)\"\n", mode: mode)
        let result = try await reader.run("config")
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("error R1002: \(path):3: reddit.client-secret: refused"), "\(result.stderr)")
        #expect(result.stderr.contains("chmod 600"))
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
        // The same file made private is accepted, and the secret is still never shown.
        #expect(chmod(path, 0o600) == 0)
        let accepted = try await reader.run("config")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stdout.contains("reddit.client-secret") && accepted.stdout.contains("set (hidden)"))
        #expect(accepted.stdout.contains("p-jcoLKBynTLew"))
        #expect(!accepted.stdout.contains(secret) && !accepted.stderr.contains(secret))
        let json = try await reader.run("config", "--json")
        #expect(Self.settings(json)["reddit.client-secret"]?["value"] as? String == "hidden")
        #expect(!json.stdout.contains(secret))
    }

    /// The secret's row names where the secret was taken from, its own variable or line, never the id's.
    @Test func theSecretsRowSaysWhereTheSecretCameFrom() async throws {
        let secret = "gkoLXELoV07ZBNUXrvWZfzE3aI"
        let (fromFile, _) = try Self.reader(config: "[reddit]\nclient-id = \"p-jcoLKBynTLew\"\n\nclient-secret = \"\(secret)\"\n")
        let file = try await fromFile.run("config", "--json")
        #expect(file.status == 0, "\(file.stderr)")
        #expect(Self.settings(file)["reddit.client-id"]?["from"] as? String == "config file line 2")
        #expect(Self.settings(file)["reddit.client-secret"]?["from"] as? String == "config file line 4")
        #expect(!file.stdout.contains(secret))

        var fromEnvironment = fromFile
        fromEnvironment.environment["READER_REDDIT_CLIENT_ID"] = "envid"
        fromEnvironment.environment["READER_REDDIT_CLIENT_SECRET"] = secret
        let json = try await fromEnvironment.run("config", "--json")
        #expect(json.status == 0, "\(json.stderr)")
        let settings = Self.settings(json)
        #expect(settings["reddit.client-id"]?["from"] as? String == "$READER_REDDIT_CLIENT_ID")
        #expect(settings["reddit.client-secret"]?["from"] as? String == "$READER_REDDIT_CLIENT_SECRET")
        #expect(settings["reddit.client-secret"]?["source"] as? String == "environment")
        #expect(settings["reddit.client-secret"]?["value"] as? String == "hidden")
        let table = try await fromEnvironment.run("config")
        let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.contains(["reddit.client-secret", "$READER_REDDIT_CLIENT_SECRET", "set", "(hidden)"]), "\(table.stdout)")
        for result in [json, table] { #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret)) }

        // An id without a secret: the secret is none, for want of its own variable.
        fromEnvironment.environment["READER_REDDIT_CLIENT_SECRET"] = nil
        let idOnly = try await fromEnvironment.run("config", "--json")
        #expect(Self.settings(idOnly)["reddit.client-secret"]?["from"] as? String == "$READER_REDDIT_CLIENT_SECRET")
        #expect(Self.settings(idOnly)["reddit.client-secret"]?["value"] is NSNull)
        // And the table says why the file's secret, which is there, is not used.
        let idOnlyTable = try await fromEnvironment.run("config")
        #expect(idOnlyTable.stdout.contains(
            "$READER_REDDIT_CLIENT_SECRET  none (the config file's is not used: reddit.client-id comes from the environment, and a secret only with its own)"),
            "\(idOnlyTable.stdout)")
        #expect(!idOnlyTable.stdout.contains(secret))
    }

    @Test(arguments: [
        ("timeout = \"30s\"\nretries = 11\n", ":2: retries: must be from 0 to 10, got 11"),
        ("retries = -1\n", ":1: retries: must be from 0 to 10, got -1"),
        ("retries = \"3\"\n", ":1: retries: must be a whole number"),
        ("timeout = \"2h\"\n", ":1: timeout: must be more than 0 and at most 1 hour, got \"2h\"\n"),
        // The timeout's own bounds, not those of every time in the file.
        ("timeout = -1\n", ":1: timeout: must be more than 0 and at most 1 hour, got -1\n"),
        ("timeout = 0\n", ":1: timeout: must be more than 0 and at most 1 hour, got 0\n"),
        ("max-stale = \"99999999999999999999d\"\n", ":1: max-stale: must be from 0 to 100 years, got \"99999999999999999999d\"\n"),
        ("max-age = 9223372036854775807\n", ":1: max-age: must be from 0 to 100 years, got 9223372036854775807\n"),
        ("max-age = -5\n", ":1: max-age: must be from 0 to 100 years, got -5\n"),
        ("timeout = \"soon\"\n", ":1: timeout: must be a time such as \"90s\", \"5m\", \"2h\" or \"7d\", or a number of seconds, more than 0 and at most 1 hour\n"),
        ("color = \"no\"\n", ":1: color: must be true or false"),
        ("retries = 3\nretires = 4\n", ":2: retires: is not a setting reader knows"),
        ("[reddit]\nsubreddits = [\"swift\", \"../x\"]\n", ":2: reddit.subreddits: \"../x\" is not a subreddit name"),
        ("[reddit]\nsubreddits = \"swift\"\n", ":2: reddit.subreddits: must be a list of strings"),
        ("[reddit]\nhide-words = [\"...\"]\n", ":2: reddit.hide-words:"),
        ("[swapi]\nurl = \"ftp://example.com\"\n", ":2: swapi.url is not an http or https URL"),
        ("[reddit]\nclient-secret = \"abc\"\n", ":2: reddit.client-secret: is set but reddit.client-id is not"),
        ("timeout = \"30s\"\n[reddit]\nurl = \"http://x\n", ":3: reddit.url: not valid TOML"),
        ("retries = 3\nretries = 4\n", ":2: retries: not valid TOML"),
        ("[sync]\nswapi = yes\n", ":2: sync.swapi: not valid TOML"),
    ])
    func aBrokenFileIsR1002NamingTheFileLineAndKey(text: String, expected: String) async throws {
        let (reader, path) = try Self.reader(config: text)
        let result = try await reader.run("films")
        #expect(result.status == 78)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("error R1002: \(path)\(expected)"), "\(result.stderr)")
        #expect(result.stderr.contains("config file setting"))
        let json = try await reader.run("films", "--json")
        #expect(json.errorJSON?["code"] as? String == "R1002" && json.errorJSON?["exit_code"] as? Int == 78)
    }

    @Test func aFileThatIsNotASmallRegularTextFileIsRefusedUnread() async throws {
        let (reader, path) = try Self.reader(config: String(repeating: "# a comment line that says nothing at all\n", count: 2000))
        let large = try await reader.run("films")
        #expect(large.status == 78 && large.stderr.hasPrefix("error R1002: \(path): is larger than 64 KB"), "\(large.stderr)")

        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let folder = try await reader.run("films")
        #expect(folder.status == 78 && folder.stderr.hasPrefix("error R1002: \(path): is not a regular file"), "\(folder.stderr)")

        // A FIFO, which a blocking open would wait on for ever.
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        let fifo = try await reader.run("films")
        #expect(fifo.status == 78 && fifo.stderr.hasPrefix("error R1002: \(path): is not a regular file"), "\(fifo.stderr)")

        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: Data([0x72, 0x65, 0x74, 0x72, 0x69, 0x65, 0x73, 0x3D, 0xFF, 0x0A])))
        let binary = try await reader.run("films")
        #expect(binary.status == 78 && binary.stderr.hasPrefix("error R1002: \(path): is not UTF-8 text"), "\(binary.stderr)")
    }

    @Test func withoutAFileTheBuiltInDefaultsApply() async throws {
        let (reader, path) = try Self.reader(config: nil)
        let result = try await reader.run("config")
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("config file: \(path) (none there)"))
        let rows = result.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(rows.contains(["timeout", "built-in", "20s"]) && rows.contains(["retries", "built-in", "3"]))
        #expect(rows.contains(["swapi.url", "built-in", "https://swapi.dev/api"]))
    }

    /// A file written for `reader-openlibrary` does not stop plain `reader`: its `[openlibrary]`
    /// is passed over, and `reader config` says so.
    @Test func aTableOfAServiceThisBuildDoesNotHaveIsPassedOverAndSaid() async throws {
        let (reader, path) = try Self.reader(config: "retries = 1\n[openlibrary]\nurl = \"http://127.0.0.1:9/\"\n")
        let result = try await reader.run("config")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("config file: \(path) (read; passed over: [openlibrary], no service of this build)"), "\(result.stdout)")
        let json = try await reader.run("config", "--json")
        #expect((json.json?["config_file"] as? [String: Any])?["ignored_tables"] as? [String] == ["openlibrary"])
        let films = try await reader.run("films", "--offline")
        #expect(films.status == 69 && films.stderr.hasPrefix("error C1001"), "the file is read, the command runs: \(films.stderr)")
    }

    @Test(.replaysRecordings) func syncWithoutArgumentsSyncsWhatTheFileNames() async throws {
        try await withTestServer(Fixtures.route) { server in
            let (base, _) = try Self.reader(config: "[reddit]\nurl = \"\(server.baseURL)\"\nsubreddits = [\"python\"]\n")
            let result = try await base.run("sync", "--retries", "0")
            #expect(result.status != 64, "\(result.stderr)")
            #expect(result.stdout.contains("sync reddit:") && !result.stdout.contains("sync swapi"), "\(result.stdout)")
            #expect(server.requests.first?.path == "/r/python/hot.json")
            #expect(!server.requests.contains { $0.path.hasPrefix("/api/") })
        }
    }

    @Test(.replaysRecordings) func syncWithoutArgumentsOrAFileSaysWhatItNeeds() async throws {
        try await withTestServer(Fixtures.route) { server in
            let (reader, path) = try Self.reader(config: nil, server: server)
            let result = try await reader.run("sync")
            #expect(result.status == 64)
            #expect(result.stderr.hasPrefix("error R1001: say what to sync: swapi, reddit SUBREDDIT…, or both; or name them in \(path) (there is none)"),
                    "\(result.stderr)")
            #expect(server.requests.isEmpty)
        }
    }

    @Test(.replaysRecordings) func postsReadsTheFilesSubredditsAndHidesWhatItsFiltersName() async throws {
        try await withTestServer(Fixtures.route) { server in
            // r/python's recorded listing has 102 posts, three of them titled "PEP 5…".
            let (reader, _) = try Self.reader(config: """
                [reddit]
                url = "\(server.baseURL)"
                subreddits = ["python"]
                hide-words = ["pep"]
                hide-subreddits = ["python", "funny", "science"]
                """)
            let json = try await reader.run("posts", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            #expect(server.requests.first?.path == "/r/python/hot.json")
            let titles = (json.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
            // Hidden by word, but not by subreddit: r/python was asked for (as the file's default).
            #expect(titles.count == 99)
            #expect(!titles.contains { $0.hasPrefix("PEP 5") })
            #expect(titles.contains("Twisted is 93% ported to Python 3"))
            let table = try await reader.run("posts")
            #expect(table.stderr.contains("3 hidden by the config file's filters"), "\(table.stderr)")
            #expect(!table.stdout.contains("PEP 563"))
        }
    }

    @Test(.replaysRecordings) func theFrontPageLosesTheHiddenSubreddits() async throws {
        try await withTestServer(Fixtures.route) { server in
            // The recorded front page: r/funny, r/todayilearned, r/NintendoSwitch, r/interestingasfuck, r/science.
            let (reader, _) = try Self.reader(config: "[reddit]\nurl = \"\(server.baseURL)\"\nhide-subreddits = [\"Funny\", \"science\"]\n")
            let json = try await reader.run("posts", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            #expect(server.requests.first?.path == "/hot.json")
            let subreddits = (json.json?["items"] as? [[String: Any]] ?? []).compactMap { $0["subreddit"] as? String }
            #expect(subreddits == ["todayilearned", "NintendoSwitch", "interestingasfuck"])
        }
    }

    @Test(.replaysRecordings) func colourCanBeTurnedOffInTheFile() async throws {
        try await withTestServer(Fixtures.route) { server in
            let (coloured, path) = try Self.reader(config: "[swapi]\nurl = \"\(server.baseURL)/api\"\n")
            let before = try await coloured.runOnTerminal(["films"], streams: [.standardOutput])
            #expect(before.status == 0 && before.stdout.contains("\u{1B}["), "the control run must colour")
            try Data("color = false\n[swapi]\nurl = \"\(server.baseURL)/api\"\n".utf8).write(to: URL(fileURLWithPath: path))
            let plain = try await coloured.runOnTerminal(["films"], streams: [.standardOutput])
            #expect(plain.status == 0 && plain.stdout.contains("A New Hope"))
            #expect(!plain.stdout.contains("\u{1B}["))
        }
    }

    /// `color = false` holds for errors too: one the parser finds, and one of the run.
    @Test func colourTurnedOffInTheFileLeavesErrorsPlain() async throws {
        let unreachable = "[swapi]\nurl = \"http://127.0.0.1:9/api\"\n"
        let (reader, path) = try Self.reader(config: unreachable)
        let parseError = ["films", "--page", "0"], runError = ["films", "--retries", "0"]
        for arguments in [parseError, runError] {
            let coloured = try await reader.runOnTerminal(arguments, streams: [.standardError])
            #expect(coloured.stderr.hasPrefix("\u{1B}[31merror R1001\u{1B}[0m:") || coloured.stderr.hasPrefix("\u{1B}[31merror T"),
                    "the control run must colour: \(coloured.stderr.debugDescription)")
        }
        try Data(("color = false\n" + unreachable).utf8).write(to: URL(fileURLWithPath: path))
        let plainParse = try await reader.runOnTerminal(parseError, streams: [.standardError])
        #expect(plainParse.status == 64)
        #expect(plainParse.stderr.hasPrefix("error R1001: --page must be a whole number from 1 to 10000, got 0"), "\(plainParse.stderr.debugDescription)")
        let plainRun = try await reader.runOnTerminal(runError, streams: [.standardError])
        #expect(plainRun.status != 0 && plainRun.stderr.hasPrefix("error T"), "\(plainRun.stderr.debugDescription)")
        for plain in [plainParse, plainRun] { #expect(!plain.stderr.contains("\u{1B}")) }
    }

    /// A file that does not parse has no `color = false` to keep: its R1002 is styled as without
    /// a file, by the terminal, `NO_COLOR` and `--no-color` (a guess at a broken file's lines would be no rule).
    @Test func aFileThatDoesNotParseLeavesTheErrorsStyleToTheTerminalAndTheEnvironment() async throws {
        let (base, path) = try Self.reader(config: "color = false\nretries = \"x\"\n")
        // On a terminal 80 columns wide the message is wrapped after "error R1002:".
        let message = "\(path):2:\n  retries: must be a whole number"
        let terminal = try await base.runOnTerminal(["films"], streams: [.standardError])
        #expect(terminal.status == 78)
        #expect(terminal.stderr.hasPrefix("\u{1B}[31merror R1002\u{1B}[0m:"), "the control run must colour: \(terminal.stderr.debugDescription)")
        #expect(terminal.stderr.contains(message), "\(terminal.stderr.debugDescription)")
        let flag = try await base.runOnTerminal(["films", "--no-color"], streams: [.standardError])
        var noColor = base
        noColor.environment["NO_COLOR"] = "1"
        let environment = try await noColor.runOnTerminal(["films"], streams: [.standardError])
        for plain in [flag, environment] {
            #expect(plain.status == 78 && plain.stderr.hasPrefix("error R1002:"), "\(plain.stderr.debugDescription)")
            #expect(plain.stderr.contains(message), "\(plain.stderr.debugDescription)")
            #expect(!plain.stderr.contains("\u{1B}"))
        }
    }

    /// With `subreddits` in the file, plain `reader posts` reads them, not the front page: a
    /// subreddit Reddit does not know is hinted at as the file's, and a name given on the
    /// command line is told what reading without one does.
    @Test(.replaysRecordings) func aSubredditNotFoundIsHintedAtAsTheConfigFilesWhenItWas() async throws {
        try await withTestServer { _ in .json(Fixtures.bytes("reddit/error_404_not_found_r_a_plus_b.json"), status: 404) } body: { server in
            let (reader, _) = try Self.reader(config: "[reddit]\nurl = \"\(server.baseURL)\"\nsubreddits = [\"nosuch\", \"gone\"]\n")
            let fromTheFile = "hint: check the spelling of the config file's subreddits (r/nosuch+gone); without them, 'reader posts' reads the front page"

            let plain = try await reader.run("posts", "--retries", "0")
            #expect(plain.status == 66, "\(plain.stderr)")
            #expect(server.requests.first?.path == "/r/nosuch+gone/hot.json")
            #expect(plain.stderr.contains(fromTheFile), "\(plain.stderr)")
            #expect(!plain.stderr.contains("without a name reads the front page"), "\(plain.stderr)")
            let json = try await reader.run("posts", "--retries", "0", "--json")
            // Answered by the stored 404: the same hint, then how long ago the server gave it.
            #expect((json.errorJSON?["hint"] as? String)?.hasPrefix(String(fromTheFile.dropFirst("hint: ".count)) + "; the server gave this answer ") == true,
                    "\(json.stderr)")

            let named = try await reader.run("posts", "elsewhere", "--retries", "0")
            #expect(named.status == 66, "\(named.stderr)")
            #expect(named.stderr.contains("hint: check the spelling; 'reader posts' without a name reads the config file's subreddits (r/nosuch+gone)"),
                    "\(named.stderr)")
        }
    }
}
