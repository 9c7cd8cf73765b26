import Foundation
import ReaderKit

/// What reader runs with, each value with where it came from: a flag over the environment over
/// the config file over the built-in default.
///
/// ``load(environment:registry:)`` layers the built-in defaults, the ``ConfigFile`` and the environment;
/// the command line lays its flags over the result (``Setting/override(_:from:)``). A library
/// user who calls `load` gets what `reader` would run with, without flags.
///
/// ## Topics
/// - ``load(environment:registry:)``
/// - ``builtIn(of:)``
/// - ``services()``
public struct ReaderSettings: Sendable {
    /// Where a value came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case builtIn
        /// The config file at this path, the value set on this line (when known).
        case configFile(path: String, line: Int?)
        /// This environment variable.
        case environment(variable: String)
        /// This command-line flag, such as `--timeout`.
        case flag(String)

        /// `default`, `file`, `environment` or `flag`: for `--json`.
        public var kind: String {
            switch self {
            case .builtIn: "default"
            case .configFile: "file"
            case .environment: "environment"
            case .flag: "flag"
            }
        }

        /// `built-in`, `config file line 3`, `$READER_REDDIT_URL`, `--timeout`.
        public var description: String {
            switch self {
            case .builtIn: "built-in"
            case .configFile(_, let line?): "config file line \(line)"
            case .configFile: "config file"
            case .environment(let variable): "$" + variable
            case .flag(let name): name
            }
        }
    }

    /// One value and its source.
    // Equatable where its value is, not required of it: a requirement is a conformance the
    // runtime looks up, with a scan of every one in the binary, when a setting's type is first made.
    public struct Setting<Value: Sendable>: Sendable {
        public var value: Value
        public var source: Source

        public init(_ value: Value, from source: Source) {
            self.value = value
            self.source = source
        }

        /// Replaces the value, from a layer that wins over the current one.
        public mutating func override(_ value: Value, from source: Source) {
            self.value = value
            self.source = source
        }
    }

    /// The deadline of a whole command (built-in: 20 s).
    public var timeout: Setting<Duration>
    /// At most this many more attempts of a retryable failure (built-in: 3).
    public var retries: Setting<Int>
    /// Cached data younger than this is fresh (built-in: none, the server's word).
    public var maximumAge: Setting<Duration?>
    /// Cached data older than this is never shown (built-in: none, any age).
    public var maximumStale: Setting<Duration?>
    /// Whether colour may be used where the terminal allows it (built-in: true).
    public var color: Setting<Bool>
    /// The services' settings, by service, as their plug-ins declare them.
    public var serviceSettings: [ServiceName: ServiceSettings] = [:]
    /// The services these settings are of.
    public var registry: ServiceRegistry
    /// Where the config file is looked for; nil without `$XDG_CONFIG_HOME` or `$HOME`.
    public var configFilePath: String?
    /// Whether a config file was found there.
    public var configFileFound = false
    /// The file's tables of services this build does not have, passed over (``ConfigFile/ignoredTables``).
    public var ignoredTables: [String] = []
    /// The secrets the config file set that are not used, because the environment gave their
    /// identity (a secret is never taken from another layer than its identity): by key.
    public var secretsPassedOver: Set<String> = []
    /// The proxies, from `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and `NO_PROXY` (and their
    /// lower-case forms) as ``ProxySettings/init(environment:)`` reads them; none by default.
    public var proxies: ProxySettings = .direct
    /// Why the proxy variables cannot be used (an `ALL_PROXY=socks5://…` set for other
    /// programs), when they cannot; ``proxies`` is then direct. Only what may send a request
    /// refuses to run on it (``proxiesForRequests()``): an offline read, the cache commands and
    /// `reader config` never send one.
    public var proxyProblem: ReaderError?

    /// The proxies, for a client that may send requests.
    /// - Throws: ``proxyProblem``, rather than going directly where the user asked for a proxy.
    public func proxiesForRequests() throws(ReaderError) -> ProxySettings {
        if let proxyProblem { throw proxyProblem }
        return proxies
    }

    /// The built-in defaults of `registry`'s services.
    public static func builtIn(of registry: ServiceRegistry) -> ReaderSettings {
        var settings = ReaderSettings(
            timeout: Setting(.seconds(20), from: .builtIn), retries: Setting(RetryPolicy.default.maximumRetries, from: .builtIn),
            maximumAge: Setting(nil, from: .builtIn), maximumStale: Setting(nil, from: .builtIn), color: Setting(true, from: .builtIn),
            registry: registry)
        for plugin in registry.plugins {
            var values = ServiceSettings()
            for setting in plugin.settings { values.values[setting.key] = Setting(setting.defaultValue, from: .builtIn) }
            settings.serviceSettings[plugin.name] = values
        }
        return settings
    }

    /// The built-in defaults, then the config file (``ConfigFile/path(environment:)``), then
    /// the environment (the services' variables, such as `READER_SWAPI_URL`, the proxies', then
    /// `NO_COLOR` and `TERM=dumb`).
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a config file that cannot be read
    ///   or is wrong (see ``ConfigFile/read(atPath:settings:)``), or an environment variable that is.
    public static func load(environment: [String: String], registry: ServiceRegistry = .current) throws(ReaderError) -> ReaderSettings {
        var settings = builtIn(of: registry)
        settings.configFilePath = ConfigFile.path(environment: environment)
        if let path = settings.configFilePath, let file = try ConfigFile.read(atPath: path, settings: registry.settings) {
            settings.configFileFound = true
            settings.ignoredTables = file.ignoredTables
            settings.apply(file)
        }
        try settings.apply(environment: environment)
        return settings
    }

    /// The settings of the service named `name` (empty for a service not registered).
    public func of(_ name: ServiceName) -> ServiceSettings {
        serviceSettings[name] ?? ServiceSettings()
    }

    /// Lays the file's values over these.
    public mutating func apply(_ file: ConfigFile) {
        func source(_ key: String) -> Source { .configFile(path: file.path, line: file.lines[key]) }
        if let value = file.timeout { timeout.override(value, from: source("timeout")) }
        if let value = file.retries { retries.override(value, from: source("retries")) }
        if let value = file.maximumAge { maximumAge.override(value, from: source("max-age")) }
        if let value = file.maximumStale { maximumStale.override(value, from: source("max-stale")) }
        if let value = file.color { color.override(value, from: source("color")) }
        for plugin in registry.plugins {
            for setting in plugin.settings {
                // A secret belongs to its identity: the two come from the layer that sets either.
                if case .secret(let identity, _) = setting.kind, file.values[identity] != nil || file.values[setting.key] != nil {
                    serviceSettings[plugin.name]?.values[identity]?.override(file.values[identity] ?? .text(nil), from: source(identity))
                    serviceSettings[plugin.name]?.values[setting.key]?.override(file.values[setting.key] ?? .text(nil), from: source(setting.key))
                } else if let value = file.values[setting.key] {
                    serviceSettings[plugin.name]?.values[setting.key]?.override(value, from: source(setting.key))
                }
            }
        }
    }

    /// Lays the environment's values over these. An empty variable is as good as unset.
    public mutating func apply(environment: [String: String]) throws(ReaderError) {
        func given(_ variable: String?) -> String? {
            guard let variable, let text = environment[variable], !text.isEmpty else { return nil }
            return text
        }
        for plugin in registry.plugins {
            for setting in plugin.settings {
                switch setting.kind {
                case .url(let fallback):
                    guard let variable = setting.variable, let text = given(variable) else { continue }
                    let url = try ServiceConfiguration.baseURL(text, variable: variable, default: fallback)
                    serviceSettings[plugin.name]?.values[setting.key]?.override(.url(url), from: .environment(variable: variable))
                case .secret(let identityKey, let check):
                    // A secret belongs to its identity: the two are never taken from two layers.
                    guard let identity = plugin.settings.first(where: { $0.key == identityKey }),
                          case .identity(let checkIdentity, _) = identity.kind,
                          let identityVariable = identity.variable, let secretVariable = setting.variable else { continue }
                    let id = given(identityVariable)
                    let secret = given(secretVariable)
                    guard id != nil || secret != nil else { continue }
                    guard let id else {
                        throw .invalidConfiguration("\(secretVariable) is set but \(identityVariable) is not: set both, or neither")
                    }
                    if let problem = checkIdentity(id) { throw .invalidConfiguration("\(identityVariable) \(problem)") }
                    // The message never shows the secret.
                    if let secret, let problem = check(secret) { throw .invalidConfiguration("\(secretVariable) \(problem)") }
                    if secret == nil, let held = serviceSettings[plugin.name]?.values[setting.key],
                       case .configFile = held.source, held.value != .text(nil) {
                        secretsPassedOver.insert(setting.key)
                    }
                    serviceSettings[plugin.name]?.values[identityKey]?.override(.text(id), from: .environment(variable: identityVariable))
                    serviceSettings[plugin.name]?.values[setting.key]?.override(.text(secret), from: .environment(variable: secretVariable))
                case .choice(let values, _):
                    guard let variable = setting.variable, let text = given(variable) else { continue }
                    guard values.contains(text) else {
                        throw .invalidConfiguration("\(variable) must be one of \(values.joined(separator: ", ")), got \"\(TerminalText.sanitise(text, maxLength: 40))\"")
                    }
                    serviceSettings[plugin.name]?.values[setting.key]?.override(.text(text), from: .environment(variable: variable))
                case .flag, .list, .identity:
                    continue
                }
            }
        }
        do {
            proxies = try ProxySettings(environment: environment)
            proxyProblem = nil
        } catch {
            proxies = .direct
            proxyProblem = error
        }
        if let value = environment["NO_COLOR"], !value.isEmpty {
            color.override(false, from: .environment(variable: "NO_COLOR"))
        } else if environment["TERM"] == "dumb" {
            color.override(false, from: .environment(variable: "TERM"))
        }
    }

    /// The services as these settings make them, for ``ReaderClient/Configuration``.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when a service cannot be made of its values.
    public func services() throws(ReaderError) -> ServiceConfiguration {
        var services: [any Service] = []
        for plugin in registry.plugins { services.append(try plugin.service(from: of(plugin.name))) }
        return ServiceConfiguration(services)
    }
}

extension ReaderSettings.Setting: Equatable where Value: Equatable {}
