import Foundation

/// Something a test must shut down before letting it go: a server, a client whose HTTP client
/// traps when dropped still running (AsyncHTTPClient's "Client not shut down before the deinit").
public protocol ShutsDown: Sendable {
    func shutdown() async
}

extension TestServer: ShutsDown {}

/// Runs `body` with `resource`, and shuts `resource` down when `body` returns or throws.
///
/// Swift has no asynchronous `defer`: this is its place in tests.
public func withShutdown<Resource: ShutsDown, Result>(
    of resource: Resource,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Resource) async throws -> Result
) async rethrows -> Result {
    let result: Result
    do {
        result = try await body(resource)
    } catch {
        await resource.shutdown()
        throw error
    }
    await resource.shutdown()
    return result
}

/// Runs `body` with a server answering with `handler` (as ``TestServer/init(port:_:)``), and
/// shuts the server down when `body` returns or throws. Any other server is scoped as
/// `withShutdown(of: try await TestServer(tls: …, handler)) { server in … }`.
public func withTestServer<Result>(
    port: Int = 0,
    _ handler: @escaping TestServer.Handler,
    isolation: isolated (any Actor)? = #isolation,
    body: (TestServer) async throws -> Result
) async throws -> Result {
    try await withShutdown(of: TestServer(port: port, handler), body)
}

/// A new empty folder in the system's temporary folder, removed with everything in it when the
/// last reference to this is let go (for a value that owns a folder, such as a test's process
/// runner); a test that only needs a folder uses ``withTemporaryFolder(_:isolation:_:)``.
public final class TemporaryFolder: Sendable {
    public let url: URL

    /// Makes `<temporary folder>/<prefix>-<UUID>`.
    public init(_ prefix: String) {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A cache file not yet made, in a folder not yet made, in this folder: each call a new one.
    public func cachePath() -> String {
        url.appendingPathComponent("\(UUID().uuidString)/cache.sqlite").path
    }

    deinit {
        Self.makeWritable(url)
        try? FileManager.default.removeItem(at: url)
    }

    /// A test may have made parts of its folder read-only (an unwritable cache): they are given
    /// back, or removing the folder would fail for a user other than root.
    private static func makeWritable(_ folder: URL) {
        chmod(folder.path, 0o700)
        for item in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            let child = folder.appendingPathComponent(item)
            // Not through a symbolic link: that could lead out of the folder.
            if (try? FileManager.default.attributesOfItem(atPath: child.path))?[.type] as? FileAttributeType == .typeDirectory {
                makeWritable(child)
            }
        }
    }
}

/// Runs `body` with a new empty folder named `<prefix>-<UUID>` in the system's temporary folder,
/// and removes the folder with everything in it when `body` returns or throws.
public func withTemporaryFolder<Result>(
    _ prefix: String = "reader-test",
    isolation: isolated (any Actor)? = #isolation,
    _ body: (URL) async throws -> Result
) async rethrows -> Result {
    let folder = TemporaryFolder(prefix)
    defer { withExtendedLifetime(folder) {} }
    return try await body(folder.url)
}
