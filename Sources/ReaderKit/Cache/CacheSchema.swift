import Foundation
import GRDB

/// The cache file's schema: its named migrations and the mark that says the file is reader's.
///
/// Each migration runs once per file, in order, so a newer reader opens an older cache and keeps
/// what it holds; a migration is never edited once released. A file a newer reader migrated is
/// refused (as damaged, so it is moved aside rather than written into).
enum CacheSchema {
    /// Marks the file as reader's (`PRAGMA application_id`, "RDRC"), so that another program's
    /// database at the cache path is recognised and moved aside instead of being written into.
    static let applicationID: Int32 = 0x5244_5243

    /// The schema's history.
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
        // v4: what RFC 9111 judges a stored response by (its Date, Expires, Age and Vary, what the
        // request held in the fields Vary names, and when the request was sent). An older entry
        // has none of them, and is judged by what it kept.
        migrator.registerMigration("v4") { db in
            try db.alter(table: CacheEntry.databaseTableName) { table in
                for column in ["dateHeader", "expiresHeader", "ageHeader", "varyHeader", "varyRequest"] { table.add(column: column, .text) }
                table.add(column: "requestedAt", .datetime)
            }
        }
        // v5: when each resource was last opened (VisitTable), for "new since you were last here".
        migrator.registerMigration("v5") { db in
            try VisitTable.create(db)
        }
        // v6: the origins read by their service's other route since they answered with a block
        // page (DetourTable).
        migrator.registerMigration("v6") { db in
            try DetourTable.create(db)
        }
        return migrator
    }

    /// Whether every migration this reader knows has run on the file.
    static func isCurrent(_ db: Database) throws -> Bool {
        try migrator.hasCompletedMigrations(db)
    }

    /// The migrations this reader knows, by identifier.
    private static let knownMigrations = Set(migrator.migrations)

    /// As ``isCurrent(_:)``, refusing first a newer reader's file when `refusingSuperseded`
    /// (``refuseIfSuperseded(_:path:)``), in one look at the migrations table through a cached
    /// statement. A table that cannot be read so (missing, or holding other than text) is judged
    /// by the migrator itself, as before.
    static func isCurrent(_ db: Database, path: String, refusingSuperseded: Bool) throws -> Bool {
        guard let applied = try? appliedMigrations(db) else {
            if refusingSuperseded { try refuseIfSuperseded(db, path: path) }
            return try isCurrent(db)
        }
        // The migrator's own words for a newer reader's file.
        if refusingSuperseded, !applied.isSubset(of: knownMigrations) { try refuseIfSuperseded(db, path: path) }
        return knownMigrations.isSubset(of: applied)
    }

    /// The identifiers in the migrations table, when each is text; nil otherwise.
    private static func appliedMigrations(_ db: Database) throws -> Set<String>? {
        var applied = Set<String>()
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT identifier FROM grdb_migrations")) {
            guard let value = row.databaseValues.first, case .string(let identifier) = value.storage else { return nil }
            applied.insert(identifier)
        }
        return applied
    }

    /// Refuses a file a newer reader has migrated: its schema is not one this reader knows.
    /// - Throws: ``CacheFailure`` `corrupt` whose underlying error is ``CacheFailure/NewerSchema``,
    ///   naming the migrations this reader does not know.
    static func refuseIfSuperseded(_ db: Database, path: String) throws {
        if try migrator.hasBeenSuperseded(db) {
            let unknown = try migrator.appliedIdentifiers(db).subtracting(knownMigrations).sorted()
            throw CacheFailure(CacheFailure.NewerSchema(unknownMigrations: unknown), path: path)
        }
    }

    /// Refuses anything but an empty file or one that reader made (an older reader did not set
    /// the application id, but its tables say whose it is): another program's database, or a
    /// newer reader's.
    static func refuseIfNotReaders(_ db: Database, path: String) throws {
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

    /// Puts a new (or older reader's) file in WAL mode, which the file keeps: readers in other
    /// processes go on while this one writes.
    /// - Throws: when SQLite cannot switch the file to WAL mode.
    static func useWriteAheadLog(_ writer: any DatabaseWriter) throws {
        let mode = try writer.writeWithoutTransaction { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        }
        guard mode?.lowercased() == "wal" else {
            throw DatabaseError(resultCode: .SQLITE_CANTOPEN, message: "could not use WAL mode (journal mode \(mode ?? "unknown"))")
        }
    }

    /// Marks a new (or older reader's) file as reader's.
    static func claim(_ writer: any DatabaseWriter) throws {
        try writer.writeWithoutTransaction { db in
            if try Int32.fetchOne(db, sql: "PRAGMA application_id") != applicationID {
                try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            }
        }
    }

    /// Runs the migrations. Two processes that open a new cache at once may both try: the loser's
    /// migration fails on what the winner made, and is fine as long as the schema is now complete.
    static func migrate(_ writer: any DatabaseWriter) throws {
        do {
            try migrator.migrate(writer)
        } catch {
            guard try writer.read(migrator.hasCompletedMigrations) else { throw error }
        }
    }
}
