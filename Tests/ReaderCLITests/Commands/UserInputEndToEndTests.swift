import Foundation
import Testing
import TestSupport

/// What a user meets when an argument, the environment or the config file is not what reader
/// takes: the message says what is wrong and what is taken, and nothing is done on a guess.
@Suite(.processSlot) struct UserInputEndToEndTests {
    /// A negative number after an option is its value, so the option's own check says its bounds.
    @Test(arguments: [
        (["films", "--page", "-1"], "--page must be a whole number from 1 to 10000, got -1"),
        (["people", "-99"], "the id must be a whole number from 1 to 1000000, got -99"),
        (["films", "--retries", "-1"], "--retries must be from 0 to 10, got -1"),
        (["films", "--timeout", "-1"], "--timeout must be more than 0 and at most 1 hour, got -1s"),
        // Nothing at all, not "0ms" (issue 30 item 20).
        (["films", "--timeout", "0"], "--timeout must be more than 0 and at most 1 hour, got 0"),
        (["films", "--max-age", "-2h"], "--max-age must be from 0 to 100 years, got -2h"),
        (["films", "--max-stale", "-1"], "--max-stale must be from 0 to 100 years, got -1s"),
        (["films", "--max-wait", "-1"], "--max-wait must be from 0 to a day, got -1s"),
        (["films", "--cache-size", "-1"], "--cache-size must be 0 or more, got -1"),
        // The size as given, not in bytes.
        (["films", "--cache-size", "-1MB"], "--cache-size must be 0 or more, got -1MB"),
        // The post an argument-taking command missed.
        (["comments", "-1"], "\"-1\" is not a post: give its id (2xmo63), t3_2xmo63, or its URL"),
        (["comments", "2xmo63", "--depth", "-1"], "--depth must be from 1 to 10, got -1"),
        (["comments", "2xmo63", "--limit", "-5"], "--limit must be from 1 to 500, got -5"),
        (["config", "--retries", "-3"], "--retries must be from 0 to 10, got -3"),
        (["status", "--timeout", "-1"], "--timeout must be more than 0 and at most 5 minutes, got -1s"),
        (["cache", "prune", "--older-than", "-1d"], "--older-than must be from 0 to 100 years, got -1d"),
    ])
    func aNegativeNumberReachesTheOptionsOwnCheck(arguments: [String], message: String) async throws {
        try await withTestServer(SampleAPI.route) { server in
            let result = try await ReaderProcess(server: server).run(arguments)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("error R1001: \(message)\n"), "\(arguments): \(result.stderr)")
            #expect(server.requests.isEmpty)
        }
    }

    /// A time too long to hold is told the option's bounds and the time as given, not "is invalid".
    @Test(arguments: [
        (["films", "--max-age", "106751991167300d"], "--max-age must be from 0 to 100 years, got 106751991167300d"),
        (["films", "--max-stale", "-106751991167300d"], "--max-stale must be from 0 to 100 years, got -106751991167300d"),
        (["films", "--timeout", "99999999999999999999d"], "--timeout must be more than 0 and at most 1 hour, got 99999999999999999999d"),
        (["cache", "prune", "--older-than", "3660000d"], "--older-than must be from 0 to 100 years, got 3660000d"),
    ])
    func aTimeTooLongToHoldIsToldTheOptionsBounds(arguments: [String], message: String) async throws {
        let result = try await ReaderProcess().run(arguments)
        #expect(result.status == 64, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("error R1001: \(message)\n"), "\(arguments): \(result.stderr)")
    }

    /// A relative `$XDG_CONFIG_HOME` passed over for `~/.config` is said to be, as the file and in `--json`.
    @Test func aRelativeXDGConfigHomeIsToldAsIgnored() async throws {
        var reader = ReaderProcess()
        reader.environment["HOME"] = reader.folder.path
        reader.environment["XDG_CONFIG_HOME"] = "cfg"
        let reason = "XDG_CONFIG_HOME is relative (\"cfg\"), so it is ignored: a folder must be a full path, starting with /"
        let config = try await reader.run("config")
        #expect(config.status == 0, "\(config.stderr)")
        #expect(config.stdout.hasPrefix("config file: \(reader.folder.path)/.config/reader/config.toml (none there; \(reason))\n"),
                "\(config.stdout)")
        let json = try await reader.run("config", "--json")
        let file = json.json?["config_file"] as? [String: Any]
        #expect(file?["ignored"] as? String == reason, "\(json.stdout)")
        #expect(file?["path"] as? String == reader.folder.path + "/.config/reader/config.toml")
        // A full one is used, and nothing is said.
        reader.environment["XDG_CONFIG_HOME"] = reader.folder.path
        let used = try await reader.run("config", "--json")
        #expect((used.json?["config_file"] as? [String: Any])?["ignored"] is NSNull, "\(used.stdout)")
        #expect((used.json?["config_file"] as? [String: Any])?["path"] as? String == reader.folder.path + "/reader/config.toml")
    }

    /// The cache commands' options are taken before the subcommand's name as after it.
    @Test func theCacheCommandsTakeTheirOptionsBeforeTheSubcommand() async throws {
        let reader = ReaderProcess()
        let path = reader.folder.appendingPathComponent("elsewhere.sqlite").path
        let before = try await reader.run("cache", "--cache-path", path, "path")
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout == path + "\n")
        let after = try await reader.run("cache", "path", "--cache-path", path)
        #expect(after.status == 0 && after.stdout == path + "\n", "\(after.stderr)")
        let json = try await reader.run("cache", "--json", "--cache-path", path, "path")
        #expect(json.json?["path"] as? String == path, "\(json.stdout) \(json.stderr)")
        // Without a subcommand: stats, the default, on that file.
        let stats = try await reader.run("cache", "--cache-path", path, "--json")
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.json?["path"] as? String == path, "\(stats.stdout)")
    }

    /// A relative `$HOME` is ignored as a relative `$XDG_CACHE_HOME` is, and said to be relative.
    @Test func aRelativeHomeIsToldAsRelative() async throws {
        var reader = ReaderProcess()
        reader.environment["READER_CACHE_PATH"] = nil
        reader.environment["HOME"] = "home"
        reader.environment["XDG_CACHE_HOME"] = "cache"
        let cache = try await reader.run("cache", "path")
        #expect(cache.status == 78)
        #expect(cache.stderr.hasPrefix("""
            error R1002: no cache location: set READER_CACHE_PATH, or XDG_CACHE_HOME or HOME to a full path \
            (READER_CACHE_PATH is not set, XDG_CACHE_HOME is relative ("cache") and HOME is relative ("home"): \
            a folder must be a full path, starting with /)

            """), "\(cache.stderr)")
        let config = try await reader.run("config")
        #expect(config.status == 0, "\(config.stderr)")
        #expect(config.stdout.hasPrefix("""
            config file: none (XDG_CONFIG_HOME is not set and HOME is relative ("home"): a folder must be a full path, starting with /)

            """), "\(config.stdout)")

        // With a full HOME, the relative XDG_CACHE_HOME is still ignored.
        reader.environment["HOME"] = reader.folder.path
        let ignored = try await reader.run("cache", "path")
        #expect(ignored.stdout == reader.folder.path + "/.cache/reader/cache.sqlite\n", "\(ignored.stderr)")
    }

    /// `~/` at the start of a cache path is the home folder, as a shell would have made it.
    @Test func aLeadingTildeInTheCachePathIsTheHomeFolder() async throws {
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            let home = reader.folder.path
            reader.environment["READER_CACHE_PATH"] = "~/kept/x.sqlite"
            let path = try await reader.run("cache", "path")
            #expect(path.status == 0 && path.stdout == home + "/kept/x.sqlite\n", "\(path.stdout) \(path.stderr)")
            let flag = try await reader.run("cache", "path", "--cache-path", "~/y.sqlite")
            #expect(flag.status == 0 && flag.stdout == home + "/y.sqlite\n", "\(flag.stdout) \(flag.stderr)")
            // The cache is made there.
            let films = try await reader.run("films")
            #expect(films.status == 0, "\(films.stderr)")
            #expect(FileManager.default.fileExists(atPath: home + "/kept/x.sqlite"))

            reader.environment["READER_CACHE_PATH"] = "~other/x.sqlite"
            let other = try await reader.run("cache", "path")
            #expect(other.status == 78)
            #expect(other.stderr.hasPrefix("""
                error R1002: READER_CACHE_PATH starts with ~name ("~other/x.sqlite"), another user's folder, which reader does not look up: give a full path

                """), "\(other.stderr)")
            reader.environment["READER_CACHE_PATH"] = "~/x.sqlite"
            reader.environment["HOME"] = "home"
            let relative = try await reader.run("cache", "path")
            #expect(relative.status == 78)
            #expect(relative.stderr.hasPrefix("""
                error R1002: READER_CACHE_PATH starts with ~ ("~/x.sqlite"), but HOME is relative ("home"): give a full path

                """), "\(relative.stderr)")
            let relativeFlag = try await reader.run("cache", "path", "--cache-path", "~/x.sqlite")
            #expect(relativeFlag.status == 64)
            #expect(relativeFlag.stderr.hasPrefix("""
                error R1001: --cache-path starts with ~ ("~/x.sqlite"), but HOME is relative ("home"): give a full path

                """), "\(relativeFlag.stderr)")
        }
    }

    /// An escape character in a service URL is refused, as a space or a CR is, and never shown.
    @Test(arguments: ["\u{1B}]0;owned\u{07}", "\u{7F}", "\u{9B}31m"])
    func aControlCharacterInAServiceURLIsRefused(control: String) async throws {
        var reader = ReaderProcess()
        reader.environment["READER_SWAPI_URL"] = "http://127.0.0.1:9/a" + control + "pi"
        let result = try await reader.run("films")
        #expect(result.status == 78)
        let code = String(format: "U+%04X", control.unicodeScalars.first!.value)
        #expect(result.stderr.hasPrefix("error R1002: READER_SWAPI_URL holds a control character (\(code)), which no URL may hold: \"http://127.0.0.1:9/a"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("\u{1B}") && !result.stderr.contains("\u{7F}") && !result.stderr.contains("\u{9B}"))
    }

    /// A client id too long is told the rule applied, its length with it.
    @Test func aClientIDTooLongIsToldTheRuleApplied() async throws {
        var reader = ReaderProcess()
        reader.environment["READER_REDDIT_CLIENT_ID"] = String(repeating: "a", count: 256)
        let result = try await reader.run("posts", "popular")
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("""
            error R1002: READER_REDDIT_CLIENT_ID is not a Reddit client id: it must be 1 to 100 printable ASCII characters, without spaces or ':'

            """), "\(result.stderr)")
    }
}
