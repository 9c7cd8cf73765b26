import Foundation

/// The package's built executables, found beside the tests in the build folder, on any system:
/// from the test bundle's place (`.build/debug/readerPackageTests.xctest`, a file on Linux and a
/// folder on macOS), walking up to the folder that holds the executable.
public enum BuiltProducts {
    /// The executable `name` (such as `reader`); `READER_BUILD_FOLDER` names the folder to look
    /// in first, for a build kept elsewhere.
    public static func executable(_ name: String) -> URL {
        var candidates: [URL] = []
        if let folder = ProcessInfo.processInfo.environment["READER_BUILD_FOLDER"] {
            candidates.append(URL(fileURLWithPath: folder, isDirectory: true))
        }
        // The bundle holding this code: the test bundle on macOS, the test executable on Linux.
        candidates.append(Bundle(for: Marker.self).bundleURL)
        candidates.append(Bundle.main.bundleURL)
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath())
        for start in candidates {
            var folder = start.resolvingSymlinksInPath()
            while true {
                let candidate = folder.appendingPathComponent(name)
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isFolder), !isFolder.boolValue,
                   FileManager.default.isExecutableFile(atPath: candidate.path) {
                    return candidate
                }
                let parent = folder.deletingLastPathComponent()
                if parent.path == folder.path { break }
                folder = parent
            }
        }
        // Not built: the test that runs it fails, saying which path it tried.
        return Bundle.main.bundleURL.appendingPathComponent(name)
    }

    private final class Marker {}
}

extension Process {
    /// Waits for the process to end without holding a thread of the concurrency pool: the wait
    /// is on a thread of its own. The pool has one thread a core, and tests waiting on processes
    /// with it would hold all of them.
    public func exited() async {
        await waitingOnAThreadOfItsOwn { self.waitUntilExit() }
    }
}

/// Runs `work`, which blocks (on a process, a semaphore), on a new thread, and resumes when it
/// is done, holding no thread of the concurrency pool meanwhile.
public func waitingOnAThreadOfItsOwn<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: work()) }.start()
    }
}

/// How many tests run child processes at once: one a core. A test waiting on a process holds
/// no thread, so without this every test of the suite would start its process at the same
/// moment, and each would be slowed past the deadlines it tests (a sync's requests timing out).
/// A test holds its slot from its first process to its end (through a suite's trait that calls
/// ``withSlot(_:)`` around each test), so that its runs follow each other as a person's would,
/// not each behind every other test's; a run outside such a test takes a slot for itself.
public actor ProcessSlots {
    public static let shared = ProcessSlots(ProcessInfo.processInfo.activeProcessorCount)

    /// Whether the current task holds a slot already: it does not wait for another.
    @TaskLocal private static var holding = false

    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = max(2, count) }

    /// Runs `body` once a slot is free (at once when this task holds one), and frees the slot
    /// when `body` returns or throws. A waiting test is suspended, holding no thread.
    public nonisolated func withSlot<Result: Sendable>(_ body: () async throws -> Result) async throws -> Result {
        if Self.holding { return try await body() }
        await take()
        do {
            let result = try await Self.$holding.withValue(true) { try await body() }
            await give()
            return result
        } catch {
            await give()
            throw error
        }
    }

    private func take() async {
        if free > 0 { free -= 1; return }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func give() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
}
