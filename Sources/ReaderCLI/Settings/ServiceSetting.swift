import Foundation
import ReaderKit

/// One setting a service reads: a key of the config file (`reddit.url`), and an environment
/// variable over it (`READER_REDDIT_URL`) when it has one. A ``ServicePlugin`` declares its
/// settings; the config file, the environment, `reader config`, the man page and the
/// completions all read them from the registry.
public struct ServiceSetting: Sendable {
    /// What kind of value it holds, its default, and how a value is checked.
    public enum Kind: Sendable {
        /// An http or https base URL with a host.
        case url(default: URL)
        /// True or false.
        case flag(default: Bool)
        /// One of a few words (`api`, `feed`, `auto`), `default` when not set.
        case choice(values: [String], default: String)
        /// A list of strings, each checked (and made canonical) by `check`, which throws the
        /// problem in words ("\"../x\" is not a subreddit name: …"); empty by default.
        case list(check: @Sendable ([String]) throws(SettingProblem) -> [String])
        /// A string that names an identity, such as a client id: `check` says what is wrong
        /// with a value ("is not a Reddit client id: …"), or nil. `unset` is what `reader config`
        /// shows without one.
        case identity(check: @Sendable (String) -> String?, unset: String)
        /// A secret that belongs to the identity of key `identity`: the two are always taken
        /// from one layer, a secret is never shown, and the config file may hold it only when
        /// no one else can read the file.
        case secret(of: String, check: @Sendable (String) -> String?)
    }

    /// The key in the config file, with its table: `reddit.url`, `sync.swapi`.
    public var key: String
    /// The environment variable over it, when there is one.
    public var variable: String?
    /// What it is, for the man page and the help: "Where Reddit is read".
    public var summary: String
    public var kind: Kind

    public init(key: String, variable: String? = nil, summary: String, kind: Kind) {
        self.key = key
        self.variable = variable
        self.summary = summary
        self.kind = kind
    }

    /// Its value when nothing sets it.
    var defaultValue: SettingValue {
        switch kind {
        case .url(let url): .url(url)
        case .flag(let flag): .flag(flag)
        case .choice(_, let value): .text(value)
        case .list: .list([])
        case .identity, .secret: .text(nil)
        }
    }

    /// Whether it is a secret, never shown.
    var isSecret: Bool {
        if case .secret = kind { return true }
        return false
    }
}

/// What is wrong with a setting's value, in words that follow the key: "must be …", "\"x\" is not …".
public struct SettingProblem: Error, Sendable {
    public var text: String
    public init(_ text: String) { self.text = text }
}

/// A setting's value.
public enum SettingValue: Sendable, Equatable {
    case url(URL)
    case flag(Bool)
    case list([String])
    /// An identity or a secret; nil when it is not set.
    case text(String?)
}

/// The values of one service's settings, each with where it came from.
public struct ServiceSettings: Sendable, Equatable {
    public var values: [String: ReaderSettings.Setting<SettingValue>] = [:]

    public init(values: [String: ReaderSettings.Setting<SettingValue>] = [:]) {
        self.values = values
    }

    /// The URL of `key`; a programming error when the service declared no URL of that key.
    public func url(_ key: String) -> URL {
        guard case .url(let url)? = values[key]?.value else { preconditionFailure("\(key) is not a URL setting") }
        return url
    }

    /// The flag of `key`; false when it is not declared as one.
    public func flag(_ key: String) -> Bool {
        if case .flag(let flag)? = values[key]?.value { return flag }
        return false
    }

    /// The list of `key`; empty when it is not declared as one.
    public func list(_ key: String) -> [String] {
        if case .list(let list)? = values[key]?.value { return list }
        return []
    }

    /// The identity or secret of `key`; nil when it is not set.
    public func text(_ key: String) -> String? {
        if case .text(let text)? = values[key]?.value { return text }
        return nil
    }

    /// Where the value of `key` came from.
    public func source(_ key: String) -> ReaderSettings.Source {
        values[key]?.source ?? .builtIn
    }
}
