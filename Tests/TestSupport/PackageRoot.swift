import Foundation

/// The package's folder, found from this file's place in it (`Tests/TestSupport/`), so that a test
/// moved between folders still finds the sources, the articles and the fuzzers' corpora.
public enum PackageRoot {
    public static let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `path` below the package's folder, such as `Sources/ReaderKit`.
    public static func appending(_ path: String) -> URL { url.appendingPathComponent(path) }
}
