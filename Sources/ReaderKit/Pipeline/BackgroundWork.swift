import Foundation

/// Work begun behind an answer (a `stale-while-revalidate` revalidation), which
/// ``ReaderClient/shutdown()`` waits for, so that what it fetches reaches the cache before the
/// process ends.
final class BackgroundWork: @unchecked Sendable {
    private let lock = NSLock()
    private var tasks: [Task<Void, Never>] = []

    /// Begins `work`.
    func start(_ work: @escaping @Sendable () async -> Void) {
        let task = Task { await work() }
        lock.withLock { tasks.append(task) }
    }

    /// Whether anything was begun that ``finish()`` has not waited for.
    var isPending: Bool { lock.withLock { !tasks.isEmpty } }

    /// Waits for everything begun so far (and anything that begins meanwhile).
    func finish() async {
        while let task = next() { await task.value }
    }

    private func next() -> Task<Void, Never>? {
        lock.withLock { tasks.isEmpty ? nil : tasks.removeFirst() }
    }
}
