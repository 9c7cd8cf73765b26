import Foundation

/// How long a stored response is served without asking the network, and how old a copy may be
/// served when the network fails.
///
/// An entry's lifetime is decided in this order; the first that applies wins:
/// 1. ``maximumAge`` (`--max-age`), given by the user.
/// 2. The response's `Cache-Control`: `no-cache` makes it never fresh; `max-age=N` gives N seconds,
///    but never less than the API's ``Rule/minimumLifetime``.
/// 3. The API's ``Rule/defaultLifetime``.
///
/// SWAPI sends no freshness information and its data does not change: a day. Reddit sends
/// `max-age=0, must-revalidate` on everything yet rate-limits anonymous clients hard: its floor of
/// a minute means that running the same command twice does not cost a request. `must-revalidate`
/// is not obeyed for failures: a copy is still served when the network fails, always with a
/// notice, and ``maximumStale`` (`--max-stale`) bounds how old that copy may be.
/// A `no-store` response is never written.
public struct FreshnessPolicy: Sendable, Equatable {
    /// One API's lifetimes.
    public struct Rule: Sendable, Equatable {
        /// The lifetime when the response says nothing.
        public var defaultLifetime: Duration
        /// The shortest lifetime, whatever `max-age` the response gives.
        public var minimumLifetime: Duration

        public init(defaultLifetime: Duration, minimumLifetime: Duration = .zero) {
            self.defaultLifetime = defaultLifetime
            self.minimumLifetime = minimumLifetime
        }
    }

    public var swapi: Rule
    public var reddit: Rule
    /// `--max-age`: when set, an entry is fresh exactly while it is younger than this.
    public var maximumAge: Duration?
    /// `--max-stale`: when set, a copy older than this is never served, even when the network fails.
    public var maximumStale: Duration?

    /// SWAPI a day; Reddit a minute, and at least a minute.
    public static let `default` = FreshnessPolicy(
        swapi: Rule(defaultLifetime: .seconds(86_400)),
        reddit: Rule(defaultLifetime: .seconds(60), minimumLifetime: .seconds(60)))

    public init(swapi: Rule, reddit: Rule, maximumAge: Duration? = nil, maximumStale: Duration? = nil) {
        self.swapi = swapi
        self.reddit = reddit
        self.maximumAge = maximumAge
        self.maximumStale = maximumStale
    }

    /// The rule for `api`.
    public func rule(for api: API) -> Rule {
        switch api {
        case .swapi: swapi
        case .reddit: reddit
        }
    }

    /// How long `entry` stays fresh after its `fetchedAt`.
    public func lifetime(of entry: CacheEntry) -> Duration {
        if let maximumAge { return maximumAge }
        let control = CacheControl(entry.cacheControl)
        if control.noCache { return .zero }
        let rule = rule(for: entry.api)
        if let maxAge = control.maxAge { return max(.seconds(maxAge), rule.minimumLifetime) }
        return rule.defaultLifetime
    }

    /// Whether `entry` may be served at `now` without the network.
    public func isFresh(_ entry: CacheEntry, at now: Date) -> Bool {
        let age = now.timeIntervalSince(entry.fetchedAt)
        return age >= 0 && age < lifetime(of: entry).inSeconds
    }

    /// Whether `entry` is young enough to be served in place of an error, or offline.
    public func mayServeStale(_ entry: CacheEntry, at now: Date) -> Bool {
        guard let maximumStale else { return true }
        return now.timeIntervalSince(entry.fetchedAt) <= maximumStale.inSeconds
    }

    /// Whether a response with this `Cache-Control` may be written at all.
    public static func mayStore(cacheControl: String?) -> Bool {
        !CacheControl(cacheControl).noStore
    }
}

/// The `Cache-Control` directives the cache obeys.
struct CacheControl: Equatable {
    var maxAge: Int64?
    var noCache = false
    var noStore = false

    init(_ header: String?) {
        for directive in (header ?? "").split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            switch parts.first?.lowercased() {
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "max-age":
                // A value that does not parse is ignored, as if the directive were absent (RFC 9111 §4.2.1).
                if parts.count == 2, let seconds = Int64(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))), seconds >= 0 {
                    maxAge = min(seconds, 10 * 365 * 86_400)
                }
            default: break
            }
        }
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
