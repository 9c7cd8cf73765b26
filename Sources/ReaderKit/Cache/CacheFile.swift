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
    /// The detail of a failure that is another process's lock, never damage.
    static let busyDetail = "another process holds the cache's write lock"

    /// Whether `failure` is another process's lock (``busyDetail``).
    static func isBusy(_ failure: CacheFailure) -> Bool {
        failure.reason == .unwritable && failure.detail.hasPrefix(busyDetail)
    }

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
            let failure = classify(error, path: path)
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

    /// Runs `body` holding an exclusive lock (flock(2)) on the cache's folder: one process at a
    /// time settles the file or moves it aside. The lock goes with the process, however it ends.
    /// - Throws: ``CacheFailure`` `unavailable` when the folder cannot be locked within
    ///   ``settleWait`` (another process holds it that long); what `body` throws.
    static func withSettlingLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        let folder = (realPath(path) as NSString).deletingLastPathComponent
        let descriptor = Foundation.open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CacheFailure(.unavailable, path: path, detail: "cannot open the cache's folder: \(String(cString: strerror(errno)))")
        }
        defer { Foundation.close(descriptor) }
        var waited: TimeInterval = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR, waited < settleWait else {
                throw CacheFailure(.unavailable, path: path, detail: "another process is setting up the cache file")
            }
            usleep(10_000)
            waited += 0.01
        }
        return try body()
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

    /// The size of the file at `path`, or nil when there is none (a plain stat(2): FileManager's
    /// attributes also look up the owner's name, which reads /etc/passwd).
    static func fileSize(_ path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }

    /// Whether the file's 100-byte SQLite header says it is reader's (`application_id` at offset 68)
    /// and already in WAL mode (read and write versions 2 at offsets 18 and 19). Anything else,
    /// including a short or unreadable file, goes through ``inspect(_:)``.
    static func headerSaysReaders(_ path: String) -> Bool {
        // O_NONBLOCK: a FIFO put at the path since it was checked must not hang reader.
        let descriptor = Foundation.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { Foundation.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        var header = [UInt8](repeating: 0, count: 100)
        guard pread(descriptor, &header, 100, 0) == 100,
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

    /// Makes the folder (0700) and the file (0600) before SQLite does, so that SQLite's own
    /// files (-wal, -shm), which copy the database's mode, are private too.
    private static func prepareLocation(_ path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        if !FileManager.default.fileExists(atPath: path) {
            // O_NONBLOCK: opening a FIFO made at the path meanwhile fails rather than waits.
            let descriptor = Foundation.open(path, O_CREAT | O_WRONLY | O_NONBLOCK | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw CacheFailure(errno == EACCES || errno == EROFS ? .unwritable : .unavailable, path: path,
                                   detail: "cannot create the file: \(String(cString: strerror(errno)))")
            }
            Foundation.close(descriptor)
        }
    }

    /// Refuses a path that names something other than a regular file (a device such as
    /// `/dev/null`, a FIFO, a folder, a socket), before SQLite opens it: SQLite would read a device
    /// as an empty database and make its `-journal` beside it, and opening a FIFO would wait for
    /// a writer forever. `stat(2)` follows a symbolic link: a link to a regular file is accepted.
    /// A path that does not exist yet passes; it is made as a file.
    static func refuseIfNotRegularFile(_ path: String) throws(CacheFailure) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return }
            throw CacheFailure(.unavailable, path: path, detail: "cannot look at the file: \(String(cString: strerror(errno)))")
        }
        let kind: String
        switch status.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a folder"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a file"
        }
        throw CacheFailure(.unavailable, path: path, detail: "the cache path is \(kind), not a regular file")
    }

    /// Takes group and other permissions off the database and its -wal, -shm and -journal files,
    /// so that a file made elsewhere (say 0644, reached through a symbolic link) does not lend its
    /// mode to the responses reader stores, nor to the sidecar files SQLite makes with the
    /// database's mode. SQLite puts the sidecars beside the link's target, so they are found
    /// there. Only this user's files are changed; owner bits are kept (a file made read-only
    /// stays read-only). Runs once the file is known to be reader's or empty, never on another
    /// program's database.
    static func keepPrivate(_ path: String) {
        let target = realPath(path)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            var status = stat()
            guard lstat(target + suffix, &status) == 0, status.st_mode & S_IFMT == S_IFREG,
                  status.st_uid == geteuid(), status.st_mode & 0o077 != 0 else { continue }
            _ = chmod(target + suffix, status.st_mode & 0o700)
        }
    }

    /// `path` with its symbolic links resolved, as SQLite resolves it to place the -wal and -shm
    /// files; `path` itself when it cannot be resolved.
    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Moves a damaged cache aside, with its -wal and -shm files, as `PATH.corrupt-TIMESTAMP`,
    /// mode 0600 (it holds the user's data): never deleted, so what it held can still be
    /// recovered by hand. Under the settling lock, so that two processes that found one file
    /// damaged do not move aside the new file the first one started.
    /// - Parameter identity: the file found damaged; when the path names another file now (one
    ///   another process started meanwhile), nothing is moved.
    /// - Returns: the path the file was moved to; nil when it was no longer the damaged file.
    static func moveAside(path: String, now: Date, ifStill identity: FileIdentity? = nil) throws(CacheFailure) -> String? {
        do {
            return try withSettlingLock(path) { () throws -> String? in
                if let identity, FileIdentity(path: path) != identity { return nil }
                let stamp = OutsideNumbers.wholeSeconds(now.timeIntervalSince1970)  // a clock injected by a library user may say anything
                var destination = "\(path).corrupt-\(stamp)"
                var suffix = 1
                while FileManager.default.fileExists(atPath: destination) {
                    destination = "\(path).corrupt-\(stamp)-\(suffix)"
                    suffix += 1
                }
                try FileManager.default.moveItem(atPath: path, toPath: destination)
                _ = chmod(destination, 0o600)
                for sidecar in ["-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + sidecar) {
                    try? FileManager.default.moveItem(atPath: path + sidecar, toPath: destination + sidecar)
                    _ = chmod(destination + sidecar, 0o600)
                }
                return destination
            }
        } catch let error as CacheFailure {
            throw error
        } catch {
            throw CacheFailure(.unavailable, path: path, detail: "cannot move the damaged file aside: \(error)")
        }
    }

    /// Classifies what SQLite or the file system said.
    static func classify(_ error: any Error, path: String) -> CacheFailure {
        if let failure = error as? CacheFailure { return failure }
        let detail = String(describing: error)
        if let databaseError = error as? DatabaseError {
            switch databaseError.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT: return CacheFailure(.corrupt, path: path, detail: detail)
            case .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_PERM, .SQLITE_IOERR: return CacheFailure(.unwritable, path: path, detail: detail)
            case .SQLITE_CANTOPEN, .SQLITE_AUTH: return CacheFailure(.unavailable, path: path, detail: detail)
            // Busy is another process's lock: never damage, and only writes wait for it.
            case .SQLITE_BUSY, .SQLITE_LOCKED: return CacheFailure(.unwritable, path: path, detail: "\(busyDetail): \(detail)")
            case .SQLITE_ERROR where detail.contains("no such table") || detail.contains("no such column"):
                return CacheFailure(.corrupt, path: path, detail: detail)
            // A migration that finds what it makes already there: its row in grdb_migrations was
            // deleted. Damage, which moving the file aside repairs; never "unavailable" for good.
            case .SQLITE_ERROR where detail.contains("already exists") || detail.contains("duplicate column"):
                return CacheFailure(.corrupt, path: path, detail: detail)
            default: return CacheFailure(.unavailable, path: path, detail: detail)
            }
        }
        if detail.contains("superseded") || detail.contains("newer") {
            return CacheFailure(.corrupt, path: path, detail: detail)
        }
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileWriteNoPermissionError || nsError.code == NSFileWriteVolumeReadOnlyError {
            return CacheFailure(.unwritable, path: path, detail: detail)
        }
        return CacheFailure(.unavailable, path: path, detail: detail)
    }
}

/// Which file a path names: its device and inode. A file deleted or replaced at the path while
/// reader has it open is no longer the one the path names, and what is written into it is lost.
struct FileIdentity: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64

    /// The file `path` names now (a link followed, as SQLite follows it); nil when it names none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
