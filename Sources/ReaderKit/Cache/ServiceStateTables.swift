import Foundation
import GRDB

/// What the cache file keeps per service besides its entries: the usage counters of
/// `reader cache stats` (table `usage`) and the rate limits last announced (table `rateLimit`).
/// The service's column keeps its first name, `api`.
///
/// The rows are read as untrusted: a counter another program left as text or near Int64.max, or
/// a rate limit whose instants no calendar shows, is read as nothing rather than computed with.
enum ServiceStateTables {
    /// Counts one load of `service` (`use`), starting a damaged counter again from one.
    static func count(_ use: CacheUse, of service: ServiceName, _ db: Database) throws {
        let column = switch use { case .hit: "hits"; case .miss: "misses"; case .revalidation: "revalidations" }
        // A counter another program left as text, a negative or near Int64.max (where SQLite
        // would turn the sum into a float) starts again from one.
        try db.cachedStatement(sql: """
            INSERT INTO usage (api, \(column)) VALUES (?, 1)
            ON CONFLICT(api) DO UPDATE SET \(column) =
                CASE WHEN typeof(\(column)) = 'integer' AND \(column) BETWEEN 0 AND 999999999999999 THEN \(column) + 1
                     ELSE 1 END
            """).execute(arguments: [service.rawValue])
    }

    /// Adds each service's counters to `statistics`; rows whose service is not text are skipped.
    static func addUsage(to statistics: inout CacheStatistics, _ db: Database) throws {
        let counters = ["hits", "misses", "revalidations"].map(boundedCounter).joined(separator: ", ")
        for row in try Row.fetchAll(db, sql: "SELECT api, \(counters) FROM usage WHERE typeof(api) = 'text'") {
            guard let service = ServiceName(rawValue: row["api"]) else { continue }
            statistics.services[service, default: .init()].hits = row["hits"]
            statistics.services[service, default: .init()].misses = row["misses"]
            statistics.services[service, default: .init()].revalidations = row["revalidations"]
        }
    }

    /// SQL for the usage counter `column` as a whole number from 0 to 10^15, named after it:
    /// sums of a few of them cannot overflow.
    private static func boundedCounter(_ column: String) -> String {
        "CASE WHEN typeof(\(column)) = 'integer' THEN MIN(MAX(\(column), 0), 1000000000000000) ELSE 0 END AS \(column)"
    }

    /// The rate limits remembered for `service` at `origin` (nil and nil: every one, by host). A
    /// row that cannot be right (a damaged file's) is as good as none: a lock-out is never read
    /// from nonsense.
    static func rateLimits(ofOrigin origin: String? = nil, service: ServiceName? = nil, _ db: Database) throws -> [RateLimitState] {
        var request = RateLimitState.order(Column("host"))
        if let origin { request = request.filter(Column("host") == origin.lowercased()) }
        if let service { request = request.filter(Column("api") == service.rawValue) }
        return try Row.fetchAll(db, request).compactMap { row in
            guard let state = try? RateLimitState(row: row), state.isPlausible else { return nil }
            return state
        }
    }

    /// Remembers the rate limit a server announced, for the next `reader` run.
    static func store(_ state: RateLimitState, _ db: Database) throws {
        try state.upsert(db)
    }

    /// Forgets the rate limits of `service`, or of every service: clearing the cache forgets a
    /// lock-out too, so that a script is never stuck.
    static func forgetRateLimits(of service: ServiceName?, _ db: Database) throws {
        if let service {
            try db.execute(sql: "DELETE FROM rateLimit WHERE api = ?", arguments: [service.rawValue])
        } else {
            try db.execute(sql: "DELETE FROM rateLimit")
        }
    }
}
