import Foundation

/// How long a stored response is served without asking the network, and how old a copy may be
/// served when the network fails.
///
/// An entry's lifetime is decided in this order; the first that applies wins:
/// 1. ``maximumAge`` (`--max-age`), given by the user.
/// 2. The response's `Cache-Control`: `no-cache` makes it never fresh; `max-age=N` gives N seconds,
///    but never less than the service's ``Rule/minimumLifetime``.
/// 3. The service's ``Rule/defaultLifetime``.
///
/// Each service gives its rule (``Service/freshness``): an API that sends no freshness
/// information and whose data does not change may say a day; one that sends `max-age=0` on
/// everything yet rate-limits hard may set a floor of a minute, so that running the same command
/// twice does not cost a request. `must-revalidate` is not obeyed for failures: a copy is still served when the network fails, always with a
/// notice, and ``maximumStale`` (`--max-stale`) bounds how old that copy may be.
/// A `no-store` response is never written.
public struct FreshnessPolicy: Sendable, Equatable {
    /// One service's lifetimes.
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

    /// `--max-age`: when set, an entry is fresh exactly while it is younger than this.
    public var maximumAge: Duration?
    /// `--max-stale`: when set, a copy older than this is never served, even when the network fails.
    public var maximumStale: Duration?

    /// Each service's own rule, with neither bound.
    public static let `default` = FreshnessPolicy()

    public init(maximumAge: Duration? = nil, maximumStale: Duration? = nil) {
        self.maximumAge = maximumAge
        self.maximumStale = maximumStale
    }

    /// How long `entry` stays fresh after its `fetchedAt`, under its service's `rule`.
    public func lifetime(of entry: CacheEntry, rule: Rule) -> Duration {
        if let maximumAge { return maximumAge }
        let control = CacheControl(entry.cacheControl)
        if control.noCache { return .zero }
        if let maxAge = control.maxAge { return max(.seconds(maxAge), rule.minimumLifetime) }
        return rule.defaultLifetime
    }

    /// Whether `entry` may be served at `now` without the network, under its service's `rule`.
    public func isFresh(_ entry: CacheEntry, rule: Rule, at now: Date) -> Bool {
        let age = now.timeIntervalSince(entry.fetchedAt)
        return age >= 0 && age < lifetime(of: entry, rule: rule).inSeconds
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
