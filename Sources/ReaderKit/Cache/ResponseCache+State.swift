import Foundation
import GRDB

/// What the file holds, and the services' state kept beside the entries: rate limits, visits, detours.
extension ResponseCache {
    /// What the cache holds, per API, and how it has been used since it was created.
    public func statistics() async throws(CacheFailure) -> CacheStatistics {
        var statistics = try await perform(.read { [path] db in
            var statistics = try CacheEntryTable.statistics(path: path, db)
            try ServiceStateTables.addUsage(to: &statistics, db)
            try VisitTable.addServices(to: &statistics, db)
            return statistics
        })
        let resolvedPath = self.resolvedPath
        statistics.fileBytes = ["", "-wal"].reduce(0) { $0 + (CacheFile.fileSize(resolvedPath + $1) ?? 0) }
        return statistics
    }

    /// The rate limit last seen for `service` at `origin` (`https://oauth.reddit.com`), if any. A
    /// row that cannot be right (a damaged file's) is as good as none: a lock-out is never read
    /// from nonsense. On the writer: a load asks it before its request and records its outcome
    /// there anyway, so that a network read opens no second connection.
    public func rateLimit(forOrigin origin: String, service: ServiceName) async throws(CacheFailure) -> RateLimitState? {
        try await perform(.readOnWriter { db in try ServiceStateTables.rateLimits(ofOrigin: origin, service: service, db) }).first
    }

    /// Every rate limit remembered, for `reader status`; damaged rows are left out.
    public func rateLimits() async throws(CacheFailure) -> [RateLimitState] {
        try await perform(.read { db in try ServiceStateTables.rateLimits(db) })
    }

    /// Remembers the rate limit the server announced, for the next `reader` run.
    public func storeRateLimit(_ state: RateLimitState) async throws(CacheFailure) {
        try await perform(.write { db in try ServiceStateTables.store(state, db) })
    }

    /// The last visit to each of `keys` that has one (``Visit``); damaged rows are left out.
    public func lastVisits(toKeys keys: [String]) async throws(CacheFailure) -> [String: Visit] {
        try await perform(.read { db in try VisitTable.visits(toKeys: keys, db) })
    }

    /// Records `visit` as the last to `key`, of `service`.
    func recordVisit(_ visit: Visit, toKey key: String, service: ServiceName) async throws(CacheFailure) {
        try await perform(.write { db in try VisitTable.record(visit, toKey: key, service: service, db) })
    }

    /// The detours remembered (at `origin`, for `service`, when given); damaged rows are left out.
    func detours(ofOrigin origin: String? = nil, service: ServiceName? = nil) async throws(CacheFailure) -> [DetourState] {
        try await perform(.readOnWriter { db in try DetourTable.detours(ofOrigin: origin, service: service, db) })
    }

    /// Remembers that `state.origin` is read by its other route until `state.until`.
    func storeDetour(_ state: DetourState) async throws(CacheFailure) {
        try await perform(.write { db in try DetourTable.store(state, db) })
    }
}
