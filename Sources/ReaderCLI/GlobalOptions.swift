import ArgumentParser
import Foundation
import ReaderKit

/// The options every fetching command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(help: "Never touch the network; read only what is cached.")
    var offline = false

    @Flag(help: "Ask the network even when the cached copy is fresh (a failure still falls back to it).")
    var refresh = false

    @Flag(help: "Write one JSON object to stdout (and errors as JSON to stderr).")
    var json = false

    @Flag(name: .shortAndLong, help: "Show technical detail: requests, statuses, decisions.")
    var verbose = false

    @Option(help: ArgumentHelp("Give up on a request after this many seconds, retries included.", valueName: "seconds"))
    var timeout: Double = 20

    @Option(help: ArgumentHelp("Try a failed request at most this many more times.", valueName: "n"))
    var retries: Int = 3

    @Option(help: ArgumentHelp("The cache file (default: $READER_CACHE_PATH, $XDG_CACHE_HOME/reader/cache.sqlite or ~/.cache/reader/cache.sqlite).", valueName: "path"))
    var cachePath: String?

    func validate() throws {
        guard !(offline && refresh) else { throw ValidationError("--offline and --refresh cannot be used together") }
        guard timeout.isFinite, timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be a number of seconds from 0 to 3600, got \(timeout)") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be from 0 to 10, got \(retries)") }
    }

    var loadOptions: LoadOptions {
        LoadOptions(cacheMode: offline ? .offline : refresh ? .refresh : .normal)
    }

    /// The client configuration from these options and the environment.
    func clientConfiguration(environment: [String: String]) throws(ReaderError) -> ReaderClient.Configuration {
        let services = try ServiceConfiguration.fromEnvironment(environment)
        let cachePath = try CacheLocation.resolve(explicitPath: cachePath, environment: environment)
        var retryPolicy = RetryPolicy.default
        retryPolicy.maximumRetries = retries
        return ReaderClient.Configuration(
            services: services, cachePath: cachePath, timeout: .milliseconds(Int64(timeout * 1000)), retryPolicy: retryPolicy)
    }
}
