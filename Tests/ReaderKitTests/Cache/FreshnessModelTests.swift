import Foundation
import Testing
@testable import ReaderKit

/// RFC 9111's freshness model (and RFC 5861's stale directives), rule by rule, with each response's
/// header lines written out. Cases follow the public suite http-tests/cache-tests where it has one.
@Suite struct FreshnessModelTests {
    /// When each response arrived: Sat, 21 Nov 2026 10:00:00 GMT.
    static let arrived = Date(timeIntervalSince1970: 1_795_255_200)
    static let swapiRule = FreshnessPolicy.Rule(defaultLifetime: .seconds(86_400))
    static let redditRule = FreshnessPolicy.Rule(defaultLifetime: .seconds(60), minimumLifetime: .seconds(60))

    /// The entry a response with `headers` makes, as the pipeline stores it, its request sent
    /// `requestTook` seconds before it arrived.
    func stored(_ headers: [(String, String)], status: Int = 200, requestHeaders: HeaderFields = [:],
                requestTook: TimeInterval = 0) -> CacheEntry {
        RequestPipeline.entry(for: HTTPResponse(status: status, headers: HeaderFields(headers.map { (name: $0.0, value: $0.1) }), body: Data("{}".utf8)),
                              key: "k", service: "swapi", url: URL(string: "https://swapi.dev/api/films/")!, requestHeaders: requestHeaders,
                              requestedAt: Self.arrived.addingTimeInterval(-requestTook), fetchedAt: Self.arrived)
    }

    func lifetime(_ entry: CacheEntry, rule: FreshnessPolicy.Rule = swapiRule, policy: FreshnessPolicy = .default) -> (Double, FreshnessPolicy.LifetimeBasis) {
        let judged = policy.freshnessLifetime(of: entry, rule: rule)
        return (judged.seconds, judged.basis)
    }

    func reuse(_ entry: CacheEntry, after seconds: TimeInterval, rule: FreshnessPolicy.Rule = swapiRule,
               requestHeaders: HeaderFields = [:], policy: FreshnessPolicy = .default) -> FreshnessPolicy.Reuse {
        policy.reuse(of: entry, rule: rule, requestHeaders: requestHeaders, at: Self.arrived.addingTimeInterval(seconds))
    }

    // MARK: - Lifetime (§4.2.1)

    @Test func maxAgeGivesTheLifetime() {
        let entry = stored([("Cache-Control", "max-age=3600")])
        #expect(lifetime(entry) == (3600, .maxAge))
        #expect(reuse(entry, after: 3599) == .fresh)
        #expect(reuse(entry, after: 3600) == .validate)
    }

    @Test func expiresMinusDateGivesTheLifetimeWhenThereIsNoMaxAge() {
        let entry = stored([("Date", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Expires", "Sat, 21 Nov 2026 10:30:00 GMT")])
        #expect(lifetime(entry) == (1800, .expires))
        #expect(reuse(entry, after: 1799) == .fresh)
        #expect(reuse(entry, after: 1800) == .validate)
    }

    @Test func expiresCountsFromArrivalWithoutADate() {
        #expect(lifetime(stored([("Expires", "Sat, 21 Nov 2026 11:00:00 GMT")])) == (3600, .expires))
    }

    @Test func anExpiresInThePastIsExpiredAndNoHeuristicApplies() {
        // cache-tests freshness-expires-past: expired 30 days before the response's Date
        let entry = stored([("Date", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Expires", "Wed, 22 Oct 2026 10:00:00 GMT")])
        #expect(lifetime(entry) == (0, .expires))
        #expect(reuse(entry, after: 0) == .validate)
    }

    // The invalid dates of cache-tests' expires-freshness: each a MUST there.
    @Test(arguments: ["0", "-1", "yesterday", "Sat, 21 Nov 2026 10:00:00 UTC+1", "", "Thu, 18 Aug 2050 02:01:18 UTC",
                      "Thu, 18 Aug 50 02:01:18 GMT", "Thu 18 Aug 2050 02:01:18 GMT", "Thu, 18  Aug  2050 02:01:18 GMT",
                      "Thu, 18-Aug-2050 02:01:18 GMT", "Thu, 18 Aug 2050 02.01.18 GMT", "Thu, 18 Aug 2050 2:01:18 GMT"])
    func anInvalidExpiresIsAlreadyExpired(_ expires: String) {
        let entry = stored([("Date", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Expires", expires)])
        #expect(lifetime(entry) == (0, .expires))
        #expect(reuse(entry, after: 0) == .validate)
    }

    @Test(arguments: ["THU, 18 Aug 2050 02:01:18 GMT", "Thu, 18 AUG 2050 02:01:18 GMT", "Thu, 18 Aug 2050 02:01:18 gMT"])
    func anExpiresInAnotherCaseIsADate(_ expires: String) {
        #expect(lifetime(stored([("Date", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Expires", expires)])) == (749_145_678, .expires))
    }

    @Test func twoExpiresLinesAreNoDate() {
        let entry = stored([("Date", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Expires", "Sat, 21 Nov 2026 11:00:00 GMT"),
                            ("Expires", "Sat, 21 Nov 2026 12:00:00 GMT")])
        #expect(lifetime(entry) == (0, .expires))
    }

    @Test func maxAgeWinsOverExpires() {
        let entry = stored([("Cache-Control", "max-age=3600"), ("Expires", "Wed, 22 Oct 2026 10:00:00 GMT")])
        #expect(lifetime(entry) == (3600, .maxAge))
    }

    @Test(arguments: [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501])
    func aHeuristicallyCacheableStatusGetsTheServicesHeuristic(_ status: Int) {
        #expect(lifetime(stored([], status: status)) == (86_400, .heuristic))
    }

    @Test(arguments: [201, 202, 205, 207, 226])
    func anotherStatusGetsNoHeuristicAndIsHistoryOnly(_ status: Int) {
        let entry = stored([], status: status)
        #expect(lifetime(entry) == (0, .none))
        #expect(!FreshnessPolicy.isReusable(entry))
        #expect(reuse(entry, after: 0) == .validate)
    }

    @Test func anotherStatusWithExplicitFreshnessIsReusable() {
        let entry = stored([("Cache-Control", "max-age=600")], status: 201)
        #expect(FreshnessPolicy.isReusable(entry))
        #expect(reuse(entry, after: 10) == .fresh)
        #expect(lifetime(stored([("Cache-Control", "public")], status: 202)) == (86_400, .heuristic))
    }

    // MARK: - Cache-Control parsing (§5.2)

    @Test(arguments: ["max-age=-1", "max-age=abc", "max-age=3600a", "max-age=3600.0", "max-age=", "max-age", "max-age='3600'",
                      "max-age =3600", "max-age= 3600", "max-age=\"-1\"", "max-age=\"\"", "max-age=\"36\"00\"", "max-age=\"3600",
                      "max-age=\"3600\\\""])
    func anInvalidMaxAgeIsStaleNotAbsent(_ control: String) {
        let entry = stored([("Cache-Control", control)])
        #expect(lifetime(entry) == (0, .maxAge), "the day's heuristic must not apply")
        #expect(reuse(entry, after: 0) == .validate)
    }

    /// RFC 9111 §5.2: a sender must not quote a delta-seconds argument, but a recipient ought to
    /// accept both forms (the suite's `freshness-max-age-quoted`).
    @Test func aQuotedMaxAgeIsItsNumber() {
        #expect(lifetime(stored([("Cache-Control", "max-age=\"3600\"")])) == (3600, .maxAge))
        #expect(lifetime(stored([("Cache-Control", "max-age=\"36\\00\"")])) == (3600, .maxAge), "a quoted-pair is its character")
        #expect(lifetime(stored([("Cache-Control", "extension=\"max-age=100\", max-age=\"1\"")])) == (1, .maxAge))
        #expect(reuse(stored([("Cache-Control", "max-age=\"3600\"")]), after: 60) == .fresh)
        let windows = stored([("Cache-Control", "max-age=10, stale-while-revalidate=\"60\", stale-if-error=\"600\"")])
        #expect(reuse(windows, after: 30) == .staleWhileRevalidate)
        #expect(FreshnessPolicy.default.mayServeStaleOnError(windows, rule: Self.swapiRule, at: Self.arrived.addingTimeInterval(300)))
    }

    @Test func directivesOnSeveralLinesAreOneList() {
        #expect(!FreshnessPolicy.mayStore(HeaderFields([(name: "Cache-Control", value: "max-age=3600"), (name: "cache-control", value: "no-store")])))
        #expect(FreshnessPolicy.mayStore(HeaderFields([(name: "Cache-Control", value: "max-age=3600")])))
        let noCache = stored([("Cache-Control", "max-age=3600"), ("Cache-Control", "no-cache")])
        #expect(reuse(noCache, after: 1) == .validate)
        let secondLine = stored([("Cache-Control", "public"), ("Cache-Control", "max-age=60")])
        #expect(lifetime(secondLine) == (60, .maxAge))
    }

    @Test func theFirstMaxAgeCounts() {
        #expect(lifetime(stored([("Cache-Control", "max-age=1800, max-age=1")])) == (1800, .maxAge))
        #expect(lifetime(stored([("Cache-Control", "max-age=1"), ("Cache-Control", "max-age=1800")])) == (1, .maxAge))
    }

    @Test func aQuotedStringDoesNotHideOrMakeADirective() {
        #expect(lifetime(stored([("Cache-Control", "extension=\"max-age=3600, no-store\", max-age=1")])) == (1, .maxAge))
        #expect(FreshnessPolicy.mayStore(cacheControl: "foo=\"no-store\", max-age=60"))
        #expect(lifetime(stored([("Cache-Control", "max-age=003600")])) == (3600, .maxAge))
    }

    @Test func aHugeMaxAgeIsTwoToThe31() {
        #expect(lifetime(stored([("Cache-Control", "max-age=99999999999999999999999")])) == (2_147_483_648, .maxAge))
    }

    @Test(arguments: ["no-store", "No-Store", "max-age=60, no-store", "no-store=\"x\""])
    func noStoreAnywhereIsNeverStored(_ control: String) {
        #expect(!FreshnessPolicy.mayStore(HeaderFields([(name: "Cache-Control", value: "private"), (name: "Cache-Control", value: control)])))
    }

    @Test func noCacheIsAlwaysValidated() {
        let entry = stored([("Cache-Control", "max-age=3600, no-cache")])
        #expect(reuse(entry, after: 0) == .validate)
        #expect(!FreshnessPolicy.default.mayServeStaleOnError(entry, rule: Self.swapiRule, at: Self.arrived))
    }

    // MARK: - Age (§4.2.3)

    @Test func theAgeHeaderCounts() {
        // cache-tests freshness-max-age-age: max-age=3600 with Age: 7200 is stale on arrival
        let entry = stored([("Date", "Sat, 21 Nov 2026 10:00:00 GMT"), ("Cache-Control", "max-age=3600"), ("Age", "7200")])
        #expect(FreshnessPolicy.currentAge(of: entry, at: Self.arrived) == 7200)
        #expect(reuse(entry, after: 0) == .validate)
        let younger = stored([("Cache-Control", "max-age=3600"), ("Age", "1800")])
        #expect(FreshnessPolicy.currentAge(of: younger, at: Self.arrived.addingTimeInterval(100)) == 1900)
        #expect(reuse(younger, after: 1799) == .fresh)
        #expect(reuse(younger, after: 1800) == .validate)
    }

    @Test func anOldDateMakesAnApparentAge() {
        let entry = stored([("Date", "Sat, 21 Nov 2026 08:00:00 GMT"), ("Cache-Control", "max-age=3600")])
        #expect(FreshnessPolicy.currentAge(of: entry, at: Self.arrived) == 7200)
        #expect(reuse(entry, after: 0) == .validate)
        let future = stored([("Date", "Sat, 21 Nov 2026 12:00:00 GMT"), ("Cache-Control", "max-age=3600")])
        #expect(FreshnessPolicy.currentAge(of: future, at: Self.arrived) == 0, "a Date ahead of the clock is no negative age")
    }

    @Test func theTimeTheRequestTookIsAddedToAge() {
        let entry = stored([("Cache-Control", "max-age=3600"), ("Age", "5")], requestTook: 10)
        #expect(FreshnessPolicy.currentAge(of: entry, at: Self.arrived) == 15)
    }

    /// (A list is not invalid: its first value counts, StoredErrorAnswerTests.anAgeListCountsItsFirstValue.)
    @Test(arguments: ["abc", "-7200", "7200.0"])
    func anInvalidAgeIsIgnored(_ age: String) {
        let entry = stored([("Cache-Control", "max-age=3600"), ("Age", age)])
        #expect(FreshnessPolicy.currentAge(of: entry, at: Self.arrived.addingTimeInterval(60)) == 60)
    }

    // MARK: - Must revalidate, and the stale directives (RFC 5861)

    @Test func mustRevalidateIsNeverReusedStale() {
        let entry = stored([("Cache-Control", "max-age=10, must-revalidate, stale-while-revalidate=600, stale-if-error=600")])
        #expect(reuse(entry, after: 5) == .fresh)
        #expect(reuse(entry, after: 20) == .validate)
        #expect(!FreshnessPolicy.default.mayServeStaleOnError(entry, rule: Self.swapiRule, at: Self.arrived.addingTimeInterval(20)))
    }

    @Test func staleWhileRevalidateLastsAsLongAsTheServerGrants() {
        let entry = stored([("Cache-Control", "max-age=10, stale-while-revalidate=60")])
        #expect(reuse(entry, after: 9) == .fresh)
        #expect(reuse(entry, after: 10) == .staleWhileRevalidate)
        #expect(reuse(entry, after: 69) == .staleWhileRevalidate)
        #expect(reuse(entry, after: 70) == .validate)
        #expect(reuse(stored([("Cache-Control", "max-age=10")]), after: 10) == .validate, "without it: validated")
    }

    @Test func staleIfErrorLastsAsLongAsTheServerGrants() {
        let entry = stored([("Cache-Control", "max-age=10, stale-if-error=60")])
        let policy = FreshnessPolicy.default
        #expect(policy.mayServeStaleOnError(entry, rule: Self.swapiRule, at: Self.arrived.addingTimeInterval(69)))
        #expect(!policy.mayServeStaleOnError(entry, rule: Self.swapiRule, at: Self.arrived.addingTimeInterval(70)))
        #expect(!policy.mayServeStaleOnError(stored([("Cache-Control", "max-age=10")]), rule: Self.swapiRule, at: Self.arrived.addingTimeInterval(11)))
    }

    // MARK: - Vary (§4.1)

    @Test func varyMatchesTheRequestHeadersReaderSends() {
        let json: HeaderFields = ["Accept": "application/json"]
        let entry = stored([("Cache-Control", "max-age=3600"), ("Vary", "Accept"), ("Vary", "Accept-Language")], requestHeaders: json)
        #expect(entry.varyRequest == "accept: application/json\naccept-language: ")
        #expect(reuse(entry, after: 1, requestHeaders: json) == .fresh)
        #expect(reuse(entry, after: 1, requestHeaders: ["Accept": "text/html"]) == .validate)
        #expect(reuse(entry, after: 1, requestHeaders: ["Accept": "application/json", "Accept-Language": "de"]) == .validate)
    }

    @Test func varyStarIsNeverReusedWithoutValidation() {
        #expect(reuse(stored([("Cache-Control", "max-age=3600"), ("Vary", "*")]), after: 1) == .validate)
        #expect(reuse(stored([("Cache-Control", "max-age=3600"), ("Vary", "Accept, *")]), after: 1) == .validate)
    }

    @Test func varyAuthorizationComparesPresenceNotTheCredential() {
        let entry = stored([("Cache-Control", "max-age=3600"), ("Vary", "Authorization")], requestHeaders: ["Authorization": "Bearer secret"])
        #expect(entry.varyRequest == "authorization: present", "the credential is never written to the cache")
        #expect(reuse(entry, after: 1, requestHeaders: ["Authorization": "Bearer other"]) == .fresh)
        #expect(reuse(entry, after: 1) == .validate)
    }

    // MARK: - The service's settings, and the user's

    @Test func redditsFloorIsASettingOfItsRule() {
        let entry = stored([("Cache-Control", "max-age=0, must-revalidate")])
        #expect(lifetime(entry, rule: Self.redditRule) == (60, .serviceFloor))
        #expect(lifetime(entry, rule: FreshnessPolicy.Rule(defaultLifetime: .seconds(60))) == (0, .maxAge), "no floor: the RFC")
        #expect(lifetime(stored([("Cache-Control", "max-age=-1")]), rule: Self.redditRule) == (0, .maxAge), "an invalid max-age has no floor")
    }

    @Test func theUsersMaxAgeReplacesTheLifetimeButNotVary() {
        let policy = FreshnessPolicy(maximumAge: .seconds(600))
        let entry = stored([("Cache-Control", "no-cache, max-age=0")])
        #expect(lifetime(entry, policy: policy) == (600, .userMaximumAge))
        #expect(reuse(entry, after: 599, policy: policy) == .fresh)
        #expect(reuse(stored([("Vary", "*")]), after: 1, policy: policy) == .validate)
    }

    // MARK: - The history (§6), a path of its own

    @Test func theHistoryShowsWhatTheCacheMayNotReuseUpToMaxStale() {
        let entry = stored([("Cache-Control", "no-cache, must-revalidate")])
        #expect(reuse(entry, after: 10) == .validate)
        #expect(History().mayShow(entry, at: Self.arrived.addingTimeInterval(365 * 86_400)))
        let bounded = FreshnessPolicy(maximumStale: .seconds(3600)).history
        #expect(bounded.mayShow(entry, at: Self.arrived.addingTimeInterval(3600)))
        #expect(!bounded.mayShow(entry, at: Self.arrived.addingTimeInterval(3601)))
    }

    // MARK: - Numbers from outside

    @Test(arguments: ["99999999999999999999999999", "-0", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT", "Mon, 01 Jan 1900 00:00:00 GMT",
                      "\u{0}", String(repeating: "9", count: 1000), "Sun, 06 Nov 1994 08:49:37 GMT, Sun, 06 Nov 1994 08:49:37 GMT"])
    func anyHeaderValueGivesABoundedAgeAndLifetime(_ value: String) {
        let entry = stored([("Date", value), ("Expires", value), ("Age", value), ("Cache-Control", "max-age=\(value), stale-if-error=\(value)"),
                            ("Vary", value)])
        for later in [0.0, 1e10] {
            let moment = Self.arrived.addingTimeInterval(later)
            let judged = LoadMetadata.HTTPCacheState(entry, policy: .default, rule: Self.redditRule, at: moment)
            #expect(judged.currentAgeSeconds >= 0 && judged.freshnessLifetimeSeconds >= 0, "\(value)")
            #expect(judged.freshnessLifetimeSeconds <= 253_402_300_800, "\(value)")
            _ = FreshnessPolicy.default.reuse(of: entry, rule: Self.redditRule, requestHeaders: [:], at: moment)
            _ = FreshnessPolicy.default.mayServeStaleOnError(entry, rule: Self.redditRule, at: moment)
        }
        #expect(FreshnessPolicy.ageValue("99999999999999999999999999") == 2_147_483_648)
    }

    // MARK: - HTTP dates (RFC 9110 §5.6.7)

    @Test func httpDatesReadInTheirThreeForms() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.instant("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.instant("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.instant("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.instant("Sunday, 06-Nov-94 08:49:37 GMT ") == expected, "spaces around a field value are not the value's")
        #expect(HTTPDate.instant("Thursday, 18-Aug-50 02:01:18 GMT") == Date(timeIntervalSince1970: 2_544_400_878), "50: 2050")
        #expect(HTTPDate.imfFixdate("Sat, 29 Feb 2025 00:00:00 GMT") == nil, "no such day")
        #expect(HTTPDate.instant("0") == nil)
        #expect(HTTPDate.instant("Mon, 01 Jan 0001 00:00:00 GMT") == nil, "no instant reader computes with")
    }
}

/// delta-seconds read by value, not by length (found by the attack on issue 23: 21 digits of
/// `…0001` were taken as 2^31 seconds, and a copy stale after one second served as fresh for 68 years).
@Suite struct DeltaSecondsTests {
    @Test func leadingZerosSayNothingOfTheValue() {
        #expect(CacheControl.deltaSeconds("000000000000000000001") == 1)
        #expect(CacheControl.deltaSeconds("0000000000000000000000") == 0)
        #expect(CacheControl.deltaSeconds("3600") == 3600)
        #expect(CacheControl.deltaSeconds("99999999999999999999") == 2_147_483_648)
        #expect(CacheControl.deltaSeconds("0002147483649") == 2_147_483_648)
        #expect(CacheControl.deltaSeconds("-1") == nil && CacheControl.deltaSeconds("") == nil)
    }
}
