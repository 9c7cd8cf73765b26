import Foundation
import GRDB

/// The SQLite cache of responses: one file in WAL mode, readable by many `reader` processes at once.
///
/// Modelled on GRDB's demo `AppDatabase`: a Sendable value around a database writer, with named
/// migrations run when it opens. The file is made with mode 0600 in a folder with mode 0700.
///
/// ## Topics
/// - ``open(path:)``
/// - ``entry(forKey:)``
/// - ``store(_:)``
/// - ``deleteEntry(forKey:)``
/// - ``moveAside(path:now:)``
public struct ResponseCache: Sendable {
    private let writer: any DatabaseWriter
    /// The file's path.
    public let path: String
    /// Whether the file could only be opened for reading; writes then fail with `unwritable`.
    public let isReadOnly: Bool

    /// Opens (or creates) the cache at `path`.
    /// - Throws: ``CacheFailure`` `corrupt` for a damaged, foreign or newer file; `unavailable` when
    ///   it cannot be opened at all. A file that opens only for reading is returned with `isReadOnly`.
    public static func open(path: String) throws(CacheFailure) -> ResponseCache {
        do {
            try prepareLocation(path)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            configuration.label = "reader.cache"
            let pool = try DatabasePool(path: path, configuration: configuration)
            try migrator.migrate(pool)
            return ResponseCache(writer: pool, path: path, isReadOnly: false)
        } catch let error as CacheFailure {
            throw error
        } catch {
            let failure = classify(error, path: path)
            guard failure.reason == .unwritable || failure.reason == .unavailable else { throw failure }
            return try openReadOnly(path: path, because: failure)
        }
    }

    /// A file or folder that cannot be written may still be read: the data in it is not lost.
    private static func openReadOnly(path: String, because failure: CacheFailure) throws(CacheFailure) -> ResponseCache {
        do {
            guard FileManager.default.isReadableFile(atPath: path) else { throw failure }
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let isCurrent = try queue.read { db in try migrator.hasCompletedMigrations(db) }
            guard isCurrent else { throw failure }
            return ResponseCache(writer: queue, path: path, isReadOnly: true)
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
            let descriptor = Foundation.open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw CacheFailure(errno == EACCES || errno == EROFS ? .unwritable : .unavailable, path: path,
                                   detail: "cannot create the file: \(String(cString: strerror(errno)))")
            }
            close(descriptor)
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: CacheEntry.databaseTableName) { table in
                table.primaryKey("key", .text)
                table.column("api", .text).notNull()
                table.column("url", .text).notNull()
                table.column("status", .integer).notNull()
                table.column("body", .blob).notNull()
                table.column("contentType", .text)
                table.column("etag", .text)
                table.column("lastModified", .text)
                table.column("cacheControl", .text)
                table.column("fetchedAt", .datetime).notNull().indexed()
            }
        }
        return migrator
    }

    /// The entry stored under `key`, if any.
    public func entry(forKey key: String) throws(CacheFailure) -> CacheEntry? {
        try run { try writer.read { db in try CacheEntry.fetchOne(db, key: key) } }
    }

    /// Stores `entry`, replacing any entry with the same key.
    public func store(_ entry: CacheEntry) throws(CacheFailure) {
        guard !isReadOnly else { throw CacheFailure(.unwritable, path: path, detail: "the file opened read-only") }
        try run { try writer.write { db in try entry.upsert(db) } }
    }

    /// Deletes the entry stored under `key`; nothing happens when there is none.
    public func deleteEntry(forKey key: String) throws(CacheFailure) {
        guard !isReadOnly else { throw CacheFailure(.unwritable, path: path, detail: "the file opened read-only") }
        _ = try run { try writer.write { db in try CacheEntry.deleteOne(db, key: key) } }
    }

    /// How many entries the cache holds.
    public func count() throws(CacheFailure) -> Int {
        try run { try writer.read { db in try CacheEntry.fetchCount(db) } }
    }

    private func run<T>(_ body: () throws -> T) throws(CacheFailure) -> T {
        do { return try body() } catch { throw Self.classify(error, path: path) }
    }

    /// Moves a damaged cache aside, with its -wal and -shm files, as `PATH.corrupt-TIMESTAMP`:
    /// never deleted, so what it held can still be recovered by hand.
    /// - Returns: the path the file was moved to.
    @discardableResult
    public static func moveAside(path: String, now: Date = Date()) throws(CacheFailure) -> String {
        let stamp = Int(now.timeIntervalSince1970)
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

extension CacheFailure: Error {}
