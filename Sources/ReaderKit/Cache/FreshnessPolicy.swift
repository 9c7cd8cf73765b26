import Foundation

/// How long a stored response is served without asking the network again.
///
/// SWAPI sends no freshness information and its data does not change, so its entries stay fresh
/// for a day. Reddit's listings change by the minute and Reddit rate-limits anonymous clients
/// hard, so its entries stay fresh for a minute: long enough that running the same command twice
/// does not cost a request. A response marked `no-store` is never stored; one marked `no-cache`
/// is never fresh (it is still served when the network fails).
public struct FreshnessPolicy: Sendable, Equatable {
    public var swapiLifetime: Duration
    public var redditLifetime: Duration

    /// SWAPI a day, Reddit a minute.
    public static let `default` = FreshnessPolicy(swapiLifetime: .seconds(86_400), redditLifetime: .seconds(60))

    public init(swapiLifetime: Duration, redditLifetime: Duration) {
        self.swapiLifetime = swapiLifetime
        self.redditLifetime = redditLifetime
    }

    /// The lifetime of entries of `api`.
    public func lifetime(for api: API) -> Duration {
        switch api {
        case .swapi: swapiLifetime
        case .reddit: redditLifetime
        }
    }

    /// Whether `entry` may be served at `now` without the network.
    public func isFresh(_ entry: CacheEntry, at now: Date) -> Bool {
        if Self.directives(entry.cacheControl).contains("no-cache") { return false }
        let age = now.timeIntervalSince(entry.fetchedAt)
        return age >= 0 && age < Double(lifetime(for: entry.api).components.seconds)
    }

    /// Whether a response with this `Cache-Control` may be written at all.
    public static func mayStore(cacheControl: String?) -> Bool {
        !directives(cacheControl).contains("no-store")
    }

    static func directives(_ cacheControl: String?) -> Set<String> {
        guard let cacheControl else { return [] }
        return Set(cacheControl.split(separator: ",").map {
            $0.split(separator: "=").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        })
    }
}
