import Foundation
import GRDB

/// When the user last opened something, and how many items it had then: what "new since you
/// were last here" is measured against (a post's comments created after ``openedAt``, and
/// ``itemCount`` against the count a list shows now).
public struct Visit: Sendable, Equatable {
    /// When it was opened.
    public var openedAt: Date
    /// How many items it had then (a post's comments), when the opener said.
    public var itemCount: Int?

    public init(openedAt: Date, itemCount: Int? = nil) {
        self.openedAt = openedAt
        self.itemCount = itemCount
    }
}

/// The `visit` table: one row a resource (by the cache's key of its URL), the last time it was
/// opened. Rows are read as untrusted: a time no calendar shows is no visit, a count that is not a
/// whole number in ``OutsideNumbers/count`` is unknown.
enum VisitTable {
    static let name = "visit"

    static func create(_ db: Database) throws {
        try db.create(table: name) { table in
            table.primaryKey("key", .text)
            table.column("api", .text).notNull()
            table.column("openedAt", .datetime).notNull()
            table.column("itemCount", .integer)
        }
    }

    /// The last visit to each of `keys` that has one.
    static func visits(toKeys keys: [String], _ db: Database) throws -> [String: Visit] {
        var found: [String: Visit] = [:]
        // SQLite binds at most 32766 values a statement; a screen asks for far fewer, in slices anyway.
        for start in stride(from: 0, to: keys.count, by: 500) {
            let slice = Array(keys[start..<min(start + 500, keys.count)])
            let marks = Array(repeating: "?", count: slice.count).joined(separator: ", ")
            let bound = OutsideNumbers.count.upperBound
            let rows = try Row.fetchAll(db, sql: """
                SELECT key, openedAt,
                       CASE WHEN typeof(itemCount) = 'integer' AND itemCount BETWEEN 0 AND \(bound) THEN itemCount END AS itemCount
                FROM visit WHERE key IN (\(marks)) AND typeof(key) = 'text'
                """, arguments: StatementArguments(slice))
            for row in rows {
                guard let key = row["key"] as String?, let openedAt = StoredDate.date(row["openedAt"] as DatabaseValue),
                      OutsideNumbers.isPlausible(openedAt) else { continue }
                found[key] = Visit(openedAt: openedAt, itemCount: row["itemCount"] as Int?)
            }
        }
        return found
    }

    /// Records `visit` as the last to `key`, of `service`.
    static func record(_ visit: Visit, toKey key: String, service: ServiceName, _ db: Database) throws {
        let count = visit.itemCount.map { min(max($0, 0), OutsideNumbers.count.upperBound) }
        try db.execute(sql: """
            INSERT INTO visit (key, api, openedAt, itemCount) VALUES (?, ?, ?, ?)
            ON CONFLICT(key) DO UPDATE SET api = excluded.api, openedAt = excluded.openedAt, itemCount = excluded.itemCount
            """, arguments: [key, service.rawValue, StoredDate.databaseValue(visit.openedAt), count])
    }

    /// Adds to `statistics` each service that has visits and nothing else in the file (no
    /// entry, no use counted): a service the cache knows, whose visits `cache clear --service` forgets.
    static func addServices(to statistics: inout CacheStatistics, _ db: Database) throws {
        guard try db.tableExists(name) else { return }
        for text in try String.fetchAll(db, sql: "SELECT DISTINCT api FROM visit WHERE typeof(api) = 'text'") {
            guard let service = ServiceName(rawValue: text), statistics.services[service] == nil else { continue }
            statistics.services[service] = .init()
        }
    }

    /// Forgets the visits of `service`, or every visit.
    static func forget(service: ServiceName?, _ db: Database) throws {
        // A file whose table another program dropped still clears: nothing to forget there.
        guard try db.tableExists(name) else { return }
        if let service {
            try db.execute(sql: "DELETE FROM visit WHERE api = ?", arguments: [service.rawValue])
        } else {
            try db.execute(sql: "DELETE FROM visit")
        }
    }
}
