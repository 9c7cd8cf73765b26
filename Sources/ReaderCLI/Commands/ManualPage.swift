import ArgumentParser
import Foundation
import ReaderKit

/// A man(7) page from the argument parser's description of the commands (its `--experimental-dump-help`
/// JSON), so that the page can never disagree with `--help`.
enum ManualPage {
    struct Tool: Decodable { var command: Command }
    struct Command: Decodable {
        var commandName: String
        var abstract: String?
        var discussion: String?
        var subcommands: [Command]?
        var arguments: [Argument]?
        var shouldDisplay: Bool?
    }
    struct Argument: Decodable {
        struct Name: Decodable { var kind: String; var name: String }
        var kind: String
        var names: [Name]?
        var valueName: String?
        var abstract: String?
        var defaultValue: String?
        var shouldDisplay: Bool
        var isOptional: Bool
    }

    static func render(_ json: String) -> String {
        guard let tool = try? JSONDecoder().decode(Tool.self, from: Data(json.utf8)) else { return "" }
        let root = tool.command
        var page = [".TH READER 1 \"\" \"reader \(ReaderKitVersion.string)\" \"User Commands\"",
                    ".SH NAME", "reader \\- \(escape(root.abstract ?? ""))",
                    ".SH SYNOPSIS", ".B reader", ".I command", "[\\fIoptions\\fR]",
                    ".SH DESCRIPTION", escape(root.discussion ?? "")]
        page += [".SH COMMANDS"]
        for command in root.subcommands ?? [] where command.shouldDisplay ?? true && command.commandName != "help" {
            page += section(command, path: "reader")
        }
        page += [".SH EXIT STATUS",
                 "0 success; 64 usage; 65 data error; 66 not found; 68 no host; 69 unavailable; 70 internal error; "
                    + "75 temporary failure; 76 protocol error; 77 no permission; 78 configuration. "
                    + "The README lists every error code.",
                 ".SH ENVIRONMENT"]
        // The services' variables, as they declare them, then reader's own.
        for setting in ServiceRegistry.current.settings {
            guard let variable = setting.variable else { continue }
            let secret = setting.isSecret ? " Never shown." : ""
            page += [".TP", ".B \(escape(variable))", escape(setting.summary + " Over the config file's \(setting.key).\(secret)")]
        }
        page += [".TP", ".B READER_CACHE_PATH", "The cache file (over the default below).",
                 ".TP", ".B XDG_CONFIG_HOME", "Where the config file is looked for, when it is an absolute path.",
                 ".TP", ".B XDG_CACHE_HOME", "Where the cache file is kept, when it is an absolute path.",
                 ".TP", ".B HOME", "The home folder, for ~/.config and ~/.cache without the XDG variables.",
                 ".TP", ".B NO_COLOR", "When set and not empty, output is never coloured.",
                 ".TP", ".B TERM", "When dumb, output is never coloured.",
                 ".TP", ".B HTTPS_PROXY, HTTP_PROXY, ALL_PROXY", "The http:// proxy for https URLs, for http URLs, "
                    + "and for either without its own, as curl reads them: the lower-case form first; HTTP_PROXY not in a CGI "
                    + "program. http://user:password@host:port, percent-encoded; https goes through CONNECT. socks5:// and "
                    + "https:// proxies are refused (R1002). The password is never shown.",
                 ".TP", ".B NO_PROXY", "Hosts reached directly: a comma-separated list of *, names (with or without a leading "
                    + "dot: the name and every name under it), IPv4 and IPv6 addresses, CIDR blocks, each optionally with :port. "
                    + "The lower-case form first. 'reader config' and 'reader status' say how each service is reached.",
                 ".SH FILES",
                 ".TP", ".I $XDG_CONFIG_HOME/reader/config.toml", "(else ~/.config/reader/config.toml) The config file: "
                    + "'reader config' shows each setting and where it comes from.",
                 ".TP", ".I $XDG_CACHE_HOME/reader/cache.sqlite", "(else ~/.cache/reader/cache.sqlite) The cache: "
                    + "'reader cache' shows and clears it."]
        return page.joined(separator: "\n") + "\n"
    }

    private static func section(_ command: Command, path: String) -> [String] {
        let name = "\(path) \(command.commandName)"
        var lines = [".SS \(escape(name))", escape(command.abstract ?? "")]
        if let discussion = command.discussion, !discussion.isEmpty {
            // Prose is filled to the reader's width; an indented block (a sample file) is kept as it is.
            for paragraph in discussion.components(separatedBy: "\n\n") where !paragraph.isEmpty {
                lines += paragraph.hasPrefix("  ") ? [".PP", ".nf", escape(paragraph), ".fi"] : [".PP", escape(paragraph)]
            }
        }
        let examples = Help.examples(atPath: name.split(separator: " ").dropFirst().map(String.init))
        if !examples.isEmpty {
            lines += [".PP", "Examples:", ".nf"] + examples.map { "  " + escape($0) } + [".fi"]
        }
        for argument in command.arguments ?? [] where argument.shouldDisplay {
            let names = (argument.names ?? []).map { $0.kind == "short" ? "-\($0.name)" : "--\($0.name)" }
            var label = names.isEmpty ? "<\(argument.valueName ?? "value")>" : names.joined(separator: ", ")
            if argument.kind == "option" { label += " <\(argument.valueName ?? "value")>" }
            if label.contains("--help") || label.contains("--version") { continue }
            var text = argument.abstract ?? ""
            if let defaultValue = argument.defaultValue, argument.kind != "flag" { text += " (default: \(defaultValue))" }
            lines += [".TP", ".B \(escape(label))", escape(text)]
        }
        for sub in command.subcommands ?? [] where sub.shouldDisplay ?? true && sub.commandName != "help" {
            lines += section(sub, path: name)
        }
        return lines
    }

    /// Escapes roff: backslashes, and a leading dot or quote that would start a request.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\e").split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }
}
