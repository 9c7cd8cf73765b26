import Foundation
import GRDB

/// The entries of the cache file (table `response`), as SQL on one connection: what a
/// ``ResponseCache`` runs inside its reads and writes.
///
/// Rows are read as untrusted: a row that does not read as an entry, or cannot be right, is
/// reported as a damaged entry; sizes are summed as the bodies' real lengths in floating point and
/// dates read only when they are dates, so that no value a damaged file holds can overflow a sum
/// or fail the very command meant to repair the file.
enum CacheEntryTable {
    /// The entry stored under `key`, if any.
    /// - Throws: ``CacheFailure/Reason/damagedEntry`` when the row does not read as an entry or
    ///   cannot be right (``CacheEntry/damage``).
    static func entry(forKey key: String, path: String, _ db: Database) throws -> CacheEntry? {
        // The SQL `CacheEntry.filter(key:)` makes, through a cached statement: the query interface
        // would look the primary key up in the schema and write the SQL again on every read.
        let statement = try db.cachedStatement(sql: "SELECT * FROM response WHERE key = ? LIMIT 1")
        guard let row = try Row.fetchOne(statement, arguments: [key]) else { return nil }
        let entry: CacheEntry
        if let stored = CacheEntry(storedRow: row) {
            entry = stored
        } else {
            do { entry = try CacheEntry(row: row) } catch {
                // GRDB's own text quotes the row: say which column, never what it holds.
                let text = "\(error)"
                let column = (["api", "key", "url", "status", "body", "fetchedAt", "lastUsedAt", "bodySize", "requestedAt"]
                              + CacheEntry.optionalTextColumns).first { text.contains("column: \"\($0)\"") }
                throw CacheFailure(.damagedEntry, path: path, detail: "the entry holds a value no entry can have" + (column.map { " (its \($0) column)" } ?? ""))
            }
        }
        if let damage = entry.damage { throw CacheFailure(.damagedEntry, path: path, detail: damage) }
        return entry
    }

    /// Stores `entry`, replacing any entry with the same key, then evicts the least recently used
    /// entries until the bodies fit in `sizeLimit` bytes.
    /// - Returns: how many other entries were evicted.
    static func store(_ entry: CacheEntry, sizeLimit: Int?, _ db: Database) throws -> Int {
        // The SQL `entry.upsert(db)` makes (every column but the key overwritten on a conflict),
        // with the values its encoding gives and dates as GRDB writes them. Not a cached
        // statement: GRDB's statement keeps the arguments it last ran with, and the body would
        // stay in memory as long as the connection (a library user's app) lives.
        try db.makeStatement(sql: """
            INSERT INTO response (key, api, url, status, body, contentType, etag, lastModified, cacheControl, fetchedAt, lastUsedAt, bodySize,
                                  dateHeader, expiresHeader, ageHeader, varyHeader, varyRequest, requestedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT DO UPDATE SET api = excluded.api, url = excluded.url, status = excluded.status, body = excluded.body,
                contentType = excluded.contentType, etag = excluded.etag, lastModified = excluded.lastModified,
                cacheControl = excluded.cacheControl, fetchedAt = excluded.fetchedAt, lastUsedAt = excluded.lastUsedAt,
                bodySize = excluded.bodySize, dateHeader = excluded.dateHeader, expiresHeader = excluded.expiresHeader,
                ageHeader = excluded.ageHeader, varyHeader = excluded.varyHeader, varyRequest = excluded.varyRequest,
                requestedAt = excluded.requestedAt
            """).execute(arguments: [entry.key, entry.service.rawValue, entry.url, entry.status, entry.body, entry.contentType, entry.etag,
                                     entry.lastModified, entry.cacheControl, StoredDate.databaseValue(entry.fetchedAt),
                                     StoredDate.databaseValue(entry.lastUsedAt), entry.bodySize, entry.date, entry.expires, entry.age,
                                     entry.vary, entry.varyRequest, entry.requestedAt.map(StoredDate.databaseValue) ?? .null])
        guard let sizeLimit else { return 0 }
        return try evict(toFit: sizeLimit, keeping: entry.key, db)
    }

    /// Deletes least recently used entries (never `keeping`) until the bodies total `limit` bytes or less.
    /// The sizes are summed as the bodies' real lengths in floating point (TOTAL, not SUM): a
    /// damaged row's size near Int64.max can neither overflow the sum nor make every store fail.
    private static func evict(toFit limit: Int, keeping key: String, _ db: Database) throws -> Int {
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

    /// Marks the entry under `key` as just used, for the least-recently-used eviction.
    static func markUsed(key: String, at now: Date, _ db: Database) throws {
        // The SQL `updateAll` makes, through a cached statement, with the date as GRDB writes it.
        try db.cachedStatement(sql: "UPDATE response SET lastUsedAt = ? WHERE key = ?")
            .execute(arguments: [StoredDate.databaseValue(now), key])
    }

    /// Marks the entry under `key` as confirmed unchanged at `now`, with what a `304` said
    /// (``CacheEntry/Confirmation``).
    /// - Returns: the updated entry, or nil when there is none.
    static func markRevalidated(key: String, at now: Date, by confirmation: CacheEntry.Confirmation, _ db: Database) throws -> CacheEntry? {
        let statement = try db.cachedStatement(sql: "SELECT * FROM response WHERE key = ? LIMIT 1")
        guard let row = try Row.fetchOne(statement, arguments: [key]) else { return nil }
        guard var entry = CacheEntry(storedRow: row) else {
            // A row of another shape: GRDB's decoding reads it (or fails) and its update writes it back, as always.
            guard var entry = try CacheEntry.fetchOne(db, key: key) else { return nil }
            entry.confirm(at: now, by: confirmation)
            try entry.update(db)
            return entry
        }
        entry.confirm(at: now, by: confirmation)
        // The other columns hold what `entry.update(db)` would write back into them: only these change.
        try db.cachedStatement(sql: """
            UPDATE response SET fetchedAt = ?, lastUsedAt = ?, etag = ?, lastModified = ?, cacheControl = ?, expiresHeader = ?,
                dateHeader = ?, ageHeader = ?, requestedAt = ? WHERE key = ?
            """).execute(arguments: [StoredDate.databaseValue(entry.fetchedAt), StoredDate.databaseValue(entry.lastUsedAt), entry.etag,
                                     entry.lastModified, entry.cacheControl, entry.expires, entry.date, entry.age,
                                     entry.requestedAt.map(StoredDate.databaseValue) ?? .null, key])
        return entry
    }

    /// Deletes the entry stored under `key`; nothing happens when there is none.
    static func delete(key: String, _ db: Database) throws {
        _ = try CacheEntry.deleteOne(db, key: key)
    }

    /// Which entries a removal takes: SQL, so that no row is decoded and a row with absurd values
    /// goes like any other.
    struct Selection: Sendable {
        /// The SQL condition; nil for every entry.
        var condition: String?
        var arguments: StatementArguments

        static let all = Selection(condition: nil, arguments: [])

        /// The entries of `service`, or every entry.
        static func service(_ service: ServiceName?) -> Selection {
            guard let service else { return .all }
            return Selection(condition: "api = ?", arguments: [service.rawValue])
        }

        /// The entries fetched before `date` or after `now` (optionally of one service), and
        /// those whose fetch time cannot be read: no reader serves them, and a fetch time in the
        /// future (stored while the clock ran ahead) is not trusted.
        static func fetched(before date: Date, orAfter now: Date, service: ServiceName?) -> Selection {
            var selection = Selection(condition: """
                (\(readableDate("fetchedAt")) IS NULL OR julianday(fetchedAt) < julianday(?) OR julianday(fetchedAt) > julianday(?))
                """, arguments: [date, now])
            if let service {
                selection.condition? += " AND api = ?"
                selection.arguments += [service.rawValue]
            }
            return selection
        }
    }

    /// Deletes the entries `selection` takes.
    /// - Returns: how many entries and body bytes were removed.
    static func remove(_ selection: Selection, _ db: Database) throws -> CacheRemoval {
        let filter = selection.condition.map { " WHERE \($0)" } ?? ""
        // The bodies' real lengths, summed by TOTAL() as a float: SUM() of a damaged bodySize
        // overflows and would fail the very command meant to repair the file.
        let bytes = try Double.fetchOne(db, sql: "SELECT TOTAL(length(body)) FROM response\(filter)", arguments: selection.arguments) ?? 0
        try db.execute(sql: "DELETE FROM response\(filter)", arguments: selection.arguments)
        return CacheRemoval(entries: db.changesCount, bytes: byteCount(bytes))
    }

    /// Every entry (of `service`, when given) without its body, which a listing does not need,
    /// with its body's size, by service and URL: each row ``entry(forKey:path:_:)`` serves, read
    /// as it reads them (a row in reader's shape, else one the Codable decoding reads, such as a
    /// date stored as a number); a row it refuses as damaged is left out.
    static func listing(service: ServiceName?, _ db: Database) throws -> [(entry: CacheEntry, bytes: Int)] {
        let columns = ["key", "api", "url", "status", "fetchedAt", "lastUsedAt", "requestedAt"] + CacheEntry.optionalTextColumns
        let filter = service == nil ? "" : " WHERE api = ?"
        let rows = try Row.fetchCursor(db, sql: """
            SELECT \(columns.joined(separator: ", ")), X'' AS body, 0 AS bodySize, length(body) AS bytes FROM response\(filter) ORDER BY api, url
            """, arguments: StatementArguments(service.map { [$0.rawValue] } ?? []))
        var listing: [(entry: CacheEntry, bytes: Int)] = []
        while let row = try rows.next() {
            // The body is left out: `bytes` is its length (bodySize 0 with no body, so that `damage` judges the rest).
            guard let entry = CacheEntry(storedRow: row) ?? (try? CacheEntry(row: row)), entry.damage == nil,
                  case .int64(let bytes) = (row["bytes"] as DatabaseValue).storage, let bytes = Int(exactly: bytes) else { continue }
            listing.append((entry, bytes))
        }
        return listing
    }

    /// How many entries there are.
    static func count(_ db: Database) throws -> Int {
        try CacheEntry.fetchCount(db)
    }

    /// What the file holds: when it was created, and per service its entries, their bytes and
    /// their oldest and newest fetch. Each value comes out of SQL in a shape that decodes whatever
    /// a row holds: sizes are the bodies' real lengths summed by TOTAL() (SUM() of a damaged
    /// bodySize overflows), dates only readable ones, services only text.
    static func statistics(path: String, _ db: Database) throws -> CacheStatistics {
        let created = try DatabaseValue.fetchOne(db, sql: "SELECT \(readableDate("createdAt")) FROM cacheInfo")
        var statistics = CacheStatistics(path: path, createdAt: created.flatMap(Date.fromDatabaseValue))
        let rows = try Row.fetchAll(db, sql: """
            SELECT api, COUNT(*) AS entries, TOTAL(length(body)) AS bytes,
                   MIN(\(readableDate("fetchedAt"))) AS oldest, MAX(\(readableDate("fetchedAt"))) AS newest
            FROM response WHERE typeof(api) = 'text' GROUP BY api
            """)
        for row in rows {
            guard let service = ServiceName(rawValue: row["api"]) else { continue }
            statistics.services[service, default: .init()].entries = row["entries"]
            statistics.services[service, default: .init()].bytes = byteCount(row["bytes"])
            statistics.services[service, default: .init()].oldest = Date.fromDatabaseValue(row["oldest"])
            statistics.services[service, default: .init()].newest = Date.fromDatabaseValue(row["newest"])
        }
        return statistics
    }

    /// SQL for `column` when it holds a date as GRDB stores it (text that SQLite reads as a date
    /// between the years 0 and 9999), else NULL: a number such as 1e300, garbage or `now` is not one.
    private static func readableDate(_ column: String) -> String {
        "CASE WHEN typeof(\(column)) = 'text' AND \(column) GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*' AND julianday(\(column)) IS NOT NULL THEN \(column) END"
    }

    /// A byte count SQLite summed as a float, as an Int (`Int.max` past it).
    private static func byteCount(_ total: Double) -> Int {
        guard total.isFinite, total > 0 else { return 0 }
        return Int(exactly: total.rounded()) ?? Int.max
    }
}
