import Foundation
import GRDB
import GRDBSQLite
import NIOConcurrencyHelpers

/// The SQLite cache of responses: one file in WAL mode, readable by many `reader` processes at once.
///
/// Modelled on GRDB's demo `AppDatabase`: a Sendable value around a database writer, with named
/// migrations run when it opens. The file is made with mode 0600 in a folder with mode 0700.
/// Inside ReaderKit its parts are `CacheFile`, which admits the file (and moves a damaged one
/// aside), `CacheSchema`, which migrates it, `CacheEntryTable`, the entries, and
/// `ServiceStateTables`, each service's counters and rate limits; this type runs their SQL and
/// classifies what fails.
///
/// Every operation on what the file holds is `async`: it waits on GRDB's queues while SQLite
/// works, so that concurrent loads are not held up by one another's file access. Opening the
/// file, moving it aside and closing it are not: they come before any queue exists or after the
/// last, as GRDB's own opening and closing do.
///
/// ## Topics
/// - ``open(path:)``
/// - ``entry(forKey:)``
/// - ``store(_:sizeLimit:)``
/// - ``recordUse(_:service:key:at:)``
/// - ``markRevalidated(key:at:by:)``
/// - ``deleteEntry(forKey:)``
/// - ``clear(service:)``
/// - ``prune(fetchedBefore:service:now:)``
/// - ``statistics()``
/// - ``listing(service:)``
/// - ``moveAside(path:now:)``
public struct ResponseCache: Sendable {
    package let writer: any DatabaseWriter
    /// The connection that reads outside a load (statistics, rate limits), opened on first use:
    /// it reads while the writer waits for another process's lock, as a pool's reader would.
    private let readers: ReadConnection
    /// What this process learnt of the file, shared by the copies of this value.
    private let flags = NIOLockedValueBox(Flags())
    /// The file's path.
    public let path: String
    /// Whether the file could only be opened for reading; writes then fail with `unwritable`.
    public let isReadOnly: Bool
    /// Why the file opened only for reading (a read-only file or folder, a full disk).
    let readOnlyBecause: CacheFailure?
    /// The file opened.
    let identity: FileIdentity?
    /// Where the file and its -wal really are: SQLite puts the log beside a symbolic link's target.
    var resolvedPath: String { CacheFile.realPath(path) }

    /// Marks the file as reader's (`PRAGMA application_id`, "RDRC"), so that another program's
    /// database at the cache path is recognised and moved aside instead of being written into.
    public static let applicationID: Int32 = CacheSchema.applicationID

    /// Opens (or creates) the cache at `path`, migrating an older schema to the current one.
    /// - Throws: ``CacheFailure`` `corrupt` for a damaged file, another program's database or a
    ///   newer reader's schema; `unavailable` when it cannot be opened at all. A file that opens
    ///   only for reading is returned with `isReadOnly`.
    public static func open(path: String) throws(CacheFailure) -> ResponseCache {
        let admitted = try CacheFile.open(path: path)
        let cache = ResponseCache(writer: admitted.writer, readers: ReadConnection(path: path), path: path,
                                  isReadOnly: admitted.isReadOnly, readOnlyBecause: admitted.readOnlyBecause,
                                  identity: admitted.identity)
        if admitted.migrated { cache.flags.withLockedValue { $0.contentChanged = true } }
        return cache
    }

    private init(writer: any DatabaseWriter, readers: ReadConnection, path: String, isReadOnly: Bool,
                 readOnlyBecause: CacheFailure?, identity: FileIdentity?) {
        self.writer = writer
        self.readers = readers
        self.path = path
        self.isReadOnly = isReadOnly
        self.readOnlyBecause = readOnlyBecause
        self.identity = identity
    }

    /// Whether the path still names the file this cache opened: false once it was deleted or
    /// replaced (by another program, by hand), when what is written here is lost with it.
    var isStillAtItsPath: Bool {
        guard let identity else { return true }
        return FileIdentity(path: path) == identity
    }

    /// Moves a damaged cache aside, with its -wal and -shm files, as `PATH.corrupt-TIMESTAMP`
    /// with mode 0600 (it holds the user's data): never deleted, so what it held can still be
    /// recovered by hand.
    /// - Returns: the path the file was moved to.
    @discardableResult
    public static func moveAside(path: String, now: Date = Date()) throws(CacheFailure) -> String {
        guard let destination = try CacheFile.moveAside(path: path, now: now) else {
            throw CacheFailure(.unavailable, path: path, detail: "the file could not be moved aside")
        }
        return destination
    }

    // MARK: - Entries

    /// The entry stored under `key`, if any.
    /// - Throws: ``CacheFailure/Reason/damagedEntry`` when the row does not read as an entry or
    ///   cannot be right (``CacheEntry/damage``): the caller drops it; other failures as classified.
    public func entry(forKey key: String) async throws(CacheFailure) -> CacheEntry? {
        try await perform(.readOnWriter { [path] db in try CacheEntryTable.entry(forKey: key, path: path, db) })
    }

    /// Stores `entry`, replacing any entry with the same key, then evicts the least recently used
    /// entries until the bodies fit in `sizeLimit` bytes. All in one short transaction.
    /// - Returns: how many other entries were evicted. An entry larger than the whole limit is not
    ///   stored (nothing is evicted for it) and the result is nil.
    @discardableResult
    public func store(_ entry: CacheEntry, sizeLimit: Int? = nil) async throws(CacheFailure) -> Int? {
        try checkWritable()
        if let sizeLimit, entry.bodySize > sizeLimit { return nil }
        return try await perform(.write(changingContent: true) { db in try CacheEntryTable.store(entry, sizeLimit: sizeLimit, db) })
    }

    /// Records that a load was answered, for `reader cache stats`, and marks the entry as just used.
    /// A read's record of its use never waits for another process's lock: it is bookkeeping, and
    /// a read does not wait for a writer.
    /// - Parameters:
    ///   - use: whether the cache answered, the network did, or a `304` confirmed the copy.
    ///   - service: the service the load was for: its statistics count the use.
    ///   - key: the entry used, if one was.
    ///   - now: when; the entry's last use, which eviction goes by.
    public func recordUse(_ use: CacheUse, service: ServiceName, key: String?, at now: Date) async throws(CacheFailure) {
        try await perform(.write(waitingForLocks: false) { db in
            if let key, use != .miss { try CacheEntryTable.markUsed(key: key, at: now, db) }
            try ServiceStateTables.count(use, of: service, db)
        })
    }

    /// Marks the entry under `key` as confirmed unchanged at `now` (a `304 Not Modified`), with
    /// the header fields the `304` sent (``CacheEntry/Confirmation``, RFC 9111 §4.3.4).
    /// - Returns: the updated entry, or nil when there is none.
    @discardableResult
    public func markRevalidated(key: String, at now: Date, by confirmation: CacheEntry.Confirmation) async throws(CacheFailure) -> CacheEntry? {
        try await perform(.write { db in
            try CacheEntryTable.markRevalidated(key: key, at: now, by: confirmation, db)
        })
    }

    /// Deletes the entry stored under `key`; nothing happens when there is none.
    public func deleteEntry(forKey key: String) async throws(CacheFailure) {
        try await perform(.write(changingContent: true) { db in try CacheEntryTable.delete(key: key, db) })
    }

    /// Deletes every entry, or those of one API, and gives the space back to the file system.
    /// Rows whose values are damaged go too: nothing is decoded.
    /// - Returns: how many entries and body bytes were removed.
    public func clear(service: ServiceName? = nil) async throws(CacheFailure) -> CacheRemoval {
        // A lock-out is state of the same kind: clearing forgets it, so a script is never stuck.
        // So are the visits: clearing the cache forgets what was read, and when.
        try await perform(.write(checkingWritable: false) { db in
            try ServiceStateTables.forgetRateLimits(of: service, db)
            try VisitTable.forget(service: service, db)
            try DetourTable.forget(service: service, db)
        })
        return try await remove(.service(service))
    }

    /// Deletes the entries fetched before `date` (optionally of one API), those whose fetch
    /// time cannot be read (no reader serves them) and those fetched after `now` (stored while
    /// the clock ran ahead: a fetch time in the future is not trusted), and gives the space back.
    public func prune(fetchedBefore date: Date, service: ServiceName? = nil, now: Date = Date()) async throws(CacheFailure) -> CacheRemoval {
        try await remove(.fetched(before: date, orAfter: now, service: service))
    }

    /// Deletes the entries `selection` takes; VACUUM cannot run inside a transaction, and is
    /// worth it only when something went.
    private func remove(_ selection: CacheEntryTable.Selection) async throws(CacheFailure) -> CacheRemoval {
        let removal = try await perform(.write(changingContent: true) { db in try CacheEntryTable.remove(selection, db) })
        if removal.entries > 0 { try await run { try await writer.vacuum() } }
        return removal
    }

    /// Every entry (of `service`, when given), without its body, and its body's size: what
    /// `reader cache list` shows. Rows that do not read as an entry are left out.
    public func listing(service: ServiceName? = nil) async throws(CacheFailure) -> [(entry: CacheEntry, bytes: Int)] {
        try await perform(.read { db in try CacheEntryTable.listing(service: service, db) })
    }

    /// How many entries the cache holds.
    public func count() async throws(CacheFailure) -> Int {
        try await perform(.read { db in try CacheEntryTable.count(db) })
    }

    // MARK: - Closing

    /// Closes the file's connections, as before moving a damaged file aside; later calls fail.
    /// Blocks while the log is copied (``finishWrites()``), as GRDB's own `close()` does.
    public func close() {
        finishWrites()
        readers.close()
        try? writer.close()
    }

    /// Copies what this process stored from the write-ahead log into the file itself, so that the
    /// file alone (copied, backed up, its `-wal` lost) holds it. When only usage was recorded, a
    /// read leaves the file as it found it and pays no fsync, until the log passes
    /// ``logSizeBeforeCheckpoint``: each process that opens the cache reads the whole log once, so
    /// it is kept short. Without this call nothing is lost either: the log is part of the database.
    /// Blocks while SQLite copies: it runs once, as a command ends or the file is closed.
    public func finishWrites() {
        guard !isReadOnly else { return }
        let logSize = CacheFile.fileSize(resolvedPath + "-wal") ?? 0
        let contentChanged = flags.withLockedValue { flags in defer { flags.contentChanged = false }; return flags.contentChanged }
        guard contentChanged || logSize > Self.logSizeBeforeCheckpoint else { return }
        // PASSIVE first: it copies the log without the write lock, so other processes' writes go
        // on meanwhile. Then TRUNCATE, which empties the log (the next process to open the cache
        // rebuilds its index of the log by reading all of it, so an emptied log keeps opening
        // fast), but holds the write lock while it waits for readers: it waits for none (another
        // process's store would wait behind it), since a busy cache is simply truncated next time.
        _ = try? writer.writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, 0)
            defer { sqlite3_busy_timeout(db.sqliteConnection, Self.writeWaitMilliseconds) }
            try db.checkpoint(.passive)
            try db.checkpoint(.truncate)
        }
    }

    /// How long the write-ahead log may grow from reads alone (each records its use in about
    /// three pages) before ``finishWrites()`` checkpoints it: about twenty reads.
    public static let logSizeBeforeCheckpoint = 256 * 1024

    // MARK: - Running SQL

    /// What this process learnt of the file.
    private struct Flags {
        /// Whether this process changed what the cache holds (not just its usage counters), so
        /// that ``finishWrites()`` copies the log into the file.
        var contentChanged = false
        /// How many waiting writes in a row met another process's lock for the whole of
        /// ``CacheFile/writeWait``: a lock held, not shared. A write that succeeds resets it.
        var busyWritesInARow = 0
        /// Whether later writes wait for another process's lock: not once
        /// ``busyWritesInARowBeforeGivingUp`` writes in a row met it, until one succeeds.
        var waitsForLocks: Bool { busyWritesInARow < ResponseCache.busyWritesInARowBeforeGivingUp }
    }

    /// How many waiting writes in a row may meet another process's lock before later writes stop
    /// waiting for it. Many processes sharing the file each hold the lock for milliseconds, and a
    /// write that waits gets it in turn, so one that does not is an exception; a lock held by
    /// another program's long transaction fails every write, and a sync of hundreds of entries
    /// must not wait ``CacheFile/writeWait`` for each.
    static let busyWritesInARowBeforeGivingUp = 3

    /// One piece of work on the file: which connection runs it, and how.
    struct Work<T: Sendable>: Sendable {
        /// Which connection runs it, and how.
        enum Access {
            /// The reading connection (opened on first use), in a read-only transaction.
            case read
            /// The writer connection, outside a transaction: a look-up that a load follows with a
            /// write anyway (a hit records its use), so that a cached read opens no second
            /// connection. It waits behind this process's writes, as the load's own write would.
            case readOnWriter
            /// The writer connection, in a transaction.
            case write
            /// The writer connection, in a transaction begun only if no other process holds the
            /// write lock: it is skipped (busy) rather than waiting.
            case writeWithoutWaiting
        }

        var access: Access
        /// Whether a read-only file refuses it before SQLite is asked (with reader's own words).
        var checksWritable: Bool
        /// Whether it changes what the cache holds, so that ``finishWrites()`` checkpoints.
        var changesContent: Bool
        var body: @Sendable (Database) throws -> T

        static func read(_ body: @escaping @Sendable (Database) throws -> T) -> Work {
            Work(access: .read, checksWritable: false, changesContent: false, body: body)
        }

        static func readOnWriter(_ body: @escaping @Sendable (Database) throws -> T) -> Work {
            Work(access: .readOnWriter, checksWritable: false, changesContent: false, body: body)
        }

        static func write(checkingWritable: Bool = true, changingContent: Bool = false, waitingForLocks: Bool = true,
                          _ body: @escaping @Sendable (Database) throws -> T) -> Work {
            Work(access: waitingForLocks ? .write : .writeWithoutWaiting, checksWritable: checkingWritable,
                 changesContent: changingContent, body: body)
        }
    }

    func perform<T>(_ work: Work<T>) async throws(CacheFailure) -> T {
        if work.checksWritable { try checkWritable() }
        if work.changesContent { flags.withLockedValue { $0.contentChanged = true } }
        return try await run {
            switch work.access {
            case .read: try await reader().read(work.body)
            case .readOnWriter: try await writer.writeWithoutTransaction(work.body)
            case .write: try await writer.writeWithoutTransaction { db in try self.waitingForLocks(db, work.body) }
            case .writeWithoutWaiting: try await writer.writeWithoutTransaction { db in try self.withoutWaiting(db, work.body) }
            }
        }
    }

    /// Where a `.read` runs: the reading connection, or the one connection of a file admitted
    /// read-only.
    private func reader() throws -> any DatabaseReader {
        isReadOnly ? writer : try readers.connection()
    }

    private func checkWritable() throws(CacheFailure) {
        guard !isReadOnly else { throw CacheFailure(.unwritable, path: path, detail: "the file opened read-only") }
    }

    /// Runs `body`, classifying what it throws once.
    private func run<T>(_ body: () async throws -> T) async throws(CacheFailure) -> T {
        do { return try await body() } catch {
            throw CacheFailure(classifying: error, path: path)
        }
    }

    /// Runs `body` in a transaction begun once no other process holds the write lock: SQLite's
    /// busy handler waits for it, and a `BEGIN IMMEDIATE` that is still refused (the handler
    /// gave up between two other processes' writes) is tried again, all within
    /// ``CacheFile/writeWait``. After ``busyWritesInARowBeforeGivingUp`` writes in a row that
    /// could not get the lock, it is tried once without waiting, until one succeeds.
    private func waitingForLocks<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        let waits = flags.withLockedValue { $0.waitsForLocks }
        let deadline = ContinuousClock.now + .milliseconds(waits ? Int(Self.writeWaitMilliseconds) : 0)
        defer { _ = sqlite3_busy_timeout(db.sqliteConnection, Self.writeWaitMilliseconds) }
        while true {
            let left = ContinuousClock.now.duration(to: deadline).components
            let milliseconds = max(0, min(Int64(Self.writeWaitMilliseconds), left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000))
            _ = sqlite3_busy_timeout(db.sqliteConnection, Int32(milliseconds))
            do {
                let result = try transaction(db, body)
                flags.withLockedValue { $0.busyWritesInARow = 0 }
                return result
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                guard ContinuousClock.now < deadline else {
                    flags.withLockedValue { $0.busyWritesInARow += 1 }
                    throw error
                }
                // Refused before the handler waited (a lock SQLite does not wait for): a moment
                // for the other process's write to end, rather than a spin.
                usleep(1000)
            }
        }
    }

    /// Runs `body` in a transaction, with no wait for another process's lock.
    private func withoutWaiting<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        _ = sqlite3_busy_timeout(db.sqliteConnection, 0)
        defer { _ = sqlite3_busy_timeout(db.sqliteConnection, Self.writeWaitMilliseconds) }
        return try transaction(db, body)
    }

    /// Runs `body` in an immediate transaction: the write lock is taken first, so that the
    /// transaction never has to upgrade a read (which SQLite refuses without waiting).
    private func transaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        var result: T?
        try db.inTransaction(.immediate) {
            result = try body(db)
            return .commit
        }
        guard let result else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the transaction ran nothing") }
        return result
    }

    private static let writeWaitMilliseconds = Int32(CacheFile.writeWait * 1000)
}

extension CacheFailure: Error {}
