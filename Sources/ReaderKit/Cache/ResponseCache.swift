import Foundation
import GRDB
import GRDBSQLite
import CReaderSQLite

/// The SQLite cache of responses: one file in WAL mode, readable by many `reader` processes at once.
///
/// Modelled on GRDB's demo `AppDatabase`: a Sendable value around a database writer, with named
/// migrations run when it opens. The file is made with mode 0600 in a folder with mode 0700.
///
/// ## Topics
/// - ``open(path:)``
/// - ``entry(forKey:)``
/// - ``store(_:sizeLimit:)``
/// - ``recordUse(_:service:key:at:)``
/// - ``markRevalidated(key:at:etag:lastModified:cacheControl:)``
/// - ``deleteEntry(forKey:)``
/// - ``clear(service:)``
/// - ``prune(fetchedBefore:service:)``
/// - ``statistics()``
/// - ``moveAside(path:now:)``
public struct ResponseCache: Sendable {
    let writer: any DatabaseWriter
    /// Whether this process changed what the cache holds (not just its usage counters), so that
    /// ``finishWrites()`` copies the log into the file.
    private let contentChanged = ChangeFlag()
    /// The file's path.
    public let path: String
    /// Whether the file could only be opened for reading; writes then fail with `unwritable`.
    public let isReadOnly: Bool
    /// Where the file and its -wal really are: SQLite puts the log beside a symbolic link's target.
    private var resolvedPath: String { Self.realPath(path) }

    /// Marks the file as reader's (`PRAGMA application_id`, "RDRC"), so that another program's
    /// database at the cache path is recognised and moved aside instead of being written into.
    public static let applicationID: Int32 = 0x5244_5243

    /// Opens (or creates) the cache at `path`, migrating an older schema to the current one.
    /// - Throws: ``CacheFailure`` `corrupt` for a damaged file, another program's database or a
    ///   newer reader's schema; `unavailable` when it cannot be opened at all. A file that opens
    ///   only for reading is returned with `isReadOnly`.
    public static func open(path: String) throws(CacheFailure) -> ResponseCache {
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
                // read. ``finishWrites()`` does it instead, when this process stored something.
                _ = reader_sqlite3_keep_wal_on_close(db.sqliteConnection)
            }
            // The common case, a file reader made in WAL mode, is recognised from its header:
            // no inspecting connection, no claim, and no migration when none is due.
            let isReaders = Self.headerSaysReaders(path)
            if !isReaders { try inspect(path) }
            keepPrivate(path)
            let pool = try DatabasePool(path: path, configuration: configuration)
            if !isReaders { try claim(pool) }
            let isCurrent = try pool.read { db in
                // inspect(_:) has refused a newer reader's file already, unless it was skipped.
                if isReaders { try refuseIfSuperseded(db, path: path) }
                return try migrator.hasCompletedMigrations(db)
            }
            let cache = ResponseCache(writer: pool, path: path, isReadOnly: false)
            if !isCurrent {
                try migrate(pool)
                cache.contentChanged.set()
            }
            return cache
        } catch let error as CacheFailure {
            throw error
        } catch {
            let failure = classify(error, path: path)
            guard failure.reason == .unwritable || failure.reason == .unavailable else { throw failure }
            return try openReadOnly(path: path, because: failure)
        }
    }

    /// Accepts an empty file, or one that reader made (an older reader did not set the
    /// application id, but its tables say whose it is); refuses anything else as foreign or newer.
    /// Looks through a read-only connection first: opening another program's database as a pool
    /// would already change it (to WAL mode).
    private static func inspect(_ path: String) throws {
        guard let size = fileSize(path), size > 0 else { return }
        let queue = try openReadOnlyQueue(path)
        defer { try? queue.close() }
        try queue.read { db in
            let id = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            if id == 0 {
                let tables = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
                guard tables.isEmpty || tables.isSuperset(of: ["grdb_migrations", CacheEntry.databaseTableName]) else {
                    throw CacheFailure(.corrupt, path: path, detail: "another program's database: tables \(tables.sorted())")
                }
            } else if id != applicationID {
                throw CacheFailure(.corrupt, path: path, detail: "another program's database: application_id \(id)")
            }
            try refuseIfSuperseded(db, path: path)
        }
    }

    /// Refuses a file a newer reader has migrated: its schema is not one this reader knows.
    private static func refuseIfSuperseded(_ db: Database, path: String) throws {
        if try migrator.hasBeenSuperseded(db) {
            throw CacheFailure(.corrupt, path: path, detail: "made by a newer reader: unknown migrations \(try migrator.appliedIdentifiers(db).sorted())")
        }
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
        return Int32(bitPattern: id) == applicationID
    }

    /// A connection that cannot change the file.
    private static func openReadOnlyQueue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Marks a new (or older reader's) file as reader's.
    private static func claim(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            if try Int32.fetchOne(db, sql: "PRAGMA application_id") != applicationID {
                try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            }
        }
    }

    /// Runs the migrations. Two processes that open a new cache at once may both try: the loser's
    /// migration fails on what the winner made, and is fine as long as the schema is now complete.
    private static func migrate(_ writer: any DatabaseWriter) throws {
        do {
            try migrator.migrate(writer)
        } catch {
            guard try writer.read(migrator.hasCompletedMigrations) else { throw error }
        }
    }

    /// A file or folder that cannot be written may still be read: the data in it is not lost.
    private static func openReadOnly(path: String, because failure: CacheFailure) throws(CacheFailure) -> ResponseCache {
        do {
            guard FileManager.default.isReadableFile(atPath: path) else { throw failure }
            let queue = try openReadOnlyQueue(path)
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

    /// The schema's history. Each migration runs once per file, in order, so a newer reader opens
    /// an older cache and keeps what it holds; a migration is never edited once released.
    static var migrator: DatabaseMigrator {
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
        // v2: least-recently-used eviction, usage counters for `reader cache stats`, and Reddit's
        // rate limit remembered between runs.
        migrator.registerMigration("v2") { db in
            try db.alter(table: CacheEntry.databaseTableName) { table in
                table.add(column: "lastUsedAt", .datetime)
                table.add(column: "bodySize", .integer).notNull().defaults(to: 0)
            }
            try db.execute(sql: "UPDATE response SET lastUsedAt = fetchedAt, bodySize = length(body)")
            try db.create(index: "response_on_lastUsedAt", on: CacheEntry.databaseTableName, columns: ["lastUsedAt"])
            try db.create(table: "usage") { table in
                table.primaryKey("api", .text)
                table.column("hits", .integer).notNull().defaults(to: 0)
                table.column("misses", .integer).notNull().defaults(to: 0)
                table.column("revalidations", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "cacheInfo") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("createdAt", .datetime).notNull()
            }
            // An older cache was created no later than its oldest entry.
            try db.execute(sql: "INSERT INTO cacheInfo (id, createdAt) SELECT 1, COALESCE(MIN(fetchedAt), ?) FROM response",
                           arguments: [Date()])
            try db.create(table: RateLimitState.databaseTableName) { table in
                table.primaryKey("api", .text)
                table.column("remaining", .double).notNull()
                table.column("resetAt", .datetime).notNull()
                table.column("observedAt", .datetime).notNull()
            }
        }
        // v3: rate limits per origin and API (Reddit's OAuth host and its public one count apart,
        // and so do two APIs behind one gateway). What a v2 file held is at most minutes old and
        // keyed by API alone: it is dropped, not carried over.
        migrator.registerMigration("v3") { db in
            try db.drop(table: RateLimitState.databaseTableName)
            try db.create(table: RateLimitState.databaseTableName) { table in
                table.column("host", .text).notNull()
                table.column("api", .text).notNull()
                table.primaryKey(["host", "api"])
                table.column("remaining", .double).notNull()
                table.column("resetAt", .datetime).notNull()
                table.column("observedAt", .datetime).notNull()
            }
        }
        return migrator
    }

    /// The entry stored under `key`, if any.
    /// - Throws: ``CacheFailure/Reason/damagedEntry`` when the row does not read as an entry or
    ///   cannot be right (``CacheEntry/damage``): the caller drops it; other failures as classified.
    public func entry(forKey key: String) throws(CacheFailure) -> CacheEntry? {
        guard let row = try run({ try writer.read { db in try Row.fetchOne(db, CacheEntry.filter(key: key)) } }) else { return nil }
        let entry: CacheEntry
        do { entry = try CacheEntry(row: row) } catch {
            throw CacheFailure(.damagedEntry, path: path, detail: "the entry does not read: \(error)")
        }
        if let damage = entry.damage { throw CacheFailure(.damagedEntry, path: path, detail: damage) }
        return entry
    }

    /// Stores `entry`, replacing any entry with the same key, then evicts the least recently used
    /// entries until the bodies fit in `sizeLimit` bytes. All in one short transaction.
    /// - Returns: how many other entries were evicted. An entry larger than the whole limit is not
    ///   stored (nothing is evicted for it) and the result is nil.
    @discardableResult
    public func store(_ entry: CacheEntry, sizeLimit: Int? = nil) throws(CacheFailure) -> Int? {
        try checkWritable()
        if let sizeLimit, entry.bodySize > sizeLimit { return nil }
        contentChanged.set()
        return try run {
            try writer.write { db in
                try entry.upsert(db)
                guard let sizeLimit else { return 0 }
                return try Self.evict(db, toFit: sizeLimit, keeping: entry.key)
            }
        }
    }

    /// Deletes least recently used entries (never `keeping`) until the bodies total `limit` bytes or less.
    /// The sizes are summed as the bodies' real lengths in floating point (TOTAL, not SUM): a
    /// damaged row's size near Int64.max can neither overflow the sum nor make every store fail.
    private static func evict(_ db: Database, toFit limit: Int, keeping key: String) throws -> Int {
        var total = try Double.fetchOne(db, sql: "SELECT TOTAL(length(body)) FROM response") ?? 0
        guard total > Double(limit) else { return 0 }
        // By rowid: a damaged row's key may not even be text, and it must still be evictable.
        let candidates = try Row.fetchCursor(db, sql: "SELECT rowid, length(body) FROM response WHERE key IS NOT ? ORDER BY lastUsedAt ASC",
                                             arguments: [key])
        var victims: [Int64] = []
        while total > Double(limit), let row = try candidates.next() {
            victims.append(try row.decode(Int64.self, atIndex: 0))
            total -= Double(try row.decode(Int64?.self, atIndex: 1) ?? 0)
        }
        for victim in victims { try db.execute(sql: "DELETE FROM response WHERE rowid = ?", arguments: [victim]) }
        return victims.count
    }

    /// Records that a load was answered, for `reader cache stats`, and marks the entry as just used.
    /// - Parameters:
    ///   - use: whether the cache answered, the network did, or a `304` confirmed the copy.
    ///   - service: the service the load was for: its statistics count the use.
    ///   - key: the entry used, if one was.
    ///   - now: when; the entry's last use, which eviction goes by.
    public func recordUse(_ use: CacheUse, service: ServiceName, key: String?, at now: Date) throws(CacheFailure) {
        try checkWritable()
        try run {
            try writer.write { db in
                if let key, use != .miss {
                    try CacheEntry.filter(key: key).updateAll(db, CacheEntry.Columns.lastUsedAt.set(to: now))
                }
                let column = switch use { case .hit: "hits"; case .miss: "misses"; case .revalidation: "revalidations" }
                // A counter another program left as text, a negative or near Int64.max (where
                // SQLite would turn the sum into a float) starts again from one.
                try db.execute(sql: """
                    INSERT INTO usage (api, \(column)) VALUES (?, 1)
                    ON CONFLICT(api) DO UPDATE SET \(column) =
                        CASE WHEN typeof(\(column)) = 'integer' AND \(column) BETWEEN 0 AND 999999999999999 THEN \(column) + 1
                             ELSE 1 END
                    """, arguments: [service.rawValue])
            }
        }
    }

    /// Marks the entry under `key` as confirmed unchanged at `now` (a `304 Not Modified`), taking
    /// the validators and `Cache-Control` the `304` sent, when it sent them.
    /// - Returns: the updated entry, or nil when there is none.
    @discardableResult
    public func markRevalidated(key: String, at now: Date, etag: String?, lastModified: String?,
                                cacheControl: String?) throws(CacheFailure) -> CacheEntry? {
        try checkWritable()
        return try run {
            try writer.write { db in
                guard var entry = try CacheEntry.fetchOne(db, key: key) else { return nil }
                entry.fetchedAt = now
                entry.lastUsedAt = now
                entry.etag = etag ?? entry.etag
                entry.lastModified = lastModified ?? entry.lastModified
                entry.cacheControl = cacheControl ?? entry.cacheControl
                try entry.update(db)
                return entry
            }
        }
    }

    /// Deletes the entry stored under `key`; nothing happens when there is none.
    public func deleteEntry(forKey key: String) throws(CacheFailure) {
        try checkWritable()
        contentChanged.set()
        _ = try run { try writer.write { db in try CacheEntry.deleteOne(db, key: key) } }
    }

    /// Deletes every entry, or those of one API, and gives the space back to the file system.
    /// Rows whose values are damaged go too: nothing is decoded.
    /// - Returns: how many entries and body bytes were removed.
    public func clear(service: ServiceName? = nil) throws(CacheFailure) -> CacheRemoval {
        // A lock-out is state of the same kind: clearing forgets it, so a script is never stuck.
        try run {
            try writer.write { db in
                if let service {
                    try db.execute(sql: "DELETE FROM rateLimit WHERE api = ?", arguments: [service.rawValue])
                } else {
                    try db.execute(sql: "DELETE FROM rateLimit")
                }
            }
        }
        guard let service else { return try remove(where: nil, arguments: []) }
        return try remove(where: "api = ?", arguments: [service.rawValue])
    }

    /// Deletes the entries fetched before `date` (optionally of one API), and those whose fetch
    /// time cannot be read (no reader serves them), and gives the space back.
    public func prune(fetchedBefore date: Date, service: ServiceName? = nil) throws(CacheFailure) -> CacheRemoval {
        var condition = "(\(Self.readableDate("fetchedAt")) IS NULL OR julianday(fetchedAt) < julianday(?))"
        var arguments: StatementArguments = [date]
        if let service {
            condition += " AND api = ?"
            arguments += [service.rawValue]
        }
        return try remove(where: condition, arguments: arguments)
    }

    /// Deletes the entries matching the SQL `condition` (all when nil), in plain SQL: no row is
    /// decoded, so a row with absurd values goes like any other.
    private func remove(where condition: String?, arguments: StatementArguments) throws(CacheFailure) -> CacheRemoval {
        try checkWritable()
        contentChanged.set()
        let filter = condition.map { " WHERE \($0)" } ?? ""
        let removal = try run {
            try writer.write { db in
                // The bodies' real lengths, summed by TOTAL() as a float: SUM() of a damaged
                // bodySize overflows and would fail the very command meant to repair the file.
                let bytes = try Double.fetchOne(db, sql: "SELECT TOTAL(length(body)) FROM response\(filter)", arguments: arguments) ?? 0
                try db.execute(sql: "DELETE FROM response\(filter)", arguments: arguments)
                return CacheRemoval(entries: db.changesCount, bytes: Self.byteCount(bytes))
            }
        }
        // VACUUM cannot run inside a transaction, and is worth it only when something went.
        if removal.entries > 0 { try run { try writer.vacuum() } }
        return removal
    }

    /// How many entries the cache holds.
    public func count() throws(CacheFailure) -> Int {
        try run { try writer.read { db in try CacheEntry.fetchCount(db) } }
    }

    /// What the cache holds, per API, and how it has been used since it was created.
    public func statistics() throws(CacheFailure) -> CacheStatistics {
        let path = self.path
        var statistics = try run {
            try writer.read { db in
                // Each value comes out of SQL in a shape that decodes whatever a row holds: sizes
                // are the bodies' real lengths summed by TOTAL() (SUM() of a damaged bodySize
                // overflows), dates only readable ones, counters bounded, APIs only text.
                let created = try DatabaseValue.fetchOne(db, sql: "SELECT \(Self.readableDate("createdAt")) FROM cacheInfo")
                var statistics = CacheStatistics(path: path, createdAt: created.flatMap(Date.fromDatabaseValue))
                let rows = try Row.fetchAll(db, sql: """
                    SELECT api, COUNT(*) AS entries, TOTAL(length(body)) AS bytes,
                           MIN(\(Self.readableDate("fetchedAt"))) AS oldest, MAX(\(Self.readableDate("fetchedAt"))) AS newest
                    FROM response WHERE typeof(api) = 'text' GROUP BY api
                    """)
                for row in rows {
                    guard let service = ServiceName(rawValue: row["api"]) else { continue }
                    statistics.services[service, default: .init()].entries = row["entries"]
                    statistics.services[service, default: .init()].bytes = Self.byteCount(row["bytes"])
                    statistics.services[service, default: .init()].oldest = Date.fromDatabaseValue(row["oldest"])
                    statistics.services[service, default: .init()].newest = Date.fromDatabaseValue(row["newest"])
                }
                let counters = ["hits", "misses", "revalidations"].map(Self.boundedCounter).joined(separator: ", ")
                for row in try Row.fetchAll(db, sql: "SELECT api, \(counters) FROM usage WHERE typeof(api) = 'text'") {
                    guard let service = ServiceName(rawValue: row["api"]) else { continue }
                    statistics.services[service, default: .init()].hits = row["hits"]
                    statistics.services[service, default: .init()].misses = row["misses"]
                    statistics.services[service, default: .init()].revalidations = row["revalidations"]
                }
                return statistics
            }
        }
        let resolvedPath = self.resolvedPath
        statistics.fileBytes = ["", "-wal"].reduce(0) { $0 + (Self.fileSize(resolvedPath + $1) ?? 0) }
        return statistics
    }

    /// SQL for `column` when it holds a date as GRDB stores it (text that SQLite reads as a date
    /// between the years 0 and 9999), else NULL: a number such as 1e300, garbage or `now` is not one.
    private static func readableDate(_ column: String) -> String {
        "CASE WHEN typeof(\(column)) = 'text' AND \(column) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND julianday(\(column)) IS NOT NULL THEN \(column) END"
    }

    /// SQL for the usage counter `column` as a whole number from 0 to 10^15, named after it:
    /// sums of a few of them cannot overflow.
    private static func boundedCounter(_ column: String) -> String {
        "CASE WHEN typeof(\(column)) = 'integer' THEN MIN(MAX(\(column), 0), 1000000000000000) ELSE 0 END AS \(column)"
    }

    /// A byte count SQLite summed as a float, as an Int (`Int.max` past it).
    private static func byteCount(_ total: Double) -> Int {
        guard total.isFinite, total > 0 else { return 0 }
        return Int(exactly: total.rounded()) ?? Int.max
    }

    /// The rate limit last seen for `api` at `origin` (`https://oauth.reddit.com`), if any. A row that cannot be right (a damaged file's)
    /// is as good as none: a lock-out is never read from nonsense.
    public func rateLimit(forOrigin origin: String, service: ServiceName) throws(CacheFailure) -> RateLimitState? {
        try rateLimits(matching: RateLimitState.filter(Column("host") == origin.lowercased() && Column("api") == service.rawValue)).first
    }

    /// Every rate limit remembered, for `reader status`; damaged rows are left out.
    public func rateLimits() throws(CacheFailure) -> [RateLimitState] {
        try rateLimits(matching: RateLimitState.order(Column("host")))
    }

    private func rateLimits(matching request: QueryInterfaceRequest<RateLimitState>) throws(CacheFailure) -> [RateLimitState] {
        let rows = try run { try writer.read { db in try Row.fetchAll(db, request) } }
        return rows.compactMap { row in
            guard let state = try? RateLimitState(row: row), state.isPlausible else { return nil }
            return state
        }
    }

    /// Remembers the rate limit the server announced, for the next `reader` run.
    public func storeRateLimit(_ state: RateLimitState) throws(CacheFailure) {
        try checkWritable()
        try run { try writer.write { db in try state.upsert(db) } }
    }

    /// Closes the file's connections, as before moving a damaged file aside; later calls fail.
    public func close() {
        finishWrites()
        try? writer.close()
    }

    /// Copies what this process stored from the write-ahead log into the file itself, so that the
    /// file alone (copied, backed up, its `-wal` lost) holds it. When only usage was recorded, a
    /// read leaves the file as it found it and pays no fsync, until the log passes
    /// ``logSizeBeforeCheckpoint``: each process that opens the cache reads the whole log once, so
    /// it is kept short. Without this call nothing is lost either: the log is part of the database.
    public func finishWrites() {
        guard !isReadOnly else { return }
        let logSize = Self.fileSize(resolvedPath + "-wal") ?? 0
        guard contentChanged.take() || logSize > Self.logSizeBeforeCheckpoint else { return }
        // TRUNCATE, not PASSIVE: the next process to open the cache rebuilds its index of the log
        // by reading all of it, so an emptied log is what keeps opening fast. It waits for other
        // processes' reads to end; briefly, since a busy cache is simply checkpointed next time.
        _ = try? writer.writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, 200)
            defer { sqlite3_busy_timeout(db.sqliteConnection, 10_000) }
            try db.checkpoint(.truncate)
        }
    }

    /// How long the write-ahead log may grow from reads alone (each records its use in about
    /// three pages) before ``finishWrites()`` checkpoints it: about twenty reads.
    public static let logSizeBeforeCheckpoint = 256 * 1024

    private func checkWritable() throws(CacheFailure) {
        guard !isReadOnly else { throw CacheFailure(.unwritable, path: path, detail: "the file opened read-only") }
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

/// A flag shared by the copies of a ``ResponseCache`` value.
private final class ChangeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }

    /// Whether it was set, clearing it.
    func take() -> Bool { lock.withLock { defer { value = false }; return value } }
}
