import Foundation
import GRDB
import GRDBSQLite
import CReaderSQLite

/// Admission of the cache file: what is let in as reader's cache, how it is opened, and how a
/// damaged one is moved aside.
///
/// The file is outside reader's control (another program, a link, a device, a read-only folder):
/// it is looked at before SQLite opens it, made private, recognised as reader's or refused as
/// damaged, and opened read-only when it cannot be written, so that what it holds is not lost.
///
/// Opening is one state machine. A file in reader's current form (its header says so, its
/// migrations are all there) is opened at once. Anything else (no file, an empty one, a hot
/// rollback journal, a file not yet in WAL mode, not yet marked as reader's, an older schema) is
/// *settled* by one process at a time, under an exclusive lock on the folder: each step is one of
/// SQLite's atomic transactions, so a process killed at any step leaves a state the next one
/// settles from, and a process that waited for the lock finds the file settled. A busy file is
/// never taken for a damaged one.
///
/// Where the file lives (its folder, its mode, the settling lock, moving it aside) is
/// `CacheFile+Location.swift`; what a failure is, `CacheFailure+Classification.swift`.
enum CacheFile {
    /// A file let in: its connections, and whether it opened only for reading.
    struct Admitted {
        var writer: any DatabaseWriter
        var isReadOnly: Bool
        /// Why it opened only for reading: its skipped writes are told so.
        var readOnlyBecause: CacheFailure?
        /// Whether opening it changed the file (a new file, or an older schema migrated).
        var migrated: Bool
        /// The file opened, as the path named it then.
        var identity: FileIdentity?
    }

    /// How long a write waits for another process's write lock before it is skipped: SQLite's
    /// writes take milliseconds, so a lock held longer is another program's long transaction,
    /// and a read must not wait for it.
    static let writeWait: TimeInterval = 2
    /// How long settling waits for SQLite's locks, and for another process settling the file.
    static let settleWait: TimeInterval = 10

    /// Opens (or creates) the cache at `path`, migrating an older schema to the current one.
    /// - Throws: ``CacheFailure`` `corrupt` for a damaged file, another program's database or a
    ///   newer reader's schema; `unavailable` when it cannot be opened at all. A file that opens
    ///   only for reading is admitted read-only.
    static func open(path: String) throws(CacheFailure) -> Admitted {
        do {
            try prepareLocation(path)
            try refuseIfNotRegularFile(path)
            var settled = false
            while true {
                // The common case, a file reader made, is recognised from its header: no
                // inspecting connection, no lock, and no migration when none is due. Once settled,
                // the file is opened whatever its header says yet (copying the claim into the
                // file itself waits for no reader, so it may be left to a later checkpoint).
                if settled || headerSaysReaders(path) {
                    keepPrivate(path)
                    let identity = FileIdentity(path: path)
                    let queue = try DatabaseQueue(path: path, configuration: configuration(busyWait: writeWait))
                    let isCurrent = try queue.writeWithoutTransaction { db in
                        // SQLite opens a file it may not write (mode 0444, another user's) read-only
                        // without a word: said here as a failed write says it, so that the file is
                        // admitted read-only (below), and its skipped writes are told once.
                        guard sqlite3_db_readonly(db.sqliteConnection, "main") == 0 else {
                            throw DatabaseError(resultCode: .SQLITE_READONLY, message: "the file opens only for reading")
                        }
                        return try CacheSchema.isCurrent(db, path: path, refusingSuperseded: true)
                    }
                    if isCurrent { return Admitted(writer: queue, isReadOnly: false, migrated: settled, identity: identity) }
                    try queue.close()
                }
                guard !settled else {
                    throw CacheFailure(.unavailable, path: path, detail: "the file is not in reader's form once set up")
                }
                try withSettlingLock(path) { try settle(path) }
                settled = true
            }
        } catch let error as CacheFailure {
            throw error
        } catch {
            let failure = CacheFailure(classifying: error, path: path)
            guard failure.reason == .unwritable || failure.reason == .unavailable else { throw failure }
            return try openReadOnly(path: path, because: failure)
        }
    }

    /// The cache connection's configuration: a short wait for another process's write lock, and
    /// the WAL kept as reader keeps it.
    private static func configuration(busyWait: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyWait)
        configuration.label = "reader.cache"
        configuration.prepareDatabase { db in
            // Keep the -wal and -shm files when the last connection closes: without them, a
            // WAL database in a folder that became read-only cannot even be read.
            var persist: CInt = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            // ...and keep the kept log small once checkpointed.
            try db.execute(sql: "PRAGMA journal_size_limit = 1048576")
            // A cache may lose its last writes to a power cut but must never be corrupted; in
            // WAL mode NORMAL gives exactly that, without an fsync on every commit (a read
            // records its use, and would otherwise pay two fsyncs for it).
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // SQLite would copy the log into the file, and fsync both, whenever the last
            // connection closes: on every exit of a short-lived `reader`, even one that only
            // read. ``ResponseCache/finishWrites()`` does it instead, when this process stored something.
            _ = reader_sqlite3_keep_wal_on_close(db.sqliteConnection)
        }
        return configuration
    }

    // MARK: - Settling: the exclusive step

    /// Brings the file at `path` to reader's current form, step by step, each step safe to be
    /// killed in: a hot rollback journal rolled back, an empty file or another reader's made
    /// reader's, WAL mode, the migrations. Runs under ``withSettlingLock(_:_:)``, so one process
    /// at a time; it looks again at what it finds, since another may have settled the file meanwhile.
    /// - Throws: ``CacheFailure`` `corrupt` for another program's database or a newer reader's;
    ///   SQLite's errors as they come (a busy file is busy, never damaged).
    private static func settle(_ path: String) throws {
        TestHook.reached("settle: locked")
        rollBackHotJournal(path)
        TestHook.reached("settle: journal recovered")
        try inspect(path)
        keepPrivate(path)
        var configuration = configuration(busyWait: settleWait)
        configuration.label = "reader.cache.settle"
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        try CacheSchema.useWriteAheadLog(queue)
        TestHook.reached("settle: in WAL mode")
        try CacheSchema.claim(queue)
        TestHook.reached("settle: claimed")
        if try !queue.read(CacheSchema.isCurrent) { try CacheSchema.migrate(queue) }
        TestHook.reached("settle: migrated")
        // The header of the file itself then says it is reader's (the claim is in the log until
        // copied): the next process opens it at once. PASSIVE: it waits for no reader.
        _ = try? queue.writeWithoutTransaction { db in try db.checkpoint(.passive) }
        TestHook.reached("settle: checkpointed")
    }

    /// Rolls back a hot rollback journal left by a process killed mid-transaction (an older
    /// reader's creation of the file, or another program): SQLite does it when a connection that
    /// may write reads the file, and a read-only connection cannot read the file until then.
    private static func rollBackHotJournal(_ path: String) {
        guard (fileSize(realPath(path) + "-journal") ?? 0) > 0 else { return }
        var configuration = Configuration()
        configuration.busyMode = .timeout(settleWait)
        guard let queue = try? DatabaseQueue(path: path, configuration: configuration) else { return }
        _ = try? queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
        try? queue.close()
    }

    /// Accepts an empty file, or one that reader made; refuses anything else as foreign or newer.
    /// Looks through a read-only connection first: opening another program's database for
    /// writing would already change it (to WAL mode).
    private static func inspect(_ path: String) throws {
        guard let size = fileSize(path), size > 0 else { return }
        let queue = try openReadOnlyQueue(path)
        defer { try? queue.close() }
        try queue.read { db in try CacheSchema.refuseIfNotReaders(db, path: path) }
    }

    /// Whether the file's 100-byte SQLite header says it is reader's (`application_id` at offset 68)
    /// and already in WAL mode (read and write versions 2 at offsets 18 and 19). Anything else,
    /// including a short or unreadable file, goes through ``inspect(_:)``.
    static func headerSaysReaders(_ path: String) -> Bool {
        // A FIFO put at the path since it was checked must not hang reader: UntrustedFile waits for none.
        guard let file = try? UntrustedFile.open(path), file.status.kind == .regularFile,
              let header = file.read(count: 100, at: 0),
              header.starts(with: Array("SQLite format 3\0".utf8)), header[18] == 2, header[19] == 2 else { return false }
        let id = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Int32(bitPattern: id) == CacheSchema.applicationID
    }

    /// A connection that cannot change the file.
    static func openReadOnlyQueue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// A file or folder that cannot be written may still be read: the data in it is not lost.
    ///
    /// Three ways, each when the one before cannot: a read-only connection (SQLite reads a WAL
    /// file so when its `-shm` exists or can be made); a connection that keeps the WAL's index in
    /// its own memory (a full disk, or a read-only folder, without a `-shm`); and an older
    /// schema is migrated in a copy in memory, since the file itself cannot be.
    private static func openReadOnly(path: String, because failure: CacheFailure) throws(CacheFailure) -> Admitted {
        do {
            guard FileManager.default.isReadableFile(atPath: path) else { throw failure }
            let identity = FileIdentity(path: path)
            var queue: DatabaseQueue
            do {
                queue = try openReadOnlyQueue(path)
                try queue.read { db in try CacheSchema.refuseIfNotReaders(db, path: path) }
            } catch let error as CacheFailure {
                throw error
            } catch {
                // A hot journal must be rolled back before the file is read; this connection would
                // read past it.
                guard (fileSize(realPath(path) + "-journal") ?? 0) == 0 else { throw error }
                queue = try openWithoutSharedMemory(path)
                try queue.read { db in try CacheSchema.refuseIfNotReaders(db, path: path) }
            }
            if try !queue.read(CacheSchema.isCurrent) {
                let copy = try DatabaseQueue()
                try queue.backup(to: copy)
                try? queue.close()
                try CacheSchema.migrator.migrate(copy)
                queue = copy
            }
            return Admitted(writer: queue, isReadOnly: true, readOnlyBecause: failure, migrated: false, identity: identity)
        } catch let error as CacheFailure where error.reason == .corrupt {
            throw error
        } catch {
            throw CacheFailure(.unavailable, path: path, detail: failure.detail)
        }
    }

    /// A read-only connection that never touches the `-shm` file, for a file that cannot be
    /// written (a read-only folder, a full disk) when no other way reads it. With no log to read,
    /// the file is opened `immutable`, as SQLite's documentation says for this case; with one,
    /// SQLite keeps the log's index in heap memory in EXCLUSIVE locking mode, and the `unix-none`
    /// VFS takes no file lock (an exclusive one cannot be taken on a file opened for reading).
    /// Either way nothing guards the read from another process's write.
    static func openWithoutSharedMemory(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        guard (fileSize(realPath(path) + "-wal") ?? 0) > 0 else {
            return try DatabaseQueue(path: "file:\(encoded)?immutable=1", configuration: configuration)
        }
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        return try DatabaseQueue(path: "file:\(encoded)?mode=ro&vfs=unix-none", configuration: configuration)
    }
}
