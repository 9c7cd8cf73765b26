import Foundation

/// The HTTP cache's rules (RFC 9111, with RFC 5861's stale directives), in one place: whether a
/// response may be stored, how long it stays fresh, how old it is, and whether a stored copy may
/// answer a request without the network. Every load judges its copy here, whatever its service.
///
/// An entry's freshness lifetime (§4.2.1) is decided in this order; the first that applies wins:
/// 1. ``maximumAge`` (`--max-age`), given by the user: a departure they choose, replacing what
///    the server said.
/// 2. The response's `max-age` (every `Cache-Control` line read as one list; the first `max-age`
///    counts; `max-age="60"` is read as `max-age=60`). An invalid one (negative, not a number)
///    makes the response stale. A valid one is never less than the service's
///    ``Rule/minimumLifetime``: a documented departure.
/// 3. `Expires` minus `Date` (the time the response arrived when `Date` is missing or invalid); an
///    invalid `Expires` (`0`, not a date) means already expired (§5.3).
/// 4. Heuristics (§4.2.2), only when neither is present and only for a heuristically cacheable
///    status (RFC 9110 §15.1) or a response marked `public`: the service's
///    ``Rule/defaultLifetime``.
///
/// A copy is fresh while its current age (§4.2.3: from `Age`, `Date`, and when it was asked for
/// and arrived) is less than its lifetime. `no-cache` makes a copy need validation every time;
/// so does `Vary: *`, and a `Vary` whose request headers differ from the request's. `no-store` in
/// any line keeps a response out of the cache file altogether.
///
/// What the HTTP cache may not reuse is not lost: what is stored is also the user's ``History``
/// (RFC 9111 §6), a path of its own — shown only when the network fails or offline, always with
/// its age, and bounded by ``maximumStale`` (`--max-stale`).
public struct FreshnessPolicy: Sendable, Equatable {
    /// One service's settings.
    public struct Rule: Sendable, Equatable {
        /// The service's heuristic freshness (RFC 9111 §4.2.2): the lifetime of a response with a
        /// heuristically cacheable status that has neither `max-age` nor `Expires`.
        public var defaultLifetime: Duration
        /// The shortest lifetime a valid `max-age` gives, whatever its value: a deliberate
        /// departure from RFC 9111 (a `max-age=0, must-revalidate` is reused for this long),
        /// so that running the same command twice does not cost a request. Zero by default, which
        /// keeps to the RFC.
        public var minimumLifetime: Duration

        public init(defaultLifetime: Duration, minimumLifetime: Duration = .zero) {
            self.defaultLifetime = defaultLifetime
            self.minimumLifetime = minimumLifetime
        }
    }

    /// `--max-age`: when set, an entry is fresh exactly while its current age is less than this,
    /// whatever the response said (though never when its `Vary` does not match).
    public var maximumAge: Duration?
    /// `--max-stale`: when set, history older than this is never shown, even when the network fails.
    public var maximumStale: Duration?

    /// Each service's own rule, with neither bound.
    public static let `default` = FreshnessPolicy()

    public init(maximumAge: Duration? = nil, maximumStale: Duration? = nil) {
        self.maximumAge = maximumAge
        self.maximumStale = maximumStale
    }

    // MARK: - Storing (RFC 9111 §3)

    /// Whether a response with these header lines may be written at all: never with `no-store`
    /// in any `Cache-Control` line (neither the HTTP cache nor the history keeps it).
    public static func mayStore(_ headers: HeaderFields) -> Bool {
        !CacheControl(headers).noStore
    }

    /// As ``mayStore(_:)``, from one `Cache-Control` value (every line combined).
    public static func mayStore(cacheControl: String?) -> Bool {
        !CacheControl(cacheControl).noStore
    }

    /// The statuses RFC 9110 §15.1 defines as heuristically cacheable.
    public static let heuristicallyCacheableStatuses = Set(heuristicallyCacheable)

    // The same, read on every cached read: an array, as the first Set of Ints costs the runtime a
    // scan of every conformance in the binary.
    static let heuristicallyCacheable = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Whether the HTTP cache may reuse `entry` at all (RFC 9111 §3): its status is heuristically
    /// cacheable, or it gave explicit freshness (`max-age`, `Expires`) or `public`/`private`. Any
    /// other stored response (a `201` without freshness) is history only.
    public static func isReusable(_ entry: CacheEntry) -> Bool {
        let control = CacheControl(entry.cacheControl)
        if control.noStore { return false }
        return Self.heuristicallyCacheable.contains(entry.status) || control.maxAge != nil || entry.expires != nil
            || control.isPublic || control.isPrivate
    }

    // MARK: - Freshness (RFC 9111 §4.2)

    /// Where an entry's freshness lifetime came from.
    public enum LifetimeBasis: String, Sendable, Equatable, Codable {
        /// The user's ``FreshnessPolicy/maximumAge``.
        case userMaximumAge = "max-age-option"
        /// The response's `max-age` (valid or not).
        case maxAge = "max-age"
        /// The service's floor raised a `max-age` (``Rule/minimumLifetime``).
        case serviceFloor = "service-floor"
        /// `Expires` minus `Date`.
        case expires
        /// The service's heuristic (``Rule/defaultLifetime``).
        case heuristic
        /// Nothing allows one: the status is not heuristically cacheable and no freshness was given.
        case none
    }

    /// The freshness lifetime of `entry`, in seconds, and what gave it, under its service's `rule`.
    public func freshnessLifetime(of entry: CacheEntry, rule: Rule) -> (seconds: Double, basis: LifetimeBasis) {
        if let maximumAge { return (maximumAge.inSeconds, .userMaximumAge) }
        let control = CacheControl(entry.cacheControl)
        switch control.maxAge {
        case .valid(let seconds)?:
            let floor = rule.minimumLifetime.inSeconds
            return Double(seconds) < floor ? (floor, .serviceFloor) : (Double(seconds), .maxAge)
        case .invalid?:
            return (0, .maxAge)
        case nil:
            break
        }
        if let expires = entry.expires {
            // An invalid date, `0` above all, is a time in the past (§5.3).
            guard let expiry = HTTPDate.instant(expires) else { return (0, .expires) }
            let date = HTTPDate.instant(entry.date) ?? entry.fetchedAt
            return (max(0, expiry.timeIntervalSince(date)), .expires)
        }
        guard Self.heuristicallyCacheable.contains(entry.status) || control.isPublic else { return (0, .none) }
        return (rule.defaultLifetime.inSeconds, .heuristic)
    }

    /// How long `entry` stays fresh, as a duration (``freshnessLifetime(of:rule:)``).
    public func lifetime(of entry: CacheEntry, rule: Rule) -> Duration {
        // Bounded (a century at most) before it becomes milliseconds: an Expires in the year 9999
        // is "fresh for ever" either way.
        let seconds = min(freshnessLifetime(of: entry, rule: rule).seconds, OutsideNumbers.maximumWaitSeconds * 10)
        return .milliseconds(OutsideNumbers.wholeSeconds(seconds * 1000))
    }

    /// The current age of `entry` at `now`, in seconds (RFC 9111 §4.2.3): the larger of its
    /// apparent age (when it arrived minus its `Date`) and its `Age` plus the time the request
    /// took, plus how long it has been stored. Never negative; an invalid `Age` or `Date` is ignored.
    public static func currentAge(of entry: CacheEntry, at now: Date) -> Double {
        let responseTime = entry.fetchedAt
        let apparentAge = HTTPDate.instant(entry.date).map { max(0, responseTime.timeIntervalSince($0)) } ?? 0
        let responseDelay = max(0, entry.requestedAt.map { responseTime.timeIntervalSince($0) } ?? 0)
        let correctedAgeValue = Double(ageValue(entry.age) ?? 0) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// The `Age` header's delta-seconds (RFC 9111 §5.1); nil when absent or invalid (a sign, a
    /// fraction), which a cache ignores. A value past 2^31 is 2^31 (§1.2.2). Of a list (`7200, 0`,
    /// or two lines, stored joined), the first member counts and the rest are discarded, as §5.1
    /// says: an `Age` cannot be made younger by a second value. An empty element (an empty first
    /// line, `, 7200`) is no member (RFC 9110 §5.6.1): it neither counts as 0 nor hides the value
    /// after it.
    static func ageValue(_ header: String?) -> Int64? {
        let members = (header ?? "").split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = members.first else { return nil }
        return CacheControl.deltaSeconds(first)
    }

    /// Whether `entry` is fresh at `now` (its current age is less than its lifetime), under its
    /// service's `rule`. Whether it may be reused also depends on ``reuse(of:rule:requestHeaders:at:)``.
    /// A copy fetched after `now` (stored while the clock ran ahead) is never fresh.
    public func isFresh(_ entry: CacheEntry, rule: Rule, at now: Date) -> Bool {
        !Self.wasFetchedAfter(now, entry) && Self.currentAge(of: entry, at: now) < freshnessLifetime(of: entry, rule: rule).seconds
    }

    /// Whether `entry`'s fetch time is later than `now`: stored while the clock ran ahead (with
    /// no `Date` from the server), its age would read 0 for as long as the clock was ahead. Such a
    /// time is not trusted: the copy is stale, and pruned (``ResponseCache/prune(fetchedBefore:service:now:)``).
    static func wasFetchedAfter(_ now: Date, _ entry: CacheEntry) -> Bool {
        entry.fetchedAt > now
    }

    // MARK: - Reuse (RFC 9111 §4, RFC 5861)

    /// What the HTTP cache may do with a stored copy for a request.
    public enum Reuse: String, Sendable, Equatable {
        /// Fresh, and matching the request: answered without the network.
        case fresh
        /// Stale within the server's `stale-while-revalidate`: answered now, and revalidated
        /// behind the answer.
        case staleWhileRevalidate = "stale-while-revalidate"
        /// Only after the server confirms it (or replaces it).
        case validate
    }

    /// Whether `entry` may answer a request that sends `requestHeaders` at `now`, under its
    /// service's `rule`: fresh and matching its `Vary`, reusable at all (§3), without `no-cache`
    /// (unless the user's ``maximumAge`` says otherwise), or within `stale-while-revalidate`.
    public func reuse(of entry: CacheEntry, rule: Rule, requestHeaders: HeaderFields, at now: Date) -> Reuse {
        guard Vary.matches(entry, requestHeaders: requestHeaders), Self.isReusable(entry) else { return .validate }
        let control = CacheControl(entry.cacheControl)
        if control.noCache && maximumAge == nil { return .validate }
        guard !Self.wasFetchedAfter(now, entry) else { return .validate }
        let age = Self.currentAge(of: entry, at: now)
        let lifetime = freshnessLifetime(of: entry, rule: rule).seconds
        if age < lifetime { return .fresh }
        if maximumAge == nil, !control.mustRevalidate, let window = control.staleWhileRevalidate, age < lifetime + Double(window) {
            return .staleWhileRevalidate
        }
        return .validate
    }

    /// Whether the HTTP cache itself may answer with stale `entry` when the network fails at
    /// `now` (RFC 5861 `stale-if-error`, which `must-revalidate` and `no-cache` take away).
    /// Outside it, a copy shown is history (``History``).
    public func mayServeStaleOnError(_ entry: CacheEntry, rule: Rule, at now: Date) -> Bool {
        let control = CacheControl(entry.cacheControl)
        guard !control.mustRevalidate, !control.noCache, let window = control.staleIfError, Self.isReusable(entry), !Self.isStoredFailure(entry),
              !Self.wasFetchedAfter(now, entry) else { return false }
        return Self.currentAge(of: entry, at: now) < freshnessLifetime(of: entry, rule: rule).seconds + Double(window)
    }

    /// The earlier name of the history's judgement, ``History/mayShow(_:at:)``.
    @available(*, deprecated, renamed: "history.mayShow(_:at:)")
    public func mayServeStale(_ entry: CacheEntry, at now: Date) -> Bool {
        history.mayShow(entry, at: now)
    }
}

/// The `Cache-Control` directives the cache obeys, from every line of the field read as one list
/// (RFC 9111 §5.2). Commas inside a quoted string do not split it; of a directive given twice,
/// the first counts (§4.2.1).
struct CacheControl: Equatable {
    /// A delta-seconds argument: valid (a token, or a quoted string of one), or present and
    /// invalid (negative, single-quoted, not a number).
    enum Seconds: Equatable {
        case valid(Int64)
        case invalid
    }

    var maxAge: Seconds?
    var staleWhileRevalidate: Int64?
    var staleIfError: Int64?
    var noCache = false
    var noStore = false
    var mustRevalidate = false
    var isPublic = false
    var isPrivate = false

    /// The directives of every `Cache-Control` line of `headers`.
    init(_ headers: HeaderFields) {
        self.init(Self.combined(headers))
    }

    /// Every `Cache-Control` line of `headers` as one list value; nil when there is none.
    static func combined(_ headers: HeaderFields) -> String? {
        HeaderList.combined("Cache-Control", in: headers)
    }

    init(_ header: String?) {
        var seen = Set<String>()
        for directive in Self.split(header ?? "") {
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let rawName = parts.first else { continue }
            let name = rawName.trimmingCharacters(in: .whitespaces).lowercased()
            // `max-age =100` is no `max-age=100`: a space around `=` makes the argument invalid.
            let argument = parts.count == 2 && name.count == rawName.count ? String(parts[1]) : nil
            guard seen.insert(name).inserted else { continue }
            switch name {
            case "no-cache": noCache = true
            case "no-store": noStore = true
            case "must-revalidate", "proxy-revalidate": mustRevalidate = true
            case "public": isPublic = true
            case "private": isPrivate = true
            case "max-age": maxAge = argument.flatMap(Self.deltaSecondsArgument).map(Seconds.valid) ?? .invalid
            case "stale-while-revalidate": staleWhileRevalidate = argument.flatMap(Self.deltaSecondsArgument)
            case "stale-if-error": staleIfError = argument.flatMap(Self.deltaSecondsArgument)
            default: break
            }
        }
    }

    /// The directives of a list, split at commas outside quoted strings, each trimmed of spaces.
    static func split(_ value: String) -> [String] {
        var directives: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped { escaped = false; current.append(character); continue }
            switch character {
            case "\\" where quoted: escaped = true; current.append(character)
            case "\"": quoted.toggle(); current.append(character)
            case "," where !quoted:
                directives.append(current)
                current = ""
            default: current.append(character)
            }
        }
        directives.append(current)
        return directives.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A directive's delta-seconds argument, in the token form (`max-age=5`) or the quoted-string
    /// form (`max-age="5"`): a sender must not quote it, but a recipient ought to accept both
    /// (RFC 9111 §5.2). Inside the quotes, a backslash quotes the next character (RFC 9110 §5.6.4).
    static func deltaSecondsArgument(_ text: String) -> Int64? {
        guard text.count >= 2, text.first == "\"", text.last == "\"" else { return deltaSeconds(text) }
        var unquoted = ""
        var escaped = false
        for character in text.dropFirst().dropLast() {
            if escaped { escaped = false; unquoted.append(character); continue }
            if character == "\\" { escaped = true; continue }
            // An unescaped quote inside ends the string early: no quoted-string.
            if character == "\"" { return nil }
            unquoted.append(character)
        }
        return escaped ? nil : deltaSeconds(unquoted)
    }

    /// delta-seconds (RFC 9111 §1.2.2): ASCII digits only, a value past 2^31 taken as 2^31.
    /// Leading zeros say nothing of the value: `0000000000000000000001` is one second.
    static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        let limit: Int64 = 2_147_483_648
        let significant = text.drop { $0 == "0" }
        guard !significant.isEmpty else { return 0 }
        guard significant.utf8.count <= 18, let value = Int64(significant) else { return limit }
        return min(value, limit)
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
