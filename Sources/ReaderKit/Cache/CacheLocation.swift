import Foundation

/// Where the cache file lives: `--cache-path`, else `$READER_CACHE_PATH`, else
/// `$XDG_CACHE_HOME/reader/cache.sqlite`, else `~/.cache/reader/cache.sqlite`.
public enum CacheLocation {
    /// Resolves the cache path.
    /// - Parameters:
    ///   - explicitPath: the `--cache-path` option, if given.
    ///   - environment: the process environment.
    /// - Throws: ``ReaderError/invalidConfiguration(_:)`` when no location can be found or a path is empty.
    public static func resolve(explicitPath: String? = nil, environment: [String: String]) throws(ReaderError) -> String {
        if let explicitPath {
            guard !explicitPath.isEmpty else { throw .invalidArgument("\(name: "explicitPath") is empty") }
            return explicitPath
        }
        if let path = environment["READER_CACHE_PATH"], !path.isEmpty { return path }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return xdg + "/reader/cache.sqlite"
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return home + "/.cache/reader/cache.sqlite"
        }
        throw .invalidConfiguration("no cache location: set READER_CACHE_PATH, XDG_CACHE_HOME or HOME")
    }
}
