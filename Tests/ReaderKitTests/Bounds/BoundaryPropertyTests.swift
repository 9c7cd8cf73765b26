import Foundation
import PropertyBased
import Testing
@testable import ReaderKit

/// Every parser at a boundary, fed any value: any Int64, any Double (NaN, infinities, subnormals,
/// 1e300), any string. Each gives a bounded value or a classified error, never a trap.
/// PropertyBased prints the seed of a failing run; `.fixedSeed(…)` replays it.
@Suite struct BoundaryPropertyTests {
    /// Any bit pattern as a Double: NaN, ±infinity, ±0, subnormals, ±1e308.
    static let anyDouble = Gen<UInt64>.bitSet.map { Double(bitPattern: $0) }
    /// Numbers as a server might write them: any Double or Int64 printed, or junk.
    static let numberText = Gen<UInt64>.bitSet.map { (bits: UInt64) -> String in
        switch bits % 4 {
        case 0: "\(Double(bitPattern: bits))"
        case 1: "\(Int64(bitPattern: bits))"
        case 2: ["99999999999999999999", "1e300", "-1e300", "1e400", "nan", "inf", "-0", "0x10", " 12 ", ""][Int(bits >> 8 % 10) % 10]
        default: String(decoding: withUnsafeBytes(of: bits) { Array($0) }, as: UTF8.self)
        }
    }
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    @Test func retryAfterIsAbsentOrWithinTenYears() async {
        await propertyCheck(count: 2000, input: Self.numberText) { text in
            if let seconds = ResponseValidator.retryAfterSeconds(text, now: Self.now) {
                #expect(seconds >= 0 && seconds <= 315_360_000, "\(text) → \(seconds)")
            }
        }
    }

    /// Found by the property above: Foundation's DateFormatter traps ("Incorrect range CFRange")
    /// on this header value, a combining mark, a control character and replacement characters.
    @Test func aRetryAfterThatOnceTrappedDateFormatterIsAbsent() {
        let value = String(decoding: [0x57, 0xD6, 0xAE, 0x0E, 0xEF, 0xBF, 0xBD, 0x58, 0xEF, 0xBF, 0xBD, 0xEF, 0xBF, 0xBD] as [UInt8], as: UTF8.self)
        #expect(ResponseValidator.retryAfterSeconds(value, now: Self.now) == nil)
        #expect(ReaderJSON.parseTimestamp(value) == nil)
        // The forms RFC 9110 names still read.
        #expect(ResponseValidator.retryAfterSeconds("Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: 784_111_767)) == 10)
        #expect(ReaderJSON.parseTimestamp("2014-12-09T13:50:51.644000Z") != nil)
    }

    @Test func theRetryDelayIsAlwaysBoundedWhateverTheStatusFailureHolds() async {
        let policy = RetryPolicy(maximumRetries: 3, baseDelay: .milliseconds(500), maximumDelay: .seconds(30), jitter: { 1 })
        await propertyCheck(count: 2000, input: Self.anyDouble, Gen.int(in: 100...599)) { seconds, status in
            let failure = ReaderError.status(StatusFailure(status: status, url: "http://127.0.0.1/", retryAfterSeconds: seconds))
            if let delay = policy.delay(before: failure, in: ErrorContext(attempt: 1, remaining: .seconds(20))) {
                #expect(delay >= .zero && delay <= .seconds(30), "\(seconds) → \(delay)")
            }
            // Presenting it never traps either.
            _ = (failure.message, failure.hints().text, failure.technicalDetail, failure.exitCode)
        }
    }

    @Test func aRateLimitNeverLocksOutForMoreThanTenMinutes() async {
        await propertyCheck(count: 2000, input: Self.numberText, Self.numberText) { remaining, reset in
            let headers: HeaderFields = ["X-Ratelimit-Remaining": remaining, "X-Ratelimit-Reset": reset]
            if let wait = RateLimitState(origin: "www.reddit.com", service: "reddit", announcement: .xRatelimit(headers), now: Self.now,
                                          window: RedditService().rateLimitWindow)?
                .waitBeforeNextRequest(at: Self.now, window: RedditService().rateLimitWindow) {
                #expect(wait > 0 && wait <= 600, "\(remaining), \(reset) → \(wait)")
            }
        }
    }

    @Test func aStoredRateLimitNeverLocksOutForMoreThanTenMinutesWhateverItsDates() async {
        await propertyCheck(count: 2000, input: Self.anyDouble, Self.anyDouble) { resetAt, remaining in
            let state = RateLimitState(origin: "h", service: "reddit", remaining: remaining,
                                       resetAt: Date(timeIntervalSince1970: resetAt), observedAt: Self.now)
            if let wait = state.waitBeforeNextRequest(at: Self.now, window: RedditService().rateLimitWindow) { #expect(wait > 0 && wait <= 600) }
            _ = state.lockedOutUntil(at: Self.now, window: .seconds(600)).map { RelativeAge.describe(moment: $0, from: Self.now) }
        }
    }

    @Test func anyCountOrScoreDecodesWithinItsRangeOrIsD1005() async {
        await propertyCheck(count: 2000, input: Gen.int64()) { number in
            let body = Data(#"{"count": \#(number), "next": null, "previous": null, "results": []}"#.utf8)
            do throws(ReaderError) {
                let page = try ResponseValidator.decode(SWAPIPage<Film>.self, from: HTTPResponse(status: 200, body: body), url: "u")
                #expect((0...1_000_000_000).contains(page.count))
                #expect(page.count == Int(number))
            } catch {
                #expect(error.code.description == "D1005", "\(number) → \(error.code)")
                #expect(!(0...1_000_000_000).contains(number))
            }
        }
    }

    @Test func anyEpochSecondsDecodeToADateFrom1970To9999OrAreADecodingError() async {
        await propertyCheck(count: 2000, input: Self.anyDouble) { seconds in
            // JSON has no NaN or infinity: those are written as a number too large, which JSON allows.
            let text = seconds.isFinite ? "\(seconds)" : (seconds > 0 ? "1e999" : "-1e999")
            let body = Data(#"{"id": "a", "author": "u", "body": "b", "score": 1, "created_utc": \#(text)}"#.utf8)
            do throws(ReaderError) {
                let comment = try ResponseValidator.decode(RedditComment.self, from: HTTPResponse(status: 200, body: body), url: "u")
                #expect(comment.createdUTC.timeIntervalSince1970 >= 0 && comment.createdUTC.timeIntervalSince1970 <= 253_402_300_799)
                _ = RelativeAge.describe(from: comment.createdUTC, to: Self.now)
            } catch {
                #expect(error.code.domain == .decoding, "\(text) → \(error.code)")
            }
        }
    }

    @Test func agesAndMomentsOfAnyTwoInstantsAreDescribedWithoutATrap() async {
        await propertyCheck(count: 2000, input: Self.anyDouble, Self.anyDouble) { a, b in
            let start = Date(timeIntervalSince1970: a), end = Date(timeIntervalSince1970: b)
            #expect(!RelativeAge.describe(from: start, to: end).isEmpty)
            #expect(!RelativeAge.describe(moment: end, from: start, timeZone: TimeZone(identifier: "UTC")!).isEmpty)
            _ = CacheEntry(key: "k", service: "swapi", url: "u", status: 200, body: Data(), fetchedAt: start).ageSeconds(at: end)
        }
    }

    @Test func wholeSecondsAndClampedDurationsTakeAnyDouble() async {
        await propertyCheck(count: 2000, input: Self.anyDouble) { seconds in
            let whole = OutsideNumbers.wholeSeconds(seconds)
            #expect(abs(whole) <= 1 << 62)
            let duration = Duration.clamping(seconds: seconds)
            #expect(duration >= .zero && duration <= .seconds(315_360_000))
        }
    }

    @Test func aCacheEntryWithAnyDatesIsEitherDamagedOrPlausible() async {
        await propertyCheck(count: 2000, input: Self.anyDouble, Gen.int(in: 0...1000)) { fetched, status in
            let entry = CacheEntry(key: "k", service: "swapi", url: "u", status: status, body: Data("{}".utf8),
                                   fetchedAt: Date(timeIntervalSince1970: fetched))
            // The instant as Date keeps it (a tiny negative rounds to 1970 itself).
            let kept = entry.fetchedAt.timeIntervalSince1970
            if entry.damage == nil {
                #expect(kept >= 0 && kept <= 253_402_300_799 && (200...599).contains(status))
                let policy = FreshnessPolicy.default
                _ = (policy.isFresh(entry, rule: RedditService().freshness, at: Self.now), policy.history.mayShow(entry, at: Self.now), entry.ageSeconds(at: Self.now))
            } else {
                #expect(!(kept >= 0 && kept <= 253_402_300_799) || !(200...599).contains(status))
            }
        }
    }

    @Test func aTokenFileWithAnyExpiryGivesAUsableTokenOrNone() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reader-token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = RedditTokenStore(path: folder + "/reddit-token.json")
        await propertyCheck(count: 300, input: Self.numberText) { expiry in
            let file = #"{"token": {"access_token": "t", "expires_at": \#(expiry), "client_id": "c", "origin": "https://oauth.reddit.com"}}"#
            _ = FileManager.default.createFile(atPath: store.path, contents: Data(file.utf8))
            if let token = store.token(for: "c", at: "https://oauth.reddit.com", now: Self.now) {
                #expect(token.expiresAt.timeIntervalSince(Self.now) <= 7 * 86_400 + 3600)
                _ = (token.description, RelativeAge.describe(moment: token.expiresAt, from: Self.now))
            }
        }
    }
}
