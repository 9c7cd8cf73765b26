import ArgumentParser
import Foundation
import ReaderKit

/// How results and errors are written: every command takes these.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Write one JSON object to stdout (and errors as JSON to stderr).")
    var json = false

    @Flag(name: .shortAndLong, help: "Show technical detail: requests, statuses, decisions.")
    var verbose = false

    @Flag(help: "Never colour the output (colour is also off when NO_COLOR is set, TERM is dumb, or output is not a terminal).")
    var noColor = false

    func makeOutput() -> Output {
        var output = Output(json: json)
        output.verbose = verbose
        output.errorStyle = Style.forDescriptor(STDERR_FILENO, noColor: noColor)
        return output
    }
}

/// Where the cache is: every command that touches it takes this.
struct CacheFileOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The cache file (default: $READER_CACHE_PATH, $XDG_CACHE_HOME/reader/cache.sqlite or ~/.cache/reader/cache.sqlite).", valueName: "path"))
    var cachePath: String?

    func resolve(environment: [String: String]) throws(ReaderError) -> String {
        try CacheLocation.resolve(explicitPath: cachePath, environment: environment)
    }
}

/// `--offline`, for the commands that read: they can answer from the cache alone.
struct OfflineFlag: OfflineChoice {
    @Flag(help: "Never touch the network; read only what is cached.")
    var offline = false
}

/// No `--offline` in the help, for `reader sync`, which exists to fill the cache from the network:
/// the flag is still read, hidden, so that giving it is explained rather than "unknown".
struct NoOfflineFlag: OfflineChoice {
    @Flag(help: .hidden)
    var offline = false

    func validate() throws {
        guard !offline else { throw ValidationError("sync fills the cache from the network; it cannot run with --offline") }
    }
}

/// Whether a command offers `--offline`.
protocol OfflineChoice: ParsableArguments, Sendable {
    var offline: Bool { get }
}

/// The options every fetching command takes.
typealias GlobalOptions = FetchOptions<OfflineFlag>

/// The options of a fetching command, with `--offline` or without it (`reader sync`).
struct FetchOptions<Offline: OfflineChoice>: ParsableArguments {
    @OptionGroup var offlineChoice: Offline
    var offline: Bool { offlineChoice.offline }

    @Flag(help: "Ask the network even when the cached copy is fresh (a failure still falls back to it).")
    var refresh = false

    @OptionGroup var output: OutputOptions

    @Flag(help: "Before giving up on a service that cannot be reached, wait for it (with backoff, within --timeout).")
    var wait = false

    @Option(help: ArgumentHelp("Give up after this long, retries and waits included (90, 90s, 2m).", valueName: "time"))
    var timeout: TimeSpan = TimeSpan(.seconds(20))

    @Option(help: ArgumentHelp("Try a failed request at most this many more times.", valueName: "n"))
    var retries: Int = 3

    @Option(help: ArgumentHelp("Wait at most this long at once for a server that asks to come back later (Retry-After, a rate limit); beyond it, give up and say when.", valueName: "time"))
    var maxWait: TimeSpan = TimeSpan(.seconds(30))

    @Option(help: ArgumentHelp("Treat cached data younger than this as fresh, whatever the server said (0: always ask).", valueName: "time"))
    var maxAge: TimeSpan?

    @Option(help: ArgumentHelp("Never show cached data older than this, even when the network fails (default: any age, always with a notice).", valueName: "time"))
    var maxStale: TimeSpan?

    @Option(help: ArgumentHelp("Keep at most this much data in the cache, evicting the least recently used (100MB, 1g).", valueName: "size"))
    var cacheSize: ByteCount = ByteCount(bytes: 100 * 1024 * 1024)

    @OptionGroup var cacheFile: CacheFileOptions

    var json: Bool { output.json }
    var verbose: Bool { output.verbose }
    var noColor: Bool { output.noColor }
    func makeOutput() -> Output { output.makeOutput() }

    /// The style for stdout.
    var style: Style { Style.forDescriptor(STDOUT_FILENO, noColor: noColor) }

    func validate() throws {
        guard !(offline && refresh) else { throw ValidationError("--offline and --refresh cannot be used together") }
        guard !(offline && wait) else { throw ValidationError("--offline and --wait cannot be used together: --offline never touches the network") }
        guard timeout.duration > .zero, timeout.duration <= .seconds(3600) else {
            throw ValidationError("--timeout must be more than 0 and at most 1 hour")
        }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be from 0 to 10, got \(retries)") }
        guard maxWait.duration <= .seconds(86_400) else { throw ValidationError("--max-wait must be at most a day") }
    }

    var loadOptions: LoadOptions {
        LoadOptions(cacheMode: offline ? .offline : refresh ? .refresh : .normal,
                    deadline: ContinuousClock.now.advanced(by: timeout.duration), waitForConnectivity: wait)
    }

    /// The client configuration from these options and the environment.
    func clientConfiguration(environment: [String: String]) throws(ReaderError) -> ReaderClient.Configuration {
        let services = try ServiceConfiguration.fromEnvironment(environment)
        let cachePath = try cacheFile.resolve(environment: environment)
        var retryPolicy = RetryPolicy.default
        retryPolicy.maximumRetries = retries
        retryPolicy.maximumDelay = maxWait.duration
        var freshness = FreshnessPolicy.default
        freshness.maximumAge = maxAge?.duration
        freshness.maximumStale = maxStale?.duration
        return ReaderClient.Configuration(
            services: services, cachePath: cachePath, timeout: timeout.duration, retryPolicy: retryPolicy,
            freshness: freshness, cacheSizeLimit: cacheSize.bytes)
    }
}
