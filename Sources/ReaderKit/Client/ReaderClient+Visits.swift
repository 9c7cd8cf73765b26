import Foundation

extension ReaderClient {
    /// Records that the user opened `endpoint` now, with `itemCount` items (a post's comments),
    /// and returns the visit before this one: nil on a first visit, or without a cache. Kept in
    /// the cache file, so that the next run knows what is new since (``Visit``).
    ///
    /// A screen keeps the visit returned for as long as it shows the resource, so that what is
    /// new stays marked through a refresh.
    /// - Parameters:
    ///   - endpoint: what was opened; visits are kept by the cache's key of its URL.
    ///   - itemCount: how many items it has now, when the caller knows.
    /// - Returns: the previous visit, if any.
    public func recordVisit<Value>(to endpoint: Endpoint<Value>, itemCount: Int? = nil) async -> Visit? {
        guard let key = visitKey(of: endpoint) else { return nil }
        _ = await cache.open()
        let previous = await cache.lastVisits(toKeys: [key])[key]
        await cache.recordVisit(Visit(openedAt: now(), itemCount: itemCount), toKey: key, service: endpoint.service)
        return previous
    }

    /// The last visit to each of `endpoints`, in their order: nil for one never opened, or
    /// without a cache. For a list that shows how much is new in each item (`+7 new`).
    public func lastVisits<Value>(to endpoints: [Endpoint<Value>]) async -> [Visit?] {
        let keys = endpoints.map(visitKey(of:))
        _ = await cache.open()
        let visits = await cache.lastVisits(toKeys: keys.compactMap { $0 })
        return keys.map { $0.flatMap { visits[$0] } }
    }

    /// The cache's key of `endpoint`'s URL; nil when its service is not configured.
    private func visitKey<Value>(of endpoint: Endpoint<Value>) -> String? {
        guard let service = configuration.services[endpoint.service], let (request, url) = endpoint.request(for: service) else { return nil }
        return Endpoint<JSONValue>.cacheKey(of: request, at: url)
    }
}
