import Foundation
import ReaderKit
import TOMLKit

/// reader's config file, `$XDG_CONFIG_HOME/reader/config.toml` (else `~/.config/reader/config.toml`):
/// defaults for the options, and each service's settings in a table of its own
/// (``ServicePlugin/settings``), as TOML.
///
/// ```toml
/// timeout = "30s"
/// retries = 2
///
/// [reddit]
/// subreddits = ["swift", "rust"]
/// hide-words = ["spoiler"]
/// ```
///
/// The file is untrusted like everything from outside: it is read only up to ``maximumSize``,
/// every number is bounded where it is read (as the flags are), every name and URL is checked as
/// the command line and the environment are, and a value is sanitised before it is shown. A
/// client secret is accepted only from a file that only its owner can read. Anything wrong is
/// ``ReaderError/invalidConfiguration(_:)`` (`R1002`, exit 78) naming the file, the line and the key.
///
/// ## Topics
/// - ``path(environment:)``
/// - ``read(atPath:settings:)``
/// - ``parse(_:path:isPrivate:settings:)``
public struct ConfigFile: Sendable, Equatable {
    /// Where it was read from.
    public var path: String
    /// `timeout`: the deadline of a whole command, more than 0 and at most an hour.
    public var timeout: Duration?
    /// `retries`: from 0 to 10.
    public var retries: Int?
    /// `max-age`: cached data younger than this is fresh.
    public var maximumAge: Duration?
    /// `max-stale`: cached data older than this is never shown.
    public var maximumStale: Duration?
    /// `color`: false never colours; true colours where the terminal allows.
    public var color: Bool?
    /// The services' settings this file sets, by key (`reddit.url`).
    public var values: [String: SettingValue] = [:]
    /// The line each key was set on, for saying where a value came from.
    public var lines: [String: Int] = [:]
    /// The tables of services this build does not have (`[openlibrary]` read by a `reader`
    /// without that plug-in), passed over as git passes over sections it does not know, so that
    /// one file serves builds with more services and with fewer. A table near a known one
    /// (`[redit]`) is a typo, and refused.
    public var ignoredTables: [String] = []

    public init(path: String) {
        self.path = path
    }

    /// The largest file read: far more than any real config, small enough to hold in memory.
    public static let maximumSize = 64 * 1024
    /// The longest a `timeout` may be, as `--timeout`.
    public static let maximumTimeout: Duration = .seconds(3600)
    /// The longest `max-age` or `max-stale`, as the flags' time values.
    public static let maximumTimeSpan: Duration = .seconds(100 * 365 * 86_400)
    /// The most names or words in one list.
    public static let maximumListCount = 200

    /// The keys of the settings every command shares; each service adds its own (``ServiceSetting/key``).
    public static let commonKeys = ["timeout", "retries", "max-age", "max-stale", "color"]

    /// Where the file is: `$XDG_CONFIG_HOME/reader/config.toml` when that is an absolute path (the
    /// XDG rule: a relative one is ignored), else `$HOME/.config/reader/config.toml` when `$HOME`
    /// is; nil without either (``noPathReason(environment:)`` says why).
    public static func path(environment: [String: String]) -> String? {
        UserFolders.folder("XDG_CONFIG_HOME", else: ".config", then: "reader/config.toml", in: environment)
    }

    /// Why there is no ``path(environment:)``: what `$XDG_CONFIG_HOME` and `$HOME` are (unset,
    /// empty, or relative and so ignored).
    public static func noPathReason(environment: [String: String]) -> String {
        UserFolders.unusable(["XDG_CONFIG_HOME", "HOME"], in: environment)
    }

    /// Why ``path(environment:)`` is not under `$XDG_CONFIG_HOME` although it is set: it is
    /// relative (`XDG_CONFIG_HOME is relative ("cfg"), so it is ignored: …`); nil when it is
    /// unset, empty or used.
    public static func ignoredFolderReason(environment: [String: String]) -> String? {
        UserFolders.ignored("XDG_CONFIG_HOME", in: environment)
    }

    /// Reads and checks the file at `path`.
    /// - Returns: nil when there is no file there.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when it cannot be read, is not a
    ///   regular file, is larger than ``maximumSize`` or not UTF-8 text, or when ``parse(_:path:isPrivate:settings:)`` fails.
    public static func read(atPath path: String, settings: [ServiceSetting]) throws(ReaderError) -> ConfigFile? {
        let shown = TerminalText.sanitise(path, maxLength: 300)
        let file: UntrustedFile
        do {
            file = try UntrustedFile.open(path)
        } catch {
            if error.isMissing { return nil }
            throw .invalidConfiguration("\(shown): cannot be read: \(error)")
        }
        guard file.status.kind == .regularFile else { throw .invalidConfiguration("\(shown): is not a regular file") }
        let tooLarge = ReaderError.invalidConfiguration("\(shown): is larger than \(maximumSize / 1024) KB, which no config file needs")
        guard file.status.size <= maximumSize else { throw tooLarge }
        let read: [UInt8]?
        do { read = try file.readAll(atMost: maximumSize) } catch {
            throw .invalidConfiguration("\(shown): cannot be read: \(error)")
        }
        // It may have grown since it was opened.
        guard let bytes = read else { throw tooLarge }
        // toml++ reads a C string: a NUL would silently end the file early.
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            throw .invalidConfiguration("\(shown): is not UTF-8 text")
        }
        // Private: only its owner can read or write it (0600 or 0400).
        let isPrivate = file.status.isPrivate
        return try parse(text, path: path, isPrivate: isPrivate, settings: settings)
    }

    /// Reads the TOML in `text` into checked values.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - path: the file's path, for messages.
    ///   - isPrivate: whether only its owner can read the file; a secret is refused otherwise.
    ///   - settings: the services' settings, which the file may set besides the common ones.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for TOML that does not parse, an unknown
    ///   key, a value of the wrong type or out of bounds, or a secret others can read, naming the
    ///   file, the line and the key (never showing a secret).
    public static func parse(_ text: String, path: String, isPrivate: Bool, settings: [ServiceSetting]) throws(ReaderError) -> ConfigFile {
        let shownPath = TerminalText.sanitise(path, maxLength: 300)
        let keyLines = KeyLines(text)
        // toml++ hands strings over as C strings: an escaped NUL would silently end a value or a
        // key there, and what follows it would never be checked.
        if let match = text.firstMatch(of: /\\(u0000|U00000000)/) {
            let line = text[..<match.range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
            let key = keyLines.key(onLine: line).map { ": \($0)" } ?? ""
            throw .invalidConfiguration("\(shownPath):\(line)\(key): holds an escaped NUL (\\u0000), which no setting may hold")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let line = error.source.begin.line
            let key = keyLines.key(onLine: line).map { ": \($0)" } ?? ""
            throw .invalidConfiguration(
                "\(shownPath):\(line)\(key): not valid TOML: \(TerminalText.sanitise(error.description, maxLength: 200))")
        } catch {
            throw .invalidConfiguration("\(shownPath): not valid TOML")
        }
        var file = ConfigFile(path: path)
        var reader = ValueReader(shownPath: shownPath, keyLines: keyLines)
        // In the file's order (toml++ keeps keys sorted), so the problem reported is the first one there.
        let tables = Set(settings.compactMap { $0.key.split(separator: ".").first.map(String.init) })
        let declared = Dictionary(settings.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let ordered = entries(of: table, prefix: "", tables: tables).sorted { (keyLines.line(of: $0.0) ?? .max) < (keyLines.line(of: $1.0) ?? .max) }
        var seen: Set<String> = []
        for (key, value) in ordered {
            reader.key = key
            // `"reddit.url" = …` at the top and `url` under `[reddit]` are two keys to TOML, one setting here.
            guard seen.insert(key).inserted else {
                reader.key = key
                throw reader.failure("is set twice (as a dotted key and in its table): keep one")
            }
            file.lines[key] = keyLines.line(of: key)
            switch key {
            case "timeout":
                file.timeout = try reader.duration(value, bounds: "more than 0 and at most 1 hour") { $0 > .zero && $0 <= maximumTimeout }
            case "retries":
                guard let number = value.int else { throw reader.failure("must be a whole number from 0 to 10") }
                guard (0...10).contains(number) else { throw reader.failure("must be from 0 to 10, got \(number)") }
                file.retries = number
            case "max-age": file.maximumAge = try reader.duration(value)
            case "max-stale": file.maximumStale = try reader.duration(value)
            case "color": file.color = try reader.bool(value)
            default:
                if value.table != nil, !key.contains(".") {
                    guard let near = Help.nearest(to: key, among: tables.sorted() + commonKeys) else {
                        file.ignoredTables.append(TerminalText.escapingInvisibles(key, maxLength: 60))
                        continue
                    }
                    reader.key = key
                    throw reader.failure("is not a table reader knows: did you mean \(tables.contains(near) ? "[\(near)]" : near)?")
                }
                guard let setting = declared[key] else {
                    reader.key = key
                    let known = commonKeys + settings.map(\.key)
                    if let near = Help.nearest(to: key, among: known) {
                        throw reader.failure("is not a setting reader knows: did you mean \(near)?")
                    }
                    throw reader.failure("is not a setting reader knows; the settings are \(known.joined(separator: ", "))")
                }
                file.values[key] = try reader.value(value, of: setting, fileIsPrivate: isPrivate)
            }
        }
        // A secret belongs to its identity: one without the other is a mistake.
        for setting in settings {
            guard case .secret(let identity, _) = setting.kind, file.values[setting.key] != nil, file.values[identity] == nil else { continue }
            reader.key = setting.key
            throw reader.failure("is set but \(identity) is not: set both, or neither")
        }
        return file
    }

    /// Every value under `table` with its dotted key, the services' `tables` walked into.
    private static func entries(of table: TOMLTable, prefix: String, tables: Set<String>) -> [(String, TOMLValueConvertible)] {
        var found: [(String, TOMLValueConvertible)] = []
        for key in table.keys {
            guard let value = table[key] else { continue }
            let path = prefix.isEmpty ? key : prefix + "." + key
            if prefix.isEmpty, tables.contains(key), let inner = value.table {
                found += entries(of: inner, prefix: path, tables: tables)
            } else {
                found.append((path, value))
            }
        }
        return found
    }
}

/// Reads one key's value into a checked Swift value, or fails naming the file, line and key.
private struct ValueReader {
    let shownPath: String
    let keyLines: KeyLines
    var key = ""

    /// The key as the file has it, each invisible character shown as an escape: a message about
    /// `"ur\u{202E}l"` must not read as one about `url`.
    func failure(_ problem: String) -> ReaderError {
        let line = keyLines.line(of: key).map { ":\($0)" } ?? ""
        return .invalidConfiguration("\(shownPath)\(line): \(TerminalText.escapingInvisibles(key, maxLength: 60)): \(problem)")
    }

    func string(_ value: TOMLValueConvertible) throws(ReaderError) -> String {
        guard let text = value.string else { throw failure("must be a string in quotes") }
        return text
    }

    func bool(_ value: TOMLValueConvertible) throws(ReaderError) -> Bool {
        guard let flag = value.bool else { throw failure("must be true or false") }
        return flag
    }

    /// A number of seconds, or text as the flags take it (`90s`, `500ms`, `5m`, `2h`, `7d`), from 0
    /// to ``ConfigFile/maximumTimeSpan``, that `accepts` takes. `bounds` is the range `accepts`
    /// takes in words: a value out of it is told the key's real bounds, and what it was.
    func duration(_ value: TOMLValueConvertible, bounds: String = "from 0 to 100 years",
                  accepts: (Duration) -> Bool = { _ in true }) throws(ReaderError) -> Duration {
        let seconds: Double
        let given: String
        if let whole = value.int {
            (seconds, given) = (Double(whole), String(whole))
        } else if let fraction = value.double {
            (seconds, given) = (fraction, String(fraction))
        } else if let text = value.string, let parsed = OutsideNumbers.number(text, units: OutsideNumbers.timeUnits) {
            (seconds, given) = (parsed, "\"\(TerminalText.sanitise(text, maxLength: 40))\"")
        } else {
            throw failure("must be a time such as \"90s\", \"5m\", \"2h\" or \"7d\", or a number of seconds, \(bounds)")
        }
        // Bounded before the conversion, which would trap on a number of milliseconds beyond Int64.
        guard seconds.isFinite, seconds >= 0, seconds <= Double(ConfigFile.maximumTimeSpan.components.seconds),
              case let duration = Duration.milliseconds(Int64((seconds * 1000).rounded())), accepts(duration) else {
            throw failure("must be \(bounds), got \(given)")
        }
        return duration
    }

    func url(_ value: TOMLValueConvertible) throws(ReaderError) -> URL {
        let text = try string(value)
        guard !text.isEmpty else { throw failure("is empty: give an http or https URL, or leave the key out") }
        let line = keyLines.line(of: key).map { ":\($0)" } ?? ""
        return try ServiceConfiguration.baseURL(text, variable: "\(shownPath)\(line): \(key)",
                                                default: URL(fileURLWithPath: "/"))
    }

    func list(_ value: TOMLValueConvertible) throws(ReaderError) -> [String] {
        guard let array = value.array else { throw failure("must be a list of strings, such as [\"swift\", \"rust\"]") }
        guard array.count <= ConfigFile.maximumListCount else {
            throw failure("holds \(array.count) entries; at most \(ConfigFile.maximumListCount) are read")
        }
        var items: [String] = []
        for item in array {
            guard let text = item.string else { throw failure("must be a list of strings, such as [\"swift\", \"rust\"]") }
            items.append(text)
        }
        return items
    }

    /// The value of a service's setting, checked as the setting says.
    func value(_ value: TOMLValueConvertible, of setting: ServiceSetting, fileIsPrivate: Bool) throws(ReaderError) -> SettingValue {
        switch setting.kind {
        case .url: return .url(try url(value))
        case .flag: return .flag(try bool(value))
        case .choice(let values, _):
            let text = try string(value)
            guard values.contains(text) else {
                throw failure("must be one of \(values.joined(separator: ", ")), got \"\(TerminalText.sanitise(text, maxLength: 40))\"")
            }
            return .text(text)
        case .list(let check):
            let items = try list(value)
            do { return .list(try check(items)) } catch { throw failure(error.text) }
        case .identity(let check, _):
            let text = try string(value)
            if let problem = check(text) { throw failure(problem) }
            return .text(text)
        case .secret(_, let check):
            guard fileIsPrivate else {
                let instead = setting.variable.map { ", or set \($0) instead" } ?? ""
                throw failure("refused: a secret is accepted only from a file no one else can read: run 'chmod 600 \(shownPath)'\(instead)")
            }
            let text = try string(value)
            // The message never shows the secret.
            if let problem = check(text) { throw failure(problem) }
            return .text(text)
        }
    }
}

/// The line each key is set on, found in the text itself: toml++ keeps positions, but TOMLKit
/// gives them only for a syntax error. A best effort for messages: a key not found has no line.
struct KeyLines {
    private var lines: [String: Int] = [:]
    private var keysOnLines: [Int: String] = [:]

    init(_ text: String) {
        var table = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                let name = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.normalised(name)
                // A table's own line, for a table that is wrong as a whole (`[redit]`).
                if lines[table] == nil { lines[table] = index + 1 }
            } else if let equals = line.firstIndex(of: "="), !line.hasPrefix("#") {
                let key = Self.normalised(line[..<equals])
                guard !key.isEmpty else { continue }
                let path = table.isEmpty ? key : table + "." + key
                if lines[path] == nil { lines[path] = index + 1 }
                keysOnLines[index + 1] = TerminalText.sanitise(path, maxLength: 60)
            }
        }
    }

    /// `reddit . "url"` → `reddit.url`; a quoted part's `\u202E` as the character TOML reads there.
    private static func normalised(_ key: some StringProtocol) -> String {
        key.split(separator: ".").map { part in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            let unquoted = trimmed.trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            return trimmed.hasPrefix("\"") ? unescaped(unquoted) : unquoted
        }.joined(separator: ".")
    }

    /// A basic string's `\uXXXX` and `\UXXXXXXXX` escapes read as TOML reads them; anything else as it is.
    private static func unescaped(_ text: String) -> String {
        text.replacing(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8})/) { match in
            UInt32(match.output.1.dropFirst(), radix: 16).flatMap(Unicode.Scalar.init).map { String($0) } ?? String(match.output.0)
        }
    }

    func line(of key: String) -> Int? { lines[key] }

    func key(onLine line: Int) -> String? { keysOnLines[line] }
}
