import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

extension Reader {
    struct Config: ParsableCommand, HelpExamples {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show the settings reader runs with, and where each comes from.",
            discussion: """
                Each setting comes from the first of: a flag given with this command, an \
                environment variable, the config file ($XDG_CONFIG_HOME/reader/config.toml, else \
                ~/.config/reader/config.toml), the built-in default. A client secret is never shown.

                The proxies come from the environment only (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, \
                NO_PROXY, and their lower-case forms, as curl reads them); each service's row \
                says which proxy it goes through, or why it goes directly. A proxy's password is \
                never shown.

                The config file is TOML:

                  timeout = "30s"
                  retries = 2
                  max-age = "5m"
                  max-stale = "7d"
                  color = false

                """ + "\n" + Self.serviceTables)

        /// Each service's table of the config file, and the `[sync]` table with their lines, as
        /// the help's example shows them.
        static var serviceTables: String {
            let plugins = ServiceRegistry.current.plugins
            let syncTable = "[sync] "
            let syncLines = plugins.compactMap { $0.sync?.configExample }.filter { $0.hasPrefix(syncTable) }.map { String($0.dropFirst(syncTable.count)) }
            let tables = plugins.compactMap(\.configExample) + (syncLines.isEmpty ? [] : [Help.joined(["[sync]"] + syncLines, separator: "\n")])
            // Built at every start (the parser reads every command's configuration): over the
            // bytes, see Help.joined.
            var text: [UInt8] = []
            for (index, table) in tables.enumerated() {
                text += index == 0 ? Array("  ".utf8) : Array("\n\n  ".utf8)
                for byte in table.utf8 {
                    text.append(byte)
                    if byte == UInt8(ascii: "\n") { text += [UInt8(ascii: " "), UInt8(ascii: " ")] }
                }
            }
            return String(decoding: text, as: UTF8.self)
        }

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
                try writer.writeLine(Self.render(settings, style: style, width: Terminal.outputWidth()), to: .standardOutput)
            }
            // What every command that sends a request would refuse with, said once the rest is shown.
            if let problem = settings.proxyProblem { throw problem }
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
            var rows = [
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
            ]
            // The cache file has no key in the config file: $READER_CACHE_PATH or --cache-path sets it.
            let environment = ProcessEnvironment.current
            let fromEnvironment = !(environment["READER_CACHE_PATH"] ?? "").isEmpty
            let cacheSource: ReaderSettings.Source = fromEnvironment ? .environment(variable: "READER_CACHE_PATH") : .builtIn
            do throws(ReaderError) {
                let path = try CacheLocation.resolve(environment: environment)
                rows.append(Row(name: "cache-path", source: cacheSource, shown: TerminalText.sanitise(path, maxLength: 300), json: .string(path)))
            } catch {
                rows.append(Row(name: "cache-path", source: cacheSource, shown: "none (" + CLIWording.message(of: error) + ")", json: .null))
            }
            let size = CacheFileOptions.defaultCacheSize
            rows.append(Row(name: "cache-size", source: .builtIn, shown: size.defaultValueDescription + " (--cache-size on a command)",
                            json: .integer(Int64(size.bytes))))
            for plugin in settings.registry.plugins {
                let values = settings.of(plugin.name)
                for setting in plugin.settings {
                    let value = values.values[setting.key]?.value ?? setting.defaultValue
                    let source = values.source(setting.key)
                    switch (setting.kind, value) {
                    case (.secret(let identity, _), .text(let secret)):
                        // Whether there is a secret, never the secret; and why the file's is not used, when it is not.
                        let passedOver = settings.secretsPassedOver.contains(setting.key)
                            ? " (the config file's is not used: \(identity) comes from the environment, and a secret only with its own)" : ""
                        rows.append(Row(name: setting.key, source: source, shown: secret == nil ? "none" + passedOver : "set (hidden)",
                                        json: secret == nil ? .null : .string("hidden")))
                    case (.identity(_, let unset), .text(let text)):
                        rows.append(Row(name: setting.key, source: source, shown: text.map { TerminalText.sanitise($0, maxLength: 100) } ?? unset,
                                        json: text.map { .string($0) } ?? .null))
                    case (_, .url(let address)):
                        rows.append(Row(name: setting.key, source: source, shown: url(address), json: .string(address.absoluteString)))
                    case (_, .flag(let flag)):
                        rows.append(Row(name: setting.key, source: source, shown: flag ? "yes" : "no", json: .bool(flag)))
                    case (_, .list(let items)):
                        rows.append(Row(name: setting.key, source: source, shown: list(items), json: .array(items.map { .string($0) })))
                    case (_, .text(let text)):
                        rows.append(Row(name: setting.key, source: source, shown: text.map { TerminalText.sanitise($0, maxLength: 100) } ?? "none",
                                        json: text.map { .string($0) } ?? .null))
                    }
                }
            }
            return rows + proxyRows(settings)
        }

        /// `NO_PROXY`'s entries, each that is passed over marked so: `10.0.0.0/33 (ignored), .example.com`.
        static func bypassShown(_ bypass: ProxySettings.Bypass) -> String {
            let ignored = bypass.ignoredEntries
            return bypass.entries.map { ignored.contains($0) ? $0 + " (ignored)" : $0 }.joined(separator: ", ")
        }

        /// The proxies for https and http, NO_PROXY, and how each service's base URL is reached.
        static func proxyRows(_ settings: ReaderSettings) -> [Row] {
            let proxies = settings.proxies
            func source(_ server: ProxySettings.Server?) -> ReaderSettings.Source {
                server.map { .environment(variable: $0.variable) } ?? .builtIn
            }
            func row(_ name: String, _ server: ProxySettings.Server?) -> Row {
                // Refused (said below the table): no request is sent, rather than one going directly.
                if settings.proxyProblem != nil { return Row(name: name, source: .builtIn, shown: "unusable (R1002 below)", json: .null) }
                return Row(name: name, source: source(server), shown: server.map(\.shown) ?? "none (direct)",
                           json: server.map { .string($0.shown) } ?? .null)
            }
            var rows = [row("https-proxy", proxies.https), row("http-proxy", proxies.http)]
            let entries = proxies.bypass.entries
            rows.append(Row(name: "no-proxy", source: proxies.bypass.variable.map { .environment(variable: $0) } ?? .builtIn,
                            shown: entries.isEmpty ? "none" : TerminalText.sanitise(Self.bypassShown(proxies.bypass), maxLength: 300),
                            json: .array(entries.map { .string($0) })))
            guard settings.proxyProblem == nil, let services = try? settings.services() else { return rows }
            for plugin in settings.registry.plugins {
                guard let service = services[plugin.name] else { continue }
                let route = proxies.route(for: service.baseURL)
                let from: ReaderSettings.Source = switch route {
                case .direct: .builtIn
                case .bypassed(_, let variable): .environment(variable: variable)
                case .proxy(let server): .environment(variable: server.variable)
                }
                rows.append(Row(name: "\(plugin.name.rawValue).proxy", source: from, shown: route.shown,
                                json: route.server.map { .string($0.shown) } ?? .null))
            }
            return rows
        }

        /// The file's path and whether it was found, then a row a setting: name, source, value.
        /// The value comes last, so a wide one cannot push the columns out of line. On a terminal
        /// too narrow for the columns, each setting is a line of its own (`name = value (source)`),
        /// wrapped: no line is wider than `width`.
        static func render(_ settings: ReaderSettings, style: Style, width: Int? = nil) -> String {
            let rows = rows(settings)
            let file = settings.configFilePath.map { TerminalText.sanitise($0, maxLength: 300) }
            let environment = ProcessEnvironment.current
            // A relative $XDG_CONFIG_HOME is passed over for ~/.config: said, so that it is not thought read.
            let ignored = (ConfigFile.ignoredFolderReason(environment: environment).map { "; " + $0 } ?? "")
                + (settings.ignoredTables.isEmpty ? ""
                    : "; passed over: " + settings.ignoredTables.map { "[\($0)]" }.joined(separator: ", ") + ", no service of this build")
            var lines = ["config file: " + (file.map { "\($0) (\(settings.configFileFound ? "read" : "none there")\(ignored))" }
                ?? "none (\(ConfigFile.noPathReason(environment: environment)))"), ""]
            let nameWidth = rows.map(\.name.count).max() ?? 0
            let sourceWidth = rows.map { TerminalText.width($0.source.description) }.max() ?? 0
            let widest = nameWidth + sourceWidth + 4 + (rows.map { TerminalText.width($0.shown) }.max() ?? 0)
            if let width, widest > width {
                lines[0] = Terminal.wrapMessage(lines[0], width: width, hangingIndent: 2)
                for row in rows {
                    let source = TerminalText.sanitise(row.source.description, maxLength: 60)
                    lines.append(Terminal.wrapMessage("\(row.name) = \(row.shown) (\(source))", width: width, hangingIndent: 2))
                }
                return lines.joined(separator: "\n")
            }
            lines.append(style.bold(TerminalText.pad("SETTING", toWidth: nameWidth) + "  " + TerminalText.pad("FROM", toWidth: sourceWidth) + "  VALUE"))
            for row in rows {
                let source = TerminalText.pad(TerminalText.sanitise(row.source.description, maxLength: 60), toWidth: sourceWidth)
                lines.append(TerminalText.pad(row.name, toWidth: nameWidth) + "  "
                             + (row.source == .builtIn ? style.dim(source) : source) + "  " + row.shown)
            }
            return lines.joined(separator: "\n")
        }

        /// `{"config_file": {"path", "found", "ignored", "ignored_tables"}, "settings": {"timeout": {"value", "source", "from"}, …}}`.
        static func json(_ settings: ReaderSettings) -> JSONValue {
            .object([
                "config_file": .object(["path": settings.configFilePath.map { .string($0) } ?? .null,
                                        "found": .bool(settings.configFileFound),
                                        "ignored": ConfigFile.ignoredFolderReason(environment: ProcessEnvironment.current).map { .string($0) } ?? .null,
                                        "ignored_tables": .array(settings.ignoredTables.map { .string($0) })]),
                "settings": .object(Dictionary(uniqueKeysWithValues: rows(settings).map { row in
                    (row.name, .object(["value": row.json, "source": .string(row.source.kind),
                                        "from": .string(row.source.description)]))
                })),
            ])
        }
    }
}
