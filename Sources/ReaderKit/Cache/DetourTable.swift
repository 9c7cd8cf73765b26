import Foundation
import GRDB

/// An origin read by its service's other route (``Service/detour(around:)``) since it answered
/// with its block page, until ``until``: `reader status` shows it, and a load goes the other way
/// at once.
public struct DetourState: Sendable, Equatable {
    /// The origin that turned the first route away (`https://www.reddit.com`).
    public var origin: String
    public var service: ServiceName
    /// When the block page came.
    public var observedAt: Date
    /// Until when the other route is taken at once.
    public var until: Date

    public init(origin: String, service: ServiceName, observedAt: Date, until: Date) {
        self.origin = origin
        self.service = service
        self.observedAt = observedAt
        self.until = until
    }

    /// Until when it holds, as it is enforced: never longer after the block page than the
    /// service's ``Service/detourMemory``, whatever a file says.
    public func enforcedUntil(memory: Duration) -> Date {
        min(until, observedAt.addingTimeInterval(memory.inSeconds))
    }

    /// Whether loads go the other way at `now`: remembered from a block page seen no later than
    /// now (a minute's leeway for clocks), and not over.
    public func isInForce(at now: Date, memory: Duration) -> Bool {
        observedAt <= now.addingTimeInterval(60) && enforcedUntil(memory: memory) > now
    }
}

/// The `detour` table: one row an origin and service. Rows are read as untrusted: an instant no
/// calendar shows, or a row whose service is no name, is no detour.
enum DetourTable {
    static let name = "detour"

    static func create(_ db: Database) throws {
        try db.create(table: name) { table in
            table.column("host", .text).notNull()
            table.column("api", .text).notNull()
            table.primaryKey(["host", "api"])
            table.column("observedAt", .datetime).notNull()
            table.column("until", .datetime).notNull()
        }
    }

    /// The detours remembered (at `origin`, for `service`, when given).
    /// A table another program or a damaged disk left in another shape reads as none: a detour
    /// is never read from nonsense.
    static func detours(ofOrigin origin: String? = nil, service: ServiceName? = nil, _ db: Database) throws -> [DetourState] {
        guard try db.tableExists(name) else { return [] }
        guard try hasItsShape(db) else { return [] }
        var conditions = ["typeof(host) = 'text'", "typeof(api) = 'text'"]
        var arguments: [String] = []
        if let origin { conditions.append("host = ?"); arguments.append(origin.lowercased()) }
        if let service { conditions.append("api = ?"); arguments.append(service.rawValue) }
        let rows = try Row.fetchAll(db, sql: "SELECT host, api, observedAt, until FROM detour WHERE \(conditions.joined(separator: " AND ")) ORDER BY host",
                                    arguments: StatementArguments(arguments))
        return rows.compactMap { row in
            guard let host = row["host"] as String?, let service = ServiceName(rawValue: row["api"] as String? ?? ""),
                  let observedAt = StoredDate.date(row["observedAt"] as DatabaseValue), OutsideNumbers.isPlausible(observedAt),
                  let until = StoredDate.date(row["until"] as DatabaseValue), OutsideNumbers.isPlausible(until) else { return nil }
            return DetourState(origin: host, service: service, observedAt: observedAt, until: until)
        }
    }

    /// Whether the table has the columns this reader reads and writes.
    private static func hasItsShape(_ db: Database) throws -> Bool {
        let columns = Set(try db.columns(in: name).map { $0.name.lowercased() })
        return columns.isSuperset(of: ["host", "api", "observedat", "until"])
    }

    /// Stores `state`; a table missing or in another shape is made again first: it holds
    /// nothing but these memories, each at most a day old.
    static func store(_ state: DetourState, _ db: Database) throws {
        if try !db.tableExists(name) || !hasItsShape(db) { try remake(db) }
        do {
            try upsert(state, db)
        } catch {
            // Its columns, but not its key: made again.
            try remake(db)
            try upsert(state, db)
        }
    }

    private static func remake(_ db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(name)")
        try create(db)
    }

    private static func upsert(_ state: DetourState, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO detour (host, api, observedAt, until) VALUES (?, ?, ?, ?)
            ON CONFLICT(host, api) DO UPDATE SET observedAt = excluded.observedAt, until = excluded.until
            """, arguments: [state.origin.lowercased(), state.service.rawValue, StoredDate.databaseValue(state.observedAt),
                             StoredDate.databaseValue(state.until)])
    }

    /// Forgets the detours of `service`, or every one.
    static func forget(service: ServiceName?, _ db: Database) throws {
        guard try db.tableExists(name) else { return }
        // A table in another shape holds nothing to keep: clearing makes it again.
        guard try hasItsShape(db) else { return try remake(db) }
        if let service {
            try db.execute(sql: "DELETE FROM detour WHERE api = ?", arguments: [service.rawValue])
        } else {
            try db.execute(sql: "DELETE FROM detour")
        }
    }
}
