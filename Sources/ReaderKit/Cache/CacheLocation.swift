import Foundation

/// Where the cache file lives: `--cache-path`, else `$READER_CACHE_PATH`, else
/// `$XDG_CACHE_HOME/reader/cache.sqlite`, else `~/.cache/reader/cache.sqlite`. A leading `~/` in
/// either path is the home folder, as a shell would have made it; a relative `$XDG_CACHE_HOME` or
/// `$HOME` is ignored, as the XDG rules say.
public enum CacheLocation {
    /// Resolves the cache path.
    /// - Parameters:
    ///   - explicitPath: the `--cache-path` option, if given.
    ///   - environment: the process environment.
    /// - Throws: ``ReaderError/invalidArgument(_:)`` when `explicitPath` is empty or cannot be
    ///   expanded; ``ReaderError/invalidConfiguration(_:)`` when no location can be found, saying
    ///   what each variable is (unset, empty, relative), or `$READER_CACHE_PATH` cannot be expanded.
    public static func resolve(explicitPath: String? = nil, environment: [String: String]) throws(ReaderError) -> String {
        if let explicitPath {
            guard !explicitPath.isEmpty else { throw .invalidArgument("\(name: "explicitPath") is empty") }
            return try UserFolders.expandingTilde(explicitPath, from: "\(name: "explicitPath")", isArgument: true, in: environment)
        }
        if let path = environment["READER_CACHE_PATH"], !path.isEmpty {
            return try UserFolders.expandingTilde(path, from: "READER_CACHE_PATH", in: environment)
        }
        if let folder = UserFolders.folder("XDG_CACHE_HOME", else: ".cache", then: "reader/cache.sqlite", in: environment) {
            return folder
        }
        throw .invalidConfiguration("no cache location: set READER_CACHE_PATH, or XDG_CACHE_HOME or HOME to a full path ("
            + UserFolders.unusable(["READER_CACHE_PATH", "XDG_CACHE_HOME", "HOME"], in: environment) + ")")
    }
}
