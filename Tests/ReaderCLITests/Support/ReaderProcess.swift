import Foundation
import NIOConcurrencyHelpers
import TestSupport

/// Runs the built `reader` binary, as a user or a script would, and captures what it printed.
struct ReaderProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The binary beside the test bundle in the build folder.
    static let executable = BuiltProducts.executable("reader")

    /// A private folder for one test's cache, removed with the last copy of this value (at the
    /// end of the test, or when it throws) and of the processes it started.
    let scratch = TemporaryFolder("reader-e2e")
    var folder: URL { scratch.url }
    var environment: [String: String]

    init(server: TestServer? = nil, swapiURL: String? = nil, redditURL: String? = nil) {
        let folder = scratch.url
        environment = [
            "HOME": folder.path,
            "PATH": "/usr/bin:/bin",
            "READER_CACHE_PATH": folder.appendingPathComponent("cache/cache.sqlite").path,
            "READER_SWAPI_URL": swapiURL ?? (server.map { $0.baseURL + "/api" } ?? "http://127.0.0.1:9/api"),
            "READER_REDDIT_URL": redditURL ?? (server?.baseURL ?? "http://127.0.0.1:9"),
        ]
    }

    var cachePath: String { environment["READER_CACHE_PATH"]! }

    /// Runs `reader ARGUMENTS` with no terminal attached and waits for it.
    func run(_ arguments: String...) async throws -> Result {
        try await run(arguments)
    }

    /// Runs `reader ARGUMENTS` (through `prefix` when given, as ``launch(_:prefix:executable:)``)
    /// and waits for it, once one of ``ProcessSlots`` is free.
    func run(_ arguments: [String], prefix: [String] = [], executable: URL = ReaderProcess.executable) async throws -> Result {
        try await ProcessSlots.shared.withSlot { try await launch(arguments, prefix: prefix, executable: executable).wait() }
    }

    /// A `reader` process started and not yet waited for.
    struct Running {
        let process: Process
        let out: URL
        let err: URL
        /// The folder `out` and `err` are in, kept while this is.
        let scratch: TemporaryFolder
        /// Signalled once everything the process wrote to stderr is in `err`, when stderr is a
        /// pipe copied there (``ReaderProcess/launch(_:prefix:untilStandardErrorContains:whenSeen:)``).
        var copied: DispatchSemaphore? = nil

        /// Waits for it to end, holding no thread of the concurrency pool, and collects what it printed.
        func wait() async -> Result {
            let (process, copied) = (process, copied)
            await waitingOnAThreadOfItsOwn {
                process.waitUntilExit()
                copied?.wait()
            }
            return Result(status: process.terminationStatus,
                          stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                          stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        }
    }

    /// Starts `reader ARGUMENTS` (through `prefix`, such as `setpriv …`, when given) without waiting.
    func launch(_ arguments: [String], prefix: [String] = [], executable: URL = ReaderProcess.executable) throws -> Running {
        let (process, out, err) = prepare(arguments, prefix: prefix, executable: executable)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err, scratch: scratch)
    }
}

extension ReaderProcess {
    /// A `reader` process not yet started, with this test's environment and two empty files in
    /// its folder for what it writes to stdout and stderr.
    func prepare(_ arguments: [String], prefix: [String] = [], executable: URL = ReaderProcess.executable)
        -> (process: Process, out: URL, err: URL) {
        let process = Process()
        process.executableURL = prefix.first.map { URL(fileURLWithPath: $0) } ?? executable
        process.arguments = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + [executable.path] + arguments
        process.environment = environment
        let out = folder.appendingPathComponent("stdout-\(UUID().uuidString)")
        let err = folder.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        return (process, out, err)
    }
}

extension ReaderProcess {
    /// Which output ``launch(_:prefix:untilStandardErrorContains:in:whenSeen:)`` watches.
    enum WatchedStream: Sendable { case standardOutput, standardError }

    /// Starts `reader ARGUMENTS` and returns once it has written `text` to stderr (or to `stream`),
    /// or has ended without writing it: a readiness signal read from a pipe as it is written, never polled.
    /// - Parameters:
    ///   - prefix: what to start reader through, as for ``launch(_:prefix:executable:)``.
    ///   - whenSeen: run on the reading thread the moment `text` is seen, before this returns,
    ///     with the process's identifier: what must answer reader at once (a server coming up, a
    ///     signal) does not wait for the test to be resumed.
    /// - Returns: the running process, and whether `text` was seen.
    func launch(_ arguments: [String], prefix: [String] = [], untilStandardErrorContains text: String,
                in stream: WatchedStream = .standardError,
                whenSeen: @escaping @Sendable (_ processIdentifier: Int32) -> Void = { _ in }) async throws
        -> (Running, sawText: Bool) {
        let (process, out, err) = prepare(arguments, prefix: prefix)
        let pipe = Pipe()
        let watched = stream == .standardError ? err : out
        process.standardOutput = stream == .standardOutput ? pipe : try FileHandle(forWritingTo: out)
        process.standardError = stream == .standardError ? pipe : try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let copy = open(watched.path, O_WRONLY | O_APPEND)
        let source = pipe.fileHandleForReading.fileDescriptor
        let copied = DispatchSemaphore(value: 0)
        let needle = Array(text.utf8)
        try process.run()
        let identifier = process.processIdentifier
        // The parent's copy of the write end must go, or the pipe never reaches end of file.
        try? pipe.fileHandleForWriting.close()
        let saw = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                var seen: [UInt8] = []
                var answered = false
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = read(source, &buffer, buffer.count)
                    if count <= 0 { break }
                    _ = buffer.withUnsafeBytes { write(copy, $0.baseAddress, count) }
                    seen += buffer[0..<count]
                    if !answered, seen.firstRange(of: needle) != nil {
                        answered = true
                        whenSeen(identifier)
                        continuation.resume(returning: true)
                    }
                }
                close(copy)
                if !answered { continuation.resume(returning: false) }
                copied.signal()
            }.start()
        }
        return (Running(process: process, out: out, err: err, scratch: scratch, copied: copied), saw)
    }
}

extension ReaderProcess.Result {
    /// stdout as a JSON object.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }

    /// stderr as the JSON error object's members.
    var errorJSON: [String: Any]? {
        ((try? JSONSerialization.jsonObject(with: Data(stderr.utf8))) as? [String: Any])?["error"] as? [String: Any]
    }
}

extension ReaderProcess {
    /// Which of the process's outputs go to a pseudo-terminal rather than a file.
    struct TerminalStreams: OptionSet {
        let rawValue: Int
        static let standardOutput = TerminalStreams(rawValue: 1)
        static let standardError = TerminalStreams(rawValue: 2)
    }

    /// Runs `reader ARGUMENTS` with some outputs on a real pseudo-terminal (`columns` wide), as a
    /// person at a terminal would; what the terminal received is returned in place of those streams.
    func runOnTerminal(_ arguments: [String], streams: TerminalStreams, columns: UInt16 = 80) async throws -> Result {
        try await ProcessSlots.shared.withSlot { try await runOnTerminalNow(arguments, streams: streams, columns: columns) }
    }

    private func runOnTerminalNow(_ arguments: [String], streams: TerminalStreams, columns: UInt16) async throws -> Result {
        // posix_openpt and friends are not in Swift's Glibc module; these are their Linux insides.
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431 /* TIOCSPTLCK */, &unlock) == 0,
              ioctl(master, 0x8004_5430 /* TIOCGPTN */, &number) == 0 else {
            throw CocoaError(.fileNoSuchFile)
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        // Raw output: no "\n" → "\r\n" translation, so the bytes are what reader wrote.
        var attributes = termios()
        tcgetattr(slave, &attributes)
        attributes.c_oflag &= ~tcflag_t(OPOST)
        tcsetattr(slave, TCSANOW, &attributes)

        let received = NIOLockedValueBox<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        let reader = Thread {
            defer { drained.signal() }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(master, &buffer, buffer.count)
                if count <= 0 { break }
                received.withLockedValue { $0 += buffer[0..<count] }
            }
        }
        reader.start()

        let (process, out, err) = prepare(arguments)
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.standardOutput = streams.contains(.standardOutput) ? terminal : try FileHandle(forWritingTo: out)
        process.standardError = streams.contains(.standardError) ? terminal : try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        await waitingOnAThreadOfItsOwn {
            process.waitUntilExit()
            close(slave)
            // Once the last holder of the terminal is gone, reading the master ends with EIO.
            drained.wait()
            close(master)
        }
        let shown = String(decoding: received.withLockedValue { $0 }, as: UTF8.self)
        return Result(status: process.terminationStatus,
                      stdout: streams.contains(.standardOutput) ? shown : (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                      stderr: streams.contains(.standardError) ? shown : (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
