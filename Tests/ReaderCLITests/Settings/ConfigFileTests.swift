import Foundation
import Testing
@testable import ReaderCLI
@testable import ReaderKit

/// The config file's values, the layering of settings, and the post filter, as a library user
/// gets them.
@Suite struct ConfigFileTests {
    /// The built-in services' settings, which the file may set.
    static let settings = ServiceRegistry.builtIn.settings

    @Test func aFullFileReadsIntoCheckedValues() throws {
        let file = try ConfigFile.parse("""
            timeout = "90s"
            retries = 0
            max-age = 300
            max-stale = "7d"
            color = false

            [swapi]
            url = "http://127.0.0.1:8080/api/"
            [reddit]
            client-id = "p-jcoLKBynTLew"
            client-secret = "s3cret"
            subreddits = ["swift", "r/rust"]
            hide-subreddits = ["Politics"]
            hide-words = ["Game of Thrones"]
            [sync]
            swapi = true
            """, path: "/c.toml", isPrivate: true, settings: Self.settings)
        #expect(file.timeout == .seconds(90) && file.retries == 0)
        #expect(file.maximumAge == .seconds(300) && file.maximumStale == .seconds(7 * 86_400))
        #expect(file.color == false && file.values["sync.swapi"] == .flag(true))
        #expect(file.values["swapi.url"] == .url(try #require(URL(string: "http://127.0.0.1:8080/api"))))
        #expect(file.values["reddit.client-id"] == .text("p-jcoLKBynTLew") && file.values["reddit.client-secret"] == .text("s3cret"))
        #expect(file.values["reddit.subreddits"] == .list(["swift", "rust"]) && file.values["reddit.hide-subreddits"] == .list(["politics"]))
        #expect(file.lines["reddit.subreddits"] == 12 && file.lines["timeout"] == 1)
    }

    @Test func aTypoedKeyIsToldTheKeyMeant() {
        #expect(throws: ReaderError.invalidConfiguration("/c.toml:2: reddit.subredits: is not a setting reader knows: did you mean reddit.subreddits?")) {
            try ConfigFile.parse("[reddit]\nsubredits = [\"swift\"]\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
        #expect(throws: ReaderError.invalidConfiguration(
            "/c.toml:1: colour-scheme: is not a setting reader knows; the settings are timeout, retries, max-age, max-stale, color, "
                + "swapi.url, sync.swapi, reddit.url, reddit.oauth-url, reddit.client-id, reddit.client-secret, reddit.source, "
                + "reddit.feed-user, reddit.feed-key, reddit.subreddits, "
                + "reddit.hide-subreddits, reddit.hide-words")) {
            try ConfigFile.parse("colour-scheme = 1\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    /// One file serves builds with more services and with fewer: a table of a service this build
    /// does not have is passed over, and said in `reader config`; a table near a known one is a typo.
    @Test func aTableOfAServiceThisBuildDoesNotHaveIsPassedOver() throws {
        let file = try ConfigFile.parse("""
            [openlibrary]
            url = "http://127.0.0.1:9/"
            [reddit]
            subreddits = ["swift"]
            """, path: "/c.toml", isPrivate: true, settings: Self.settings)
        #expect(file.ignoredTables == ["openlibrary"])
        #expect(file.values["reddit.subreddits"] == .list(["swift"]))
        #expect(throws: ReaderError.invalidConfiguration("/c.toml:1: redit: is not a table reader knows: did you mean [reddit]?")) {
            try ConfigFile.parse("[redit]\nurl = \"http://127.0.0.1:9/\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
        #expect(throws: ReaderError.invalidConfiguration("/c.toml:1: timeouts: is not a table reader knows: did you mean timeout?")) {
            try ConfigFile.parse("[timeouts]\nall = 3\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    /// A key with a character that does not show is named with it escaped: deleted, the message
    /// would say "reddit.url is not a setting: did you mean reddit.url?".
    @Test func aKeyWithAnInvisibleCharacterIsShownEscaped() {
        #expect(throws: ReaderError.invalidConfiguration(#"/c.toml:2: reddit.ur\u{202E}l: is not a setting reader knows: did you mean reddit.url?"#)) {
            try ConfigFile.parse("[reddit]\n\"ur\\u202el\" = \"x\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    @Test func aSettingSetTwiceIsRefused() {
        #expect(message { () throws(ReaderError) in
            _ = try ConfigFile.parse("\"reddit.url\" = \"http://127.0.0.1:1\"\n[reddit]\nurl = \"http://127.0.0.1:2\"\n",
                                     path: "/c.toml", isPrivate: true, settings: Self.settings)
        }.hasSuffix("reddit.url: is set twice (as a dotted key and in its table): keep one"))
    }

    @Test func dottedKeysAtTheTopAreFoundWithTheirLine() throws {
        #expect(throws: ReaderError.invalidConfiguration("/c.toml:2: reddit.url is not an http or https URL with a host: \"nope\"")) {
            try ConfigFile.parse("retries = 1\nreddit.url = \"nope\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    @Test func aSecretIsRefusedFromAFileOthersCanReadAndNeverShown() {
        #expect(throws: ReaderError.invalidConfiguration(
            "/c.toml:2: reddit.client-secret: refused: a secret is accepted only from a file no one else can read: run 'chmod 600 /c.toml', or set READER_REDDIT_CLIENT_SECRET instead")) {
            try ConfigFile.parse("[reddit]\nclient-secret = \"topsecret\"\nclient-id = \"abc\"\n", path: "/c.toml", isPrivate: false, settings: Self.settings)
        }
        #expect(throws: ReaderError.invalidConfiguration(
            "/c.toml:3: reddit.client-secret: is not a Reddit client secret: it must be 1 to 200 printable ASCII characters, without spaces or ':'")) {
            try ConfigFile.parse("[reddit]\nclient-id = \"abc\"\nclient-secret = \"top secret\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    @Test func theEnvironmentWinsOverTheFileAndACredentialIsNeverMadeOfTwoLayers() throws {
        var settings = ReaderSettings.builtIn(of: .builtIn)
        var file = ConfigFile(path: "/c.toml")
        file.values["reddit.client-id"] = .text("fileid")
        file.values["reddit.client-secret"] = .text("filesecret")
        file.values["reddit.url"] = .url(try #require(URL(string: "http://file.example")))
        file.retries = 7
        settings.apply(file)
        try settings.apply(environment: ["READER_REDDIT_CLIENT_ID": "envid", "READER_REDDIT_URL": "http://env.example", "NO_COLOR": "1"])
        // The environment's id comes without the file's secret: an installed app.
        let reddit = settings.of("reddit")
        #expect(reddit.text("reddit.client-id") == "envid" && reddit.text("reddit.client-secret") == nil)
        #expect(reddit.source("reddit.client-id") == .environment(variable: "READER_REDDIT_CLIENT_ID"))
        #expect(reddit.url("reddit.url").absoluteString == "http://env.example")
        #expect(settings.retries.value == 7 && settings.retries.source == .configFile(path: "/c.toml", line: nil))
        #expect(settings.color.value == false && settings.color.source == .environment(variable: "NO_COLOR"))
        #expect(settings.timeout.value == .seconds(20) && settings.timeout.source == .builtIn)
    }

    @Test func theFileIsLookedForWhereXDGSays() {
        #expect(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/reader/config.toml")
        // A relative XDG_CONFIG_HOME is ignored, as the XDG rules say.
        #expect(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "x", "HOME": "/h"]) == "/h/.config/reader/config.toml")
        #expect(ConfigFile.path(environment: [:]) == nil)
        // A relative HOME is ignored too, and told as relative, not unset.
        #expect(ConfigFile.path(environment: ["XDG_CONFIG_HOME": "x", "HOME": "h"]) == nil)
        #expect(ConfigFile.noPathReason(environment: ["XDG_CONFIG_HOME": "x", "HOME": "h"])
            == "XDG_CONFIG_HOME is relative (\"x\") and HOME is relative (\"h\"): a folder must be a full path, starting with /")
        #expect(ConfigFile.noPathReason(environment: ["HOME": ""]) == "XDG_CONFIG_HOME is not set and HOME is empty")
    }

    /// The rule a client id or secret is told is the rule applied: its length too.
    @Test(arguments: [String(repeating: "a", count: 101), String(repeating: "a", count: 256), "has space", "a:b", "é"])
    func aClientIDThatCannotBeOneIsToldTheWholeRule(id: String) {
        let rule = "it must be 1 to 100 printable ASCII characters, without spaces or ':'"
        #expect(throws: ReaderError.invalidConfiguration("READER_REDDIT_CLIENT_ID is not a Reddit client id: \(rule)")) {
            _ = try RedditCredentials.fromEnvironment(["READER_REDDIT_CLIENT_ID": id])
        }
        var settings = ReaderSettings.builtIn(of: .builtIn)
        #expect(throws: ReaderError.invalidConfiguration("READER_REDDIT_CLIENT_ID is not a Reddit client id: \(rule)")) {
            try settings.apply(environment: ["READER_REDDIT_CLIENT_ID": id])
        }
        #expect(throws: ReaderError.invalidConfiguration("READER_REDDIT_CLIENT_SECRET is set but READER_REDDIT_CLIENT_ID is not: set both, or neither")) {
            try settings.apply(environment: ["READER_REDDIT_CLIENT_SECRET": "s3cret"])
        }
        #expect(throws: ReaderError.invalidConfiguration("/c.toml:2: reddit.client-id: is not a Reddit client id: \(rule)")) {
            try ConfigFile.parse("[reddit]\nclient-id = \"\(id)\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    @Test func theLongestClientIDAndSecretAreTaken() throws {
        let id = String(repeating: "i", count: 100), secret = String(repeating: "s", count: 200)
        #expect(try RedditCredentials.fromEnvironment(["READER_REDDIT_CLIENT_ID": id, "READER_REDDIT_CLIENT_SECRET": secret])
            == RedditCredentials(clientID: id, clientSecret: secret))
        #expect(throws: ReaderError.invalidConfiguration(
            "READER_REDDIT_CLIENT_SECRET is not a Reddit client secret: it must be 1 to 200 printable ASCII characters, without spaces or ':'")) {
            _ = try RedditCredentials.fromEnvironment(["READER_REDDIT_CLIENT_ID": id, "READER_REDDIT_CLIENT_SECRET": secret + "s"])
        }
        // An empty id in the file is refused by the same rule, not taken for a missing one.
        #expect(throws: ReaderError.invalidConfiguration(
            "/c.toml:2: reddit.client-id: is not a Reddit client id: it must be 1 to 100 printable ASCII characters, without spaces or ':'")) {
            try ConfigFile.parse("[reddit]\nclient-id = \"\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
        }
    }

    /// Any control character — C0, DEL, C1 — makes a URL from the environment or the file a
    /// configuration error, as a space or a CR does, saying which.
    @Test(arguments: [0x1B, 0x00, 0x07, 0x0D, 0x7F, 0x85, 0x9B] as [UInt32])
    func aControlCharacterInAServiceURLIsRefused(control: UInt32) throws {
        let character = String(Character(try #require(Unicode.Scalar(control))))
        let code = String(format: "U+%04X", control)
        var settings = ReaderSettings.builtIn(of: .builtIn)
        #expect(message { () throws(ReaderError) in
            try settings.apply(environment: ["READER_SWAPI_URL": "http://127.0.0.1:8080/a" + character + "pi"])
        }.hasPrefix("READER_SWAPI_URL holds a control character (\(code)), which no URL may hold: \"http://127.0.0.1:8080/a"))
        // TOML writes it as an escape; the file's key is named as the variable is. An escaped NUL
        // is refused before the TOML is read: TOMLKit would hand over the string cut there.
        guard control != 0 else {
            #expect(message { () throws(ReaderError) in
                _ = try ConfigFile.parse("retries = 1\n[swapi]\nurl = \"http://127.0.0.1:8080/a\\u0000pi\"\n",
                                         path: "/c.toml", isPrivate: true, settings: Self.settings)
            } == "/c.toml:3: swapi.url: holds an escaped NUL (\\u0000), which no setting may hold")
            #expect(message { () throws(ReaderError) in
                _ = try ConfigFile.parse("\"timeout\\U00000000x\" = \"5s\"\n", path: "/c.toml", isPrivate: true, settings: Self.settings)
            }.hasPrefix("/c.toml:1"))
            return
        }
        #expect(message { () throws(ReaderError) in
            _ = try ConfigFile.parse("[swapi]\nurl = \"http://127.0.0.1:8080/a\\u\(String(format: "%04X", control))pi\"\n",
                                     path: "/c.toml", isPrivate: true, settings: Self.settings)
        }.hasPrefix("/c.toml:2: swapi.url holds a control character (\(code)), which no URL may hold"))
    }

    /// The message of the configuration error `body` throws; "" when it throws none or another.
    private func message(_ body: () throws(ReaderError) -> Void) -> String {
        do throws(ReaderError) {
            try body()
        } catch {
            if case .invalidConfiguration(let text) = error { return text }
        }
        return ""
    }

    @Test func wordsAreHiddenWholeAndPhrasesInARow() {
        let filter = PostFilter(hiddenSubreddits: ["r/Politics"], hiddenWords: ["AI", "game of thrones"])
        #expect(filter.hides(subreddit: "python", title: "AI, again?"))
        #expect(!filter.hides(subreddit: "python", title: "He said it was fine"))
        #expect(filter.hides(subreddit: "tv", title: "Game-of-Thrones: the finale"))
        #expect(!filter.hides(subreddit: "tv", title: "Game of chess, thrones of kings"))
        #expect(filter.hides(subreddit: "tv", title: "Q&amp;A: ai"))
        #expect(filter.hides(subreddit: "politics", title: "anything"))
        // Asked for by name, a hidden subreddit is shown.
        #expect(!filter.hides(subreddit: "Politics", title: "anything", requested: ["politics"]))
        #expect(!PostFilter().hides(subreddit: "politics", title: "ai"))
    }

    @Test(arguments: ["redd.it/2xmo63", "https://redd.it/2xmo63", "www.redd.it/2xmo63?utm=x", "REDD.IT/2xmo63"])
    func aShortLinkIsAPostWithOrWithoutAScheme(text: String) throws {
        #expect(try Reddit.postID(text) == "2xmo63")
    }

    @Test func aShortLinkOnAnotherHostIsNotAPost() {
        #expect(throws: ReaderError.self) { try Reddit.postID("example.com/2xmo63") }
    }
}

/// Errors compared as a person reads them: the same code and the same message.
extension ReaderError: Equatable {
    public static func == (lhs: ReaderError, rhs: ReaderError) -> Bool { lhs.code == rhs.code && lhs.message == rhs.message }
}
