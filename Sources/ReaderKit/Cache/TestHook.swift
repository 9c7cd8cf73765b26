import Foundation

/// Points a test can kill a process at, to reach every state of setting up the cache file
/// without a clock: in a debug build, `READER_TEST_KILL_AT_STEP=N` makes the process kill itself
/// (SIGKILL) at the Nth point reached. Release builds ignore it.
enum TestHook {
    #if DEBUG
    private static let reachedCount = StepCounter()
    private static let killAt: Int? = {
        guard let text = ProcessInfo.processInfo.environment["READER_TEST_KILL_AT_STEP"], text.count < 6 else { return nil }
        return Int(text)
    }()
    #endif

    /// Counts a point of setting up the cache file; in a debug build, kills the process there when asked.
    static func reached(_ point: StaticString) {
        #if DEBUG
        guard let killAt, reachedCount.increment() == killAt else { return }
        kill(getpid(), SIGKILL)
        #endif
    }
}

#if DEBUG
/// A counter shared by threads.
private final class StepCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int { lock.withLock { value += 1; return value } }
}
#endif
