import Foundation
import Testing
@testable import ReaderKit

/// The one classification: each consumer — the retry policy, the handler's stale copy, the advice,
/// a sync's summary — reads the class, so a failure they used to see differently is seen alike.
@Suite struct FailureClassTests {
    let handler = ErrorHandler(retryPolicy: RetryPolicy(jitter: { 1 }))

    static func status(_ code: Int, blockPage: Bool = false, retryAfter: Double? = nil) -> ReaderError {
        var failure = StatusFailure(status: code, url: "u", retryAfterSeconds: retryAfter)
        failure.isBlockPage = blockPage
        return .status(failure)
    }

    /// Every status from 100 to 599 and a few beyond, as Alamofire's RetryPolicyTests walk them.
    @Test func everyStatusHasTheClassItsRangeSays() {
        for code in 100...599 {
            let expected: FailureClass = switch code {
            case 401, 403: .refusedByService
            case 404, 410: .notFound
            case 408, 429, 502, 503, 504: .busy
            // A 2xx fails only with the API's error envelope in it, which is about the request.
            case 200...299, 400...499: .badRequest
            default: .serviceFault
            }
            #expect(Self.status(code).failureClass == expected, "\(code)")
        }
        #expect(Self.status(999).failureClass == .serviceFault)
    }

    @Test(arguments: [403, 429, 503, 200])
    func aBlockPageRefusesThisClientWhateverItsStatus(code: Int) {
        let blocked = Self.status(code, blockPage: true, retryAfter: 1)
        #expect(blocked.failureClass == .refusedByService)
        // Never retried, even at a retryable status with a Retry-After, and never served stale.
        #expect(RetryPolicy(jitter: { 1 }).delay(before: blocked, in: ErrorContext()) == nil)
        #expect(handler.decide(blocked, in: ErrorContext(cachedCopy: .servable, attempt: 1)) == .alert)
        #expect(!blocked.isWorthRetryingLater)
    }

    @Test func aPolicysOwnSetsChooseOnlyAmongTransientFailures() {
        let own = RetryPolicy(jitter: { 1 }, retryableStatuses: [404, 400, 503], retryableTransportReasons: [.redirectRefused, .timedOut])
        #expect(own.delay(before: Self.status(404), in: ErrorContext()) == nil, "a 404 is not transient")
        #expect(own.delay(before: Self.status(400), in: ErrorContext()) == nil, "nor a bad request")
        #expect(own.delay(before: Self.status(503), in: ErrorContext()) == .milliseconds(500))
        let refusedRedirect = ReaderError.transport(TransportFailure(.redirectRefused, host: "h", detail: ""))
        #expect(own.delay(before: refusedRedirect, in: ErrorContext()) == nil, "a refused redirect is refused again")
        let timedOut = ReaderError.transport(TransportFailure(.timedOut, host: "h", detail: ""))
        #expect(own.delay(before: timedOut, in: ErrorContext()) == .milliseconds(500))
    }

    @Test func onlyAnUnreachableServiceIsWaitedFor() {
        let waiting = ErrorContext(attempt: 1, remaining: .seconds(60), waitsForConnectivity: true)
        let policy = RetryPolicy(jitter: { 1 }, connectivityReasons: Set(TransportFailure.Reason.allCases))
        for reason in TransportFailure.Reason.allCases {
            let error = ReaderError.transport(TransportFailure(reason, host: "h", detail: ""))
            let unreachable: Set<TransportFailure.Reason> = [.unknown, .timedOut, .cannotFindHost, .cannotConnectToHost, .connectionLost, .notConnected,
                                                                  .proxyUnreachable]
            #expect(policy.waitsForConnectivity(after: error, in: waiting) == unreachable.contains(reason), "\(reason)")
        }
    }

    @Test func theAdviceAboutTheNetworkIsForAnUnreachableServiceOnly() {
        let certificate = ReaderError.transport(TransportFailure(.certificateUntrusted, host: "h", detail: ""))
        #expect(!certificate.hints(in: ErrorContext(cachedCopy: .none)).contains(.nothingCachedForOffline))
        let lost = ReaderError.transport(TransportFailure(.connectionLost, host: "h", detail: ""))
        #expect(lost.hints(in: ErrorContext(cachedCopy: .none))
                == [.plain("check your connection and try again"), .nothingCachedForOffline])
    }

    @Test func aSyncIsWorthRunningAgainForTransientFailuresOnly() {
        #expect(Self.status(302).isWorthRetryingLater, "a redirect that cannot be followed is the service's to fix")
        #expect(Self.status(500).isWorthRetryingLater)
        #expect(!Self.status(404).isWorthRetryingLater)
        #expect(!Self.status(422).isWorthRetryingLater)
        #expect(ReaderError.rateLimited(RateLimitFailure(service: "s", origin: "o", resetAt: Date(timeIntervalSince1970: 0))).isWorthRetryingLater)
        #expect(!ReaderError.decoding(DecodingFailure(.keyMissing, codingPath: "a", detail: "", url: "u")).isWorthRetryingLater)
        #expect(ReaderError.cache(CacheFailure(.damagedEntry, path: "p", detail: "")).isWorthRetryingLater)
        #expect(!ReaderError.cache(CacheFailure(.corrupt, path: "p", detail: "")).isWorthRetryingLater)
    }
}
