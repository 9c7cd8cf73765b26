import Foundation

/// A way to what a request asks for: the request as sent, and its URL (its secret query apart).
struct Route: Sendable, Equatable {
    var request: ServiceRequest
    var url: URL
}

/// A request's ways: the first, and the service's detour around its block page
/// (``Service/detour(around:)``), if it has one.
struct Routes: Sendable {
    let first: Route
    let detour: Route?
    /// The origin a detour is remembered for: the first way's.
    let origin: String

    init(_ request: ServiceRequest, url: URL, service: any Service) {
        first = Route(request: request, url: url)
        detour = service.detour(around: request).flatMap { detour in
            Endpoint<JSONValue>.url(of: detour, on: service.baseURL).map { Route(request: detour, url: $0) }
        }
        origin = Origin(url)?.description ?? url.host ?? ""
    }

    /// The way to take now: the detour while the cache remembers the first way's block page, else the first.
    func taken(service: any Service, cache: CacheStore, at now: Date) async -> Route {
        guard let detour, let remembered = await cache.detour(forOrigin: origin, service: service.name),
              remembered.isInForce(at: now, memory: service.detourMemory) else { return first }
        return detour
    }

    /// The detour to take after `error` on `route`: when the error is the service's block page,
    /// and `route` is not the detour already.
    func detour(after error: ReaderError, on route: Route) -> Route? {
        guard let detour, route != detour, case .status(let refusal) = error, refusal.isBlockPage else { return nil }
        return detour
    }
}
