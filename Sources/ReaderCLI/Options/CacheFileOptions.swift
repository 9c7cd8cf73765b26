import ArgumentParser
import Foundation
import ReaderKit

/// Where the cache is: every command that touches it takes this.
struct CacheFileOptions: ParsableArguments {
    static let cachePathHelp = ArgumentHelp("The cache file (default: $READER_CACHE_PATH, $XDG_CACHE_HOME/reader/cache.sqlite or ~/.cache/reader/cache.sqlite).", valueName: "path")

    /// The most data the cache keeps when `--cache-size` is not given.
    static let defaultCacheSize = ByteCount(bytes: 100 * 1024 * 1024)

    @Option(help: cachePathHelp)
    var cachePath: String?

    func resolve(environment: [String: String]) throws(ReaderError) -> String {
        try CacheLocation.resolve(explicitPath: cachePath, environment: environment)
    }
}
