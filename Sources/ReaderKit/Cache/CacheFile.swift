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
enum CacheFile {
    /// A file let in: its connections, and whether it opened only for reading.
    struct Admitted {
        var writer: any DatabaseWriter
        var isReadOnly: Bool
        /// Whether opening it changed the file (a new file, or an older schema migrated).
        var migrated: Bool
    }

    /// Opens (or creates) the cache at `path`, migrating an older schema to the current one.
    /// - Throws: ``CacheFailure`` `corrupt` for a damaged file, another program's database or a
    ///   newer reader's schema; `unavailable` when it cannot be opened at all. A file that opens
    ///   only for reading is admitted read-only.
    static func open(path: String) throws(CacheFailure) -> Admitted {
        do {
            try prepareLocation(path)
            try refuseIfNotRegularFile(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
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
            // The common case, a file reader made in WAL mode, is recognised from its header:
            // no inspecting connection, no claim, and no migration when none is due.
            let isReaders = headerSaysReaders(path)
            if !isReaders { try inspect(path) }
            keepPrivate(path)
            // One connection, in WAL mode (which the file keeps): a process reads and records its
            // reads, and a pool's second connection would cost its own set-up for nothing; other
            // processes still read while this one writes. (GRDB's DatabasePool also checks, at
            // every open, that the log file is not empty through Foundation's file attributes,
            // which look up the owner's name in /etc/passwd: a tenth of a cached read.)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            if !isReaders {
                try CacheSchema.useWriteAheadLog(queue)
                try CacheSchema.claim(queue)
            }
            // inspect(_:) has refused a newer reader's file already, unless it was skipped.
            let isCurrent = try queue.writeWithoutTransaction { db in
                // SQLite opens a file it may not write (mode 0444, another user's) read-only
                // without a word, and a file in reader's form needs no write to open: said here as
                // a failed write says it, so that the file is admitted read-only (below), and its
                // skipped writes are told once rather than each failing.
                guard sqlite3_db_readonly(db.sqliteConnection, "main") == 0 else {
                    throw DatabaseError(resultCode: .SQLITE_READONLY, message: "the file opens only for reading")
                }
                return try CacheSchema.isCurrent(db, path: path, refusingSuperseded: isReaders)
            }
            if !isCurrent { try CacheSchema.migrate(queue) }
            return Admitted(writer: queue, isReadOnly: false, migrated: !isCurrent)
        } catch let error as CacheFailure {
            throw error
        } catch {
            let failure = classify(error, path: path)
            guard failure.reason == .unwritable || failure.reason == .unavailable else { throw failure }
            return try openReadOnly(path: path, because: failure)
        }
    }

    /// Accepts an empty file, or one that reader made; refuses anything else as foreign or newer.
    /// Looks through a read-only connection first: opening another program's database as a pool
    /// would already change it (to WAL mode).
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
    private static func openReadOnly(path: String, because failure: CacheFailure) throws(CacheFailure) -> Admitted {
        do {
            guard FileManager.default.isReadableFile(atPath: path) else { throw failure }
            let queue = try openReadOnlyQueue(path)
            let isCurrent = try queue.read { db in try CacheSchema.isCurrent(db) }
            guard isCurrent else { throw failure }
            return Admitted(writer: queue, isReadOnly: true, migrated: false)
        } catch let error as CacheFailure {
            throw error
        } catch {
            throw CacheFailure(.unavailable, path: path, detail: failure.detail)
        }
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

    /// Moves a damaged cache aside, with its -wal and -shm files, as `PATH.corrupt-TIMESTAMP`:
    /// never deleted, so what it held can still be recovered by hand.
    /// - Returns: the path the file was moved to.
    static func moveAside(path: String, now: Date) throws(CacheFailure) -> String {
        let stamp = OutsideNumbers.wholeSeconds(now.timeIntervalSince1970)  // a clock injected by a library user may say anything
        var destination = "\(path).corrupt-\(stamp)"
        var suffix = 1
        while FileManager.default.fileExists(atPath: destination) {
            destination = "\(path).corrupt-\(stamp)-\(suffix)"
            suffix += 1
        }
        do {
            try FileManager.default.moveItem(atPath: path, toPath: destination)
            for sidecar in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + sidecar) {
                try? FileManager.default.moveItem(atPath: path + sidecar, toPath: destination + sidecar)
            }
        } catch {
            throw CacheFailure(.unavailable, path: path, detail: "cannot move the damaged file aside: \(error)")
        }
        return destination
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
            case .SQLITE_ERROR where detail.contains("no such table") || detail.contains("no such column"):
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
