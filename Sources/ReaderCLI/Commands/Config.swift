import ArgumentParser
import Foundation
import ReaderKit

extension Reader {
    struct Config: ParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show the settings reader runs with, and where each comes from.",
            discussion: """
                Each setting comes from the first of: a flag given with this command, an \
                environment variable, the config file ($XDG_CONFIG_HOME/reader/config.toml, else \
                ~/.config/reader/config.toml), the built-in default. A client secret is never shown.

                The config file is TOML:

                  timeout = "30s"
                  retries = 2
                  max-age = "5m"
                  max-stale = "7d"
                  color = false

                  [swapi]
                  url = "https://swapi.dev/api"

                  [reddit]
                  url = "https://www.reddit.com"
                  client-id = "p-jcoLKBynTLew"
                  subreddits = ["swift", "rust"]
                  hide-subreddits = ["politics"]
                  hide-words = ["spoiler"]

                  [sync]
                  swapi = true
                """)

        static let examples = ["reader config", "reader config --retries 5", "reader config --json"]

        @OptionGroup var settingOptions: SettingOptions
        @OptionGroup var output: OutputOptions

        func run() throws {
            let settings = try settingOptions.settings(noColor: output.noColor)
            let writer = output.makeOutput()
            if output.json {
                try writer.writeJSON(Self.json(settings))
            } else {
                let style = Style.forDescriptor(STDOUT_FILENO, noColor: output.colourOff)
                try writer.writeLine(Self.render(settings, style: style), to: .standardOutput)
            }
        }

        /// One row of the listing: the setting's name in the file, where its value came from,
        /// and the value as shown (sanitised: the file and the environment are untrusted).
        struct Row {
            var name: String
            var source: ReaderSettings.Source
            var shown: String
            var json: JSONValue
        }

        static func rows(_ settings: ReaderSettings) -> [Row] {
            func time(_ duration: Duration?) -> String { duration.map { TimeSpan($0).defaultValueDescription } ?? "none" }
            func seconds(_ duration: Duration?) -> JSONValue {
                guard let duration else { return .null }
                return .number(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
            }
            func list(_ names: [String]) -> String {
                names.isEmpty ? "none" : TerminalText.sanitise(names.joined(separator: ", "), maxLength: 300)
            }
            func url(_ url: URL) -> String { TerminalText.sanitise(url.absoluteString, maxLength: 300) }
            let credentials = settings.redditCredentials
            return [
                Row(name: "timeout", source: settings.timeout.source, shown: time(settings.timeout.value),
                    json: seconds(settings.timeout.value)),
                Row(name: "retries", source: settings.retries.source, shown: String(settings.retries.value),
                    json: .integer(Int64(settings.retries.value))),
                Row(name: "max-age", source: settings.maximumAge.source, shown: time(settings.maximumAge.value),
                    json: seconds(settings.maximumAge.value)),
                Row(name: "max-stale", source: settings.maximumStale.source, shown: time(settings.maximumStale.value),
                    json: seconds(settings.maximumStale.value)),
                Row(name: "color", source: settings.color.source, shown: settings.color.value ? "where the terminal allows" : "never",
                    json: .bool(settings.color.value)),
                Row(name: "swapi.url", source: settings.swapiURL.source, shown: url(settings.swapiURL.value),
                    json: .string(settings.swapiURL.value.absoluteString)),
                Row(name: "reddit.url", source: settings.redditURL.source, shown: url(settings.redditURL.value),
                    json: .string(settings.redditURL.value.absoluteString)),
                Row(name: "reddit.oauth-url", source: settings.redditOAuthURL.source, shown: url(settings.redditOAuthURL.value),
                    json: .string(settings.redditOAuthURL.value.absoluteString)),
                Row(name: "reddit.client-id", source: credentials.source,
                    shown: credentials.value.map { TerminalText.sanitise($0.clientID, maxLength: 100) } ?? "none (Reddit is read anonymously)",
                    json: credentials.value.map { .string($0.clientID) } ?? .null),
                // Whether there is a secret, never the secret.
                Row(name: "reddit.client-secret", source: settings.redditClientSecretSource,
                    shown: credentials.value?.clientSecret == nil ? "none" : "set (hidden)",
                    json: credentials.value?.clientSecret == nil ? .null : .string("hidden")),
                Row(name: "reddit.subreddits", source: settings.subreddits.source, shown: list(settings.subreddits.value),
                    json: .array(settings.subreddits.value.map { .string($0) })),
                Row(name: "reddit.hide-subreddits", source: settings.hiddenSubreddits.source, shown: list(settings.hiddenSubreddits.value),
                    json: .array(settings.hiddenSubreddits.value.map { .string($0) })),
                Row(name: "reddit.hide-words", source: settings.hiddenWords.source, shown: list(settings.hiddenWords.value),
                    json: .array(settings.hiddenWords.value.map { .string($0) })),
                Row(name: "sync.swapi", source: settings.syncSWAPI.source, shown: settings.syncSWAPI.value ? "yes" : "no",
                    json: .bool(settings.syncSWAPI.value)),
            ]
        }

        /// The file's path and whether it was found, then a row a setting: name, source, value.
        /// The value comes last, so a wide one cannot push the columns out of line.
        static func render(_ settings: ReaderSettings, style: Style) -> String {
            let rows = rows(settings)
            let file = settings.configFilePath.map { TerminalText.sanitise($0, maxLength: 300) }
            let environment = ProcessEnvironment.current
            // A relative $XDG_CONFIG_HOME is passed over for ~/.config: said, so that it is not thought read.
            let ignored = ConfigFile.ignoredFolderReason(environment: environment).map { "; " + $0 } ?? ""
            var lines = ["config file: " + (file.map { "\($0) (\(settings.configFileFound ? "read" : "none there")\(ignored))" }
                ?? "none (\(ConfigFile.noPathReason(environment: environment)))"), ""]
            let nameWidth = rows.map(\.name.count).max() ?? 0
            let sourceWidth = rows.map { TerminalText.width($0.source.description) }.max() ?? 0
            lines.append(style.bold(TerminalText.pad("SETTING", toWidth: nameWidth) + "  " + TerminalText.pad("FROM", toWidth: sourceWidth) + "  VALUE"))
            for row in rows {
                let source = TerminalText.pad(TerminalText.sanitise(row.source.description, maxLength: 60), toWidth: sourceWidth)
                lines.append(TerminalText.pad(row.name, toWidth: nameWidth) + "  "
                             + (row.source == .builtIn ? style.dim(source) : source) + "  " + row.shown)
            }
            return lines.joined(separator: "\n")
        }

        /// `{"config_file": {"path", "found", "ignored"}, "settings": {"timeout": {"value", "source", "from"}, …}}`.
        static func json(_ settings: ReaderSettings) -> JSONValue {
            .object([
                "config_file": .object(["path": settings.configFilePath.map { .string($0) } ?? .null,
                                        "found": .bool(settings.configFileFound),
                                        "ignored": ConfigFile.ignoredFolderReason(environment: ProcessEnvironment.current).map { .string($0) } ?? .null]),
                "settings": .object(Dictionary(uniqueKeysWithValues: rows(settings).map { row in
                    (row.name, .object(["value": row.json, "source": .string(row.source.kind),
                                        "from": .string(row.source.description)]))
                })),
            ])
        }
    }
}
