import Foundation

/// Waits until `condition` holds, asking again every `interval` (50 ms unless said), up to
/// `bound`; whether it did. It holds no thread while it waits: a thread of the pool blocked here
/// could be the one the code under test needs.
///
/// What the end-to-end tests wait on (a screen, a file, the requests a server saw) is another
/// process's doing, into which no clock of the test's can be injected: the wait is on the
/// condition, with a generous bound, never a fixed sleep or a timed assertion.
public func waitUntil(within bound: Duration = .seconds(30), every interval: Duration = .milliseconds(50),
                      _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: bound)
    while !(try await condition()) {
        guard ContinuousClock.now < deadline else { return try await condition() }
        try? await Task.sleep(for: interval)
    }
    return true
}
