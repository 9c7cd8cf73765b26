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
                 ".SH ENVIRONMENT",
                 ".TP", ".B READER_SWAPI_URL", "The SWAPI base (default https://swapi.dev/api).",
                 ".TP", ".B READER_REDDIT_URL", "The Reddit base (default https://www.reddit.com).",
                 ".TP", ".B READER_CACHE_PATH", "The cache file.",
                 ".TP", ".B NO_COLOR", "When set and not empty, output is never coloured."]
        return page.joined(separator: "\n") + "\n"
    }

    private static func section(_ command: Command, path: String) -> [String] {
        let name = "\(path) \(command.commandName)"
        var lines = [".SS \(escape(name))", escape(command.abstract ?? "")]
        if let discussion = command.discussion, !discussion.isEmpty {
            lines += [".PP", ".nf", escape(discussion), ".fi"]
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
