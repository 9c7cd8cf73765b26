import Foundation
import Testing
@testable import ReaderKit

/// An RFC 850 date's two-digit year is the latest such year not more than 50 years ahead of the
/// time it is read (RFC 9110 §5.6.7; issue 30 item 23): a fixed 1970–2069 window read `71` in
/// 2026 as 1971, an `Expires` long past, where the server meant 2071.
@Suite struct TwoDigitYearTests {
    /// Fri, 27 Nov 2026 00:00:00 GMT.
    static let now = Date(timeIntervalSince1970: 1_795_737_600)

    @Test func aTwoDigitYearIsReadAgainstTheTimeItIsRead() {
        #expect(HTTPDate.instant("Thursday, 01-Jan-71 00:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 3_187_296_000), "2071")
        #expect(HTTPDate.instant("Saturday, 01-Jan-77 00:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 220_924_800), "1977")
        #expect(HTTPDate.instant("Thursday, 18-Aug-50 02:01:18 GMT", now: Self.now) == Date(timeIntervalSince1970: 2_544_400_878), "2050")
        // In 2060, `94` is 2094, no longer 1994.
        let later = Date(timeIntervalSince1970: 2_840_140_800)
        #expect(HTTPDate.instant("Saturday, 06-Nov-94 00:00:00 GMT", now: later) == Date(timeIntervalSince1970: 3_939_840_000))
    }

    @Test func anExpiresInRFC850FormFarAheadKeepsACopyFresh() {
        let entry = CacheEntry(key: "k", service: "swapi", url: "k", status: 200, body: Data("{}".utf8),
                               date: "Fri, 27 Nov 2026 00:00:00 GMT", expires: "Thursday, 01-Jan-71 00:00:00 GMT", fetchedAt: Self.now)
        let rule = FreshnessPolicy.Rule(defaultLifetime: .seconds(60))
        #expect(FreshnessPolicy.default.isFresh(entry, rule: rule, at: Self.now.addingTimeInterval(86_400)))
    }
}
