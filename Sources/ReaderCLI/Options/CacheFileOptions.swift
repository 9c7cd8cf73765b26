import ArgumentParser
import Foundation
import ReaderKit

/// Where the cache is: every command that touches it takes this.
struct CacheFileOptions: ParsableArguments {
    static let cachePathHelp = ArgumentHelp("The cache file (default: $READER_CACHE_PATH, $XDG_CACHE_HOME/reader/cache.sqlite or ~/.cache/reader/cache.sqlite).", valueName: "path")

    @Option(help: cachePathHelp)
    var cachePath: String?

    func resolve(environment: [String: String]) throws(ReaderError) -> String {
        try CacheLocation.resolve(explicitPath: cachePath, environment: environment)
    }
}
