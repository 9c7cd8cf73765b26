import GRDB
import NIOConcurrencyHelpers

/// The connection a ``ResponseCache`` reads on outside a load, shared by its copies.
///
/// The cache's writer is one connection (``CacheFile``), and a load reads on it; a read that is
/// not part of a load goes to a second, read-only connection, made on first use, so that it is
/// not held up behind a write that waits for another process's lock. A command that reads none
/// (a cached read) never opens it.
struct ReadConnection: Sendable {
    private enum State {
        case unopened
        case open(DatabaseQueue)
        case closed
    }

    private let path: String
    private let state = NIOLockedValueBox(State.unopened)

    init(path: String) { self.path = path }

    /// The reading connection, opened now if it is not yet.
    /// - Throws: what SQLite says when it cannot be opened (after ``close()``, that it is closed).
    func connection() throws -> any DatabaseReader {
        try state.withLockedValue { state in
            switch state {
            case .open(let queue): return queue
            case .closed: throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the cache is closed")
            case .unopened:
                let queue = try CacheFile.openReadOnlyQueue(path)
                state = .open(queue)
                return queue
            }
        }
    }

    /// Closes the connection, if it was opened; later reads fail.
    func close() {
        let opened = state.withLockedValue { state -> DatabaseQueue? in
            defer { state = .closed }
            guard case .open(let queue) = state else { return nil }
            return queue
        }
        try? opened?.close()
    }
}
