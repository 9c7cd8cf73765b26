import ArgumentParser
import Foundation
import ReaderKit

/// How results and errors are written: every command takes these (a fetching command declares
/// the same flags itself: ``FetchOptions``).
struct OutputOptions: ParsableArguments {
    @Flag(help: OutputChoice.jsonHelp)
    var json = false

    @Flag(name: .shortAndLong, help: OutputChoice.verboseHelp)
    var verbose = false

    @Flag(help: OutputChoice.noColorHelp)
    var noColor = false

    var choice: OutputChoice { OutputChoice(json: json, verbose: verbose, noColor: noColor) }
    var colourOff: Bool { choice.colourOff }
    func makeOutput() -> Output { choice.makeOutput() }
}

/// What the output flags say, wherever they are declared, and the output they make.
struct OutputChoice {
    static let jsonHelp = ArgumentHelp("Write one JSON object to stdout (and errors as JSON to stderr).")
    static let verboseHelp = ArgumentHelp("Show technical detail: requests, statuses, decisions.")
    static let noColorHelp = ArgumentHelp("Never colour the output (colour is also off when NO_COLOR is set, TERM is dumb, the config file says color = false, or output is not a terminal).")

    var json: Bool
    var verbose: Bool
    var noColor: Bool

    /// Whether colour is off by the flag, the environment or the config file.
    var colourOff: Bool {
        noColor || Self.settingsTurnColourOff
    }

    /// Whether the config file or the environment turns colour off (a broken config file does not).
    static var settingsTurnColourOff: Bool {
        (try? ProcessSettings.fromFileAndEnvironment.get())?.color.value == false
    }

    func makeOutput() -> Output {
        var output = Output(json: json)
        output.verbose = verbose
        output.errorStyle = Style.forDescriptor(STDERR_FILENO, noColor: colourOff)
        return output
    }
}

/// This process's settings from the config file and the environment, read once: every command
/// and every part of one (the client, the deadline, the colours) sees the same.
enum ProcessSettings {
    static let fromFileAndEnvironment: Result<ReaderSettings, ReaderError> = Result { () throws(ReaderError) in
        try ReaderSettings.load(environment: ProcessEnvironment.current)
    }
}

/// Where the cache is: every command that touches it takes this.
struct CacheFileOptions: ParsableArguments {
    static let cachePathHelp = ArgumentHelp("The cache file (default: $READER_CACHE_PATH, $XDG_CACHE_HOME/reader/cache.sqlite or ~/.cache/reader/cache.sqlite).", valueName: "path")

    @Option(help: cachePathHelp)
    var cachePath: String?

    func resolve(environment: [String: String]) throws(ReaderError) -> String {
        try CacheLocation.resolve(explicitPath: cachePath, environment: environment)
    }
}

/// The options the config file also sets (with `--no-color`): every fetching command takes them,
/// and `reader config` shows what they come to.
struct SettingOptions: ParsableArguments {
    @Option(help: SettingChoice.timeoutHelp)
    var timeout: TimeSpan?

    @Option(help: SettingChoice.retriesHelp)
    var retries: Int?

    @Option(help: SettingChoice.maxAgeHelp)
    var maxAge: TimeSpan?

    @Option(help: SettingChoice.maxStaleHelp)
    var maxStale: TimeSpan?

    var choice: SettingChoice { SettingChoice(timeout: timeout, retries: retries, maxAge: maxAge, maxStale: maxStale) }

    func validate() throws { try choice.validate() }

    /// The settings from the config file and the environment, with these flags over them.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a broken config file or environment variable.
    func settings(noColor: Bool) throws(ReaderError) -> ReaderSettings {
        try choice.settings(noColor: noColor)
    }
}

/// What the setting options say, wherever they are declared (``SettingOptions``, or
/// ``FetchOptions`` itself), and the settings they come to.
struct SettingChoice {
    static let timeoutHelp = ArgumentHelp("Give up after this long, retries and waits included (90, 90s, 2m; default: the config file's timeout, else 20s).", valueName: "time")
    static let retriesHelp = ArgumentHelp("Try a failed request at most this many more times (0 to 10; default: the config file's retries, else 3).", valueName: "n")
    static let maxAgeHelp = ArgumentHelp("Treat cached data younger than this as fresh, whatever the server said (0: always ask; default: the config file's max-age).", valueName: "time")
    static let maxStaleHelp = ArgumentHelp("Never show cached data older than this, even when the network fails (default: the config file's max-stale, else any age, always with a notice).", valueName: "time")

    var timeout: TimeSpan?
    var retries: Int?
    var maxAge: TimeSpan?
    var maxStale: TimeSpan?

    func validate() throws {
        if let problem = timeout?.problem("--timeout", within: .milliseconds(1)...ConfigFile.maximumTimeout, bounds: "more than 0 and at most 1 hour") {
            throw ValidationError(problem)
        }
        if let retries, !(0...10).contains(retries) { throw ValidationError("--retries must be from 0 to 10, got \(retries)") }
        for (option, span) in [("--max-age", maxAge), ("--max-stale", maxStale)] {
            if let problem = span?.problem(option, within: .zero...ConfigFile.maximumTimeSpan, bounds: "from 0 to 100 years") {
                throw ValidationError(problem)
            }
        }
    }

    /// The settings from the config file and the environment, with these flags over them.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a broken config file or environment variable.
    func settings(noColor: Bool) throws(ReaderError) -> ReaderSettings {
        var settings = try ProcessSettings.fromFileAndEnvironment.get()
        if let timeout { settings.timeout.override(timeout.duration, from: .flag("--timeout")) }
        if let retries { settings.retries.override(retries, from: .flag("--retries")) }
        if let maxAge { settings.maximumAge.override(maxAge.duration, from: .flag("--max-age")) }
        if let maxStale { settings.maximumStale.override(maxStale.duration, from: .flag("--max-stale")) }
        if noColor { settings.color.override(false, from: .flag("--no-color")) }
        return settings
    }
}

/// `--offline`, for the commands that read: they can answer from the cache alone.
enum OfflineFlag: OfflineChoice {
    static let help = ArgumentHelp("Never touch the network; read only what is cached.")
    static let refusal: String? = nil
}

/// No `--offline` in the help, for `reader sync`, which exists to fill the cache from the network:
/// the flag is still read, hidden, so that giving it is explained rather than "unknown".
enum NoOfflineFlag: OfflineChoice {
    static let help = ArgumentHelp.hidden
    static let refusal: String? = "sync fills the cache from the network; it cannot run with --offline"
}

/// Whether a command offers `--offline`: how the flag shows in its help, and why the command
/// refuses it, if it does. A type of its own, not an option group: ArgumentParser reflects over
/// every group type at every parse (see ``FetchOptions``).
protocol OfflineChoice: Sendable {
    static var help: ArgumentHelp { get }
    static var refusal: String? { get }
}

/// The options every fetching command takes.
typealias GlobalOptions = FetchOptions<OfflineFlag>

/// The options of a fetching command, with `--offline` or without it (`reader sync`).
///
/// `--offline` and the output, setting and cache-file options are declared here, in the order
/// their groups held, rather than as option groups (``OutputOptions``, ``SettingOptions``,
/// ``CacheFileOptions``, and one for `--offline`):
/// swift-argument-parser reflects over each group type at every parse, and each one's first
/// questions to the Swift runtime cost a scan of every conformance record in the binary. Flat,
/// a cached read's parse took 5 million fewer instructions (28.5 → 23.4 M, counted by callgrind),
/// and 1.6 million fewer again without the group for `--offline`.
/// Their help texts and what they mean are shared (``OutputChoice``, ``SettingChoice``).
struct FetchOptions<Offline: OfflineChoice>: ParsableArguments {
    @Flag(help: Offline.help)
    var offline = false

    @Flag(help: "Ask the network even when the cached copy is fresh (a failure still falls back to it).")
    var refresh = false

    // OutputOptions
    @Flag(help: OutputChoice.jsonHelp)
    var json = false

    @Flag(name: .shortAndLong, help: OutputChoice.verboseHelp)
    var verbose = false

    @Flag(help: OutputChoice.noColorHelp)
    var noColor = false

    @Flag(help: "Before giving up on a service that cannot be reached, wait for it (with backoff, within --timeout).")
    var wait = false

    // SettingOptions
    @Option(help: SettingChoice.timeoutHelp)
    var timeout: TimeSpan?

    @Option(help: SettingChoice.retriesHelp)
    var retries: Int?

    @Option(help: SettingChoice.maxAgeHelp)
    var maxAge: TimeSpan?

    @Option(help: SettingChoice.maxStaleHelp)
    var maxStale: TimeSpan?

    @Option(help: ArgumentHelp("Wait at most this long at once for a server that asks to come back later (Retry-After, a rate limit); beyond it, give up and say when.", valueName: "time"))
    var maxWait: TimeSpan = TimeSpan(.seconds(30))

    @Option(help: ArgumentHelp("Keep at most this much data in the cache, evicting the least recently used (100MB, 1g).", valueName: "size"))
    var cacheSize: ByteCount = ByteCount(bytes: 100 * 1024 * 1024)

    // CacheFileOptions
    @Option(help: CacheFileOptions.cachePathHelp)
    var cachePath: String?

    var output: OutputChoice { OutputChoice(json: json, verbose: verbose, noColor: noColor) }
    var settingChoice: SettingChoice { SettingChoice(timeout: timeout, retries: retries, maxAge: maxAge, maxStale: maxStale) }
    func makeOutput() -> Output { output.makeOutput() }

    /// The style for stdout.
    var style: Style { Style.forDescriptor(STDOUT_FILENO, noColor: output.colourOff) }

    func validate() throws {
        // In the order of their groups, when they were groups: --offline's, then the settings'.
        if offline, let refusal = Offline.refusal { throw ValidationError(refusal) }
        try settingChoice.validate()
        guard !(offline && refresh) else { throw ValidationError("--offline and --refresh cannot be used together") }
        guard !(offline && wait) else { throw ValidationError("--offline and --wait cannot be used together: --offline never touches the network") }
        if let problem = maxWait.problem("--max-wait", within: .zero...(.seconds(86_400)), bounds: "from 0 to a day") { throw ValidationError(problem) }
        guard cacheSize.bytes >= 0 else { throw ValidationError("--cache-size must be 0 or more, got \(cacheSize.shown)") }
    }

    var loadOptions: LoadOptions {
        // A broken config file has already ended the command (``clientConfiguration(environment:)``).
        let timeout = (try? settings())?.timeout.value ?? ReaderSettings.builtIn.timeout.value
        return LoadOptions(cacheMode: offline ? .offline : refresh ? .refresh : .normal,
                           deadline: ContinuousClock.now.advanced(by: timeout), waitForConnectivity: wait)
    }

    /// The settings from the config file and the environment, with the flags over them.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` for a broken config file or environment variable.
    func settings() throws(ReaderError) -> ReaderSettings {
        try settingChoice.settings(noColor: noColor)
    }

    /// The client configuration from these options, the environment and the config file.
    func clientConfiguration(environment: [String: String]) throws(ReaderError) -> ReaderClient.Configuration {
        let settings = try settings()
        let cachePath = try CacheLocation.resolve(explicitPath: self.cachePath, environment: environment)
        var retryPolicy = RetryPolicy.default
        retryPolicy.maximumRetries = settings.retries.value
        retryPolicy.maximumDelay = maxWait.duration
        var freshness = FreshnessPolicy.default
        freshness.maximumAge = settings.maximumAge.value
        freshness.maximumStale = settings.maximumStale.value
        return ReaderClient.Configuration(
            services: settings.services, cachePath: cachePath, timeout: settings.timeout.value, retryPolicy: retryPolicy,
            freshness: freshness, cacheSizeLimit: cacheSize.bytes)
    }
}
