import Foundation

/// A real HTTP proxy on 127.0.0.1: Debian's tinyproxy, started in the foreground with a config
/// file of the test's, and stopped by ``shutdown()``. Requests through it are told by its log
/// (``log``, ``sawConnect(toPort:)``).
///
/// tinyproxy takes no port 0: a free port is found by binding one, and given to it. Tests that
/// need it skip, saying why, where it is not installed (``unavailableReason``); `.ci/run`
/// installs it.
public final class TinyProxy: ShutsDown, @unchecked Sendable {
    /// Where tinyproxy is, if anywhere.
    public static let executable: String? = ["/usr/bin/tinyproxy", "/usr/sbin/tinyproxy", "/usr/local/bin/tinyproxy"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Why a proxy test cannot run here, or nil when it can.
    public static var unavailableReason: String? {
        executable == nil ? "tinyproxy is not installed (apt-get install tinyproxy; .ci/run installs it)" : nil
    }

    public let port: Int
    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }
    private let folder: TemporaryFolder
    private let process: Process

    public struct NotStarted: Error, CustomStringConvertible {
        public var description: String
    }

    /// Starts tinyproxy; returns once it accepts connections.
    /// - Parameter basicAuth: the user name and password it asks for (`BasicAuth`), or none:
    ///   letters, digits and `-` only, as its config parser takes.
    public init(basicAuth: (user: String, password: String)? = nil) async throws {
        guard let executable = Self.executable else { throw NotStarted(description: Self.unavailableReason ?? "") }
        folder = TemporaryFolder("tinyproxy")
        port = try Self.freePort()
        let logPath = folder.url.appendingPathComponent("tinyproxy.log").path
        var config = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 30
            LogFile "\(logPath)"
            LogLevel Info
            MaxClients 50
            Allow 127.0.0.1
            DisableViaHeader No

            """
        if let basicAuth { config += "BasicAuth \(basicAuth.user) \(basicAuth.password)\n" }
        let configPath = folder.url.appendingPathComponent("tinyproxy.conf")
        try config.write(to: configPath, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-d", "-c", configPath.path]
        // What it says of a config it refuses (a password of characters its parser does not take).
        let errors = folder.url.appendingPathComponent("tinyproxy.err")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // Waits on its log saying it listens, with a generous bound: another process's doing.
        let process = process
        let listening = await waitUntil { !process.isRunning || log.contains("Accepting connections") }
        guard listening, process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw NotStarted(description: "tinyproxy did not start on port \(port): \(said) \(log)")
        }
    }

    /// What tinyproxy has logged so far.
    public var log: String {
        (try? String(contentsOfFile: folder.url.appendingPathComponent("tinyproxy.log").path, encoding: .utf8)) ?? ""
    }

    /// Whether tinyproxy was asked for a tunnel to 127.0.0.1:`port` (a request through it, as
    /// AsyncHTTPClient sends every request through a proxy).
    public func sawConnect(toPort port: Int) -> Bool {
        log.contains("CONNECT 127.0.0.1:\(port) ")
    }

    /// Stops it with SIGKILL: tinyproxy notices SIGTERM only when its main loop wakes, at the
    /// next connection, and would leave the test waiting.
    public func shutdown() async {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A port no one listens on now: bound to port 0 (``TestServer/ReservedPort``), read, and
    /// let go for tinyproxy to take.
    static func freePort() throws -> Int {
        let reserved = try TestServer.ReservedPort()
        close(reserved.socket)
        return reserved.port
    }
}

/// Runs `body` with a tinyproxy (``TinyProxy``), stopped when `body` returns or throws.
public func withTinyProxy<Result>(
    basicAuth: (user: String, password: String)? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (TinyProxy) async throws -> Result
) async throws -> Result {
    try await withShutdown(of: TinyProxy(basicAuth: basicAuth), body)
}
