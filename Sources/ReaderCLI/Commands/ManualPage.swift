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
        page += [".SH EXIT STATUS"]
        for code in ReaderKit.ExitCode.allCases {
            page += [".TP", ".B \(code.rawValue)", escape(meaning(of: code))]
        }
        page += [".TP", ".B 129, 130, 141, 143",
                 "Ended by a signal (128 and its number): SIGHUP, Ctrl-C, a closed pipe (SIGPIPE, as cat does), SIGTERM.",
                 ".SH DIAGNOSTICS",
                 "A failure is printed on stderr as error CODE: message, with a hint on the next line; a notice (a cached "
                    + "copy shown in place of a failure) as notice CODE: message; trouble the command carried on through (a cache "
                    + "it cannot write, a rate limit nearly used up, a service read by its other route) as warning CODE: "
                    + "message. The code's letter is its layer: R the request "
                    + "(arguments, configuration, a rate limit, a credential), T the transport, H an HTTP status with no error "
                    + "body (the number is the status), A an HTTP status whose body says why, D an answer that does not decode, "
                    + "C the cache, O the output, B a bug. A code never changes meaning. --verbose adds the technical detail; "
                    + "with --json the error is one JSON object on stderr (code, domain, decision, message, hint, reason, "
                    + "exit_code). 'reader help COMMAND' describes "
                    + "each command.",
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
                 ".TP", ".B TERM", "When dumb, output is never coloured, and browse refuses to start.",
                 ".TP", ".B COLUMNS", "The width to fit when stdout is not a terminal; unset, piped output is never cut.",
                 ".TP", ".B BROWSER", "The command browse's o opens a post's link with; unset, the link is shown instead.",
                 ".TP", ".B HTTPS_PROXY, HTTP_PROXY, ALL_PROXY", "The http:// proxy for https URLs, for http URLs, "
                    + "and for either without its own, as curl reads them: the lower-case form first; HTTP_PROXY not in a CGI "
                    + "program. http://user:password@host:port, percent-encoded; https goes through CONNECT. socks5:// and "
                    + "https:// proxies are refused (R1002) by what sends requests; --offline and the cache commands run. "
                    + "The password is never shown.",
                 ".TP", ".B NO_PROXY", "Hosts reached directly: a comma-separated list of *, names (with or without a leading "
                    + "dot: the name and every name under it), IPv4 and IPv6 addresses, CIDR blocks, each optionally with :port. "
                    + "The lower-case form first. 'reader config' and 'reader status' say how each service is reached.",
                 ".SH FILES",
                 ".TP", ".I $XDG_CONFIG_HOME/reader/config.toml", "(else ~/.config/reader/config.toml) The config file, in "
                    + "TOML: 'reader config' shows each setting and where it comes from. A file holding a secret must be "
                    + "readable by its owner alone (chmod 600).",
                 ".TP", ".I $XDG_CACHE_HOME/reader/cache.sqlite", "(else ~/.cache/reader/cache.sqlite; READER_CACHE_PATH or "
                    + "--cache-path to put it elsewhere) The cache, with its -wal and -shm files beside it: 'reader cache' "
                    + "shows, clears and prunes it, 'reader cache path' prints where it is. A damaged one is moved aside as "
                    + "cache.sqlite.corrupt-TIMESTAMP, never deleted."]
        // A service with an app identity keeps its token beside the cache (its Authenticator's
        // storage folder), named after the service.
        for plugin in ServiceRegistry.current.plugins where plugin.credential != nil {
            page += [".TP", ".I \(escape(plugin.name.description))-token.json",
                     "Beside the cache file: the token \(escape(plugin.name.description))'s app identity obtained, mode 0600, "
                        + "reused until it expires. Never shown; deleting it only makes reader ask for a new one."]
        }
        page += [".SH BROWSE KEYS",
                 "The keys every screen of 'reader browse' shares. Each screen adds its own (a post list's sort and search, "
                    + "a post's folding, opening a link), and ? lists them all, with the background failures so far."]
        for group in Browser.sharedKeys(places: Reader.Browse.browsable.map(\.browse.goTo)) {
            page += [".SS \(escape(group.group))"]
            for key in group.keys { page += [".TP", ".B \(escape(key.keys))", escape(key.action)] }
        }
        return page.joined(separator: "\n") + "\n"
    }

    /// What an exit code means, for a user of `reader`.
    private static func meaning(of code: ReaderKit.ExitCode) -> String {
        switch code {
        case .success: "Success, including a cached copy shown with a notice in place of a failure."
        case .usage: "Invalid arguments (R1001)."
        case .dataError: "The service answered JSON that does not decode (D1002 to D1005)."
        case .notFound: "Not found: 404, 410, or the service's own \"not found\"."
        case .noHost: "The host name does not resolve (T1003)."
        case .unavailable: "The service is unavailable: a server error, an expired certificate, a proxy that will not reach "
            + "it; or --offline with nothing cached (C1001, C1005)."
        case .software: "An internal error: a bug. Please report it with its B code."
        case .cannotCreate: "The cache file cannot be created, opened or written, for a command that works on it ('reader "
            + "cache clear', 'prune'); or 'reader sync' could not store what it fetched (C1002, C1003, C1004). Other commands "
            + "carry on without the cache."
        case .ioError: "The output cannot be written: a full disk, a closed stdout (O1001), or the temporary file of --all "
            + "--json (O1002)."
        case .temporaryFailure: "A temporary failure: offline, refused, timed out, rate limited (T1001, T1004, T1005, T1009, "
            + "R1003, 408, 429). Try again later, or with --wait."
        case .protocolError: "A protocol error: HTML instead of JSON, a client error, a body too large, a redirect not "
            + "followed, an answer outside HTTP, a certificate refused."
        case .noPermission: "Not allowed: 401 or 403, or the service refused the app's credentials (R1004)."
        case .configuration: "Invalid configuration: an environment variable, the config file, or a proxy that asks for "
            + "credentials not given (R1002, T1307)."
        }
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
