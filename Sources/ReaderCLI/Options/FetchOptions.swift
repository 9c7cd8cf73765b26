import ArgumentParser
import Foundation
import ReaderKit
import ReaderTerminal

/// The options every fetching command takes: a service's command declares them as
/// `@OptionGroup var options: GlobalOptions`, and shows what it loads with ``show(_:render:)``.
public typealias GlobalOptions = FetchOptions<OfflineFlag>

/// The options of a fetching command, with `--offline` or without it (`reader sync`).
///
/// `--offline` and the output, setting and cache-file options are declared here, in the order
/// their groups held, rather than as option groups (``OutputOptions``, ``SettingOptions``,
/// ``CacheFileOptions``): swift-argument-parser reflects over each group type at every parse,
/// which is most of a cached read's start-up (BENCHMARKS.md, "Missed: cached read"). Their help
/// texts and what they mean are shared (``OutputChoice``, ``SettingChoice``).
public struct FetchOptions<Offline: OfflineChoice>: ParsableArguments {
    public init() {}

    @Flag(help: Offline.help)
    var offline = false

    @Flag(help: "Ask the network even when the cached copy is fresh (a failure still falls back to it).")
    var refresh = false

    // OutputOptions
    @Flag(help: Offline.jsonHelp)
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
    var cacheSize: ByteCount = CacheFileOptions.defaultCacheSize

    // CacheFileOptions
    @Option(help: CacheFileOptions.cachePathHelp)
    var cachePath: String?

    var output: OutputChoice { OutputChoice(json: json, verbose: verbose, noColor: noColor) }
    var settingChoice: SettingChoice { SettingChoice(timeout: timeout, retries: retries, maxAge: maxAge, maxStale: maxStale) }
    func makeOutput() -> Output { output.makeOutput() }

    /// The style for stdout.
    var style: Style { Style.forDescriptor(STDOUT_FILENO, noColor: output.colourOff) }

    public func validate() throws {
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
        let timeout = (try? settings())?.timeout.value ?? ReaderSettings.builtIn(of: .current).timeout.value
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
            services: try settings.services(), cachePath: cachePath, timeout: settings.timeout.value, retryPolicy: retryPolicy,
            freshness: freshness, cacheSizeLimit: cacheSize.bytes, proxies: offline ? settings.proxies : try settings.proxiesForRequests())
    }
}

extension FetchOptions where Offline == OfflineFlag {
    /// Loads `endpoint` as every `reader` command does (the settings, the cache, `--offline`,
    /// the notices) and writes it: with `--json` as `{"item": …, "meta": …}`, else the text
    /// `render` makes of it. A failure is thrown for `reader` to show with its code.
    public func show<Value>(_ endpoint: Endpoint<Value>, render: (Value) -> String) async throws {
        try await CommandRunner.run(endpoint, options: self, jsonItem: { $0 }, render: { (render($0), nil) })
    }
}
