import Foundation
import Testing
@testable import ReaderKit

/// Every row of the contract in the README, through the one pure decision function.
@Suite struct ErrorHandlerTests {
    let handler = ErrorHandler(retryPolicy: RetryPolicy(jitter: { 1 }))

    func transport(_ reason: TransportFailure.Reason) -> ReaderError { .transport(TransportFailure(reason, host: "h", detail: "")) }
    func status(_ code: Int, retryAfter: Double? = nil, api: APIErrorBody? = nil) -> ReaderError {
        .status(StatusFailure(status: code, url: "u", apiError: api, retryAfterSeconds: retryAfter))
    }
    /// A decision and what is told with it.
    struct Told: Equatable {
        var decision: Decision
        var announcement: ErrorHandler.Announcement?
        init(_ decision: Decision, _ announcement: ErrorHandler.Announcement? = nil) {
            self.decision = decision
            self.announcement = announcement
        }
    }
    func told(_ error: ReaderError, in context: ErrorContext) -> Told {
        let decision = handler.decide(error, in: context)
        return Told(decision, handler.announcement(of: decision, on: error, in: context))
    }
    /// The decision once retries are spent.
    func final(_ error: ReaderError, cached: Bool) -> Decision {
        handler.decide(error, in: ErrorContext(cachedCopy: cached ? .servable : .none, attempt: 4))
    }

    @Test func cannotFindHostIsNotRetriedServesStaleAndExits68() {
        let error = transport(.cannotFindHost)
        #expect(error.code.description == "T1003")
        #expect(handler.decide(error, in: ErrorContext(attempt: 1)) == .alert)
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable, attempt: 1)) == .ignore(.servedStale))
        #expect(error.exitCode.rawValue == 68)
    }

    @Test(arguments: [TransportFailure.Reason.notConnected, .cannotConnectToHost])
    func offlineAndRefusedAreNotRetried(reason: TransportFailure.Reason) {
        let error = transport(reason)
        #expect(handler.decide(error, in: ErrorContext(attempt: 1)) == .alert)
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable, attempt: 1)) == .ignore(.servedStale))
        #expect(error.exitCode.rawValue == 75)
    }

    @Test(arguments: [TransportFailure.Reason.connectionLost, .timedOut])
    func lostAndTimedOutAreRetriedThenServeStale(reason: TransportFailure.Reason) {
        let error = transport(reason)
        #expect(handler.decide(error, in: ErrorContext(attempt: 1)) == .retry(after: .milliseconds(500)))
        #expect(handler.decide(error, in: ErrorContext(attempt: 2)) == .retry(after: .seconds(1)))
        #expect(final(error, cached: true) == .ignore(.servedStale))
        #expect(final(error, cached: false) == .alert)
        #expect(error.exitCode.rawValue == 75)
    }

    @Test(arguments: [408, 429, 502, 503, 504])
    func transientStatusesAreRetriedHonouringRetryAfter(code: Int) {
        #expect(handler.decide(status(code, retryAfter: 2), in: ErrorContext(attempt: 1)) == .retry(after: .seconds(2)))
        #expect(handler.decide(status(code), in: ErrorContext(attempt: 1)) == .retry(after: .milliseconds(500)))
        #expect(final(status(code), cached: true) == .ignore(.servedStale))
        #expect(final(status(code), cached: false) == .alert)
        #expect(status(code).exitCode.rawValue == (code == 408 || code == 429 ? 75 : 69))
    }

    @Test func internalServerErrorWithRetryAfterIsMaintenanceAndRetried() {
        #expect(handler.decide(status(500, retryAfter: 1), in: ErrorContext(attempt: 1)) == .retry(after: .seconds(1)))
    }

    @Test func internalServerErrorWithoutRetryAfterIsNotRetried() {
        #expect(handler.decide(status(500), in: ErrorContext(attempt: 1)) == .alert)
        #expect(handler.decide(status(500), in: ErrorContext(cachedCopy: .servable, attempt: 1)) == .ignore(.servedStale))
        #expect(status(500).exitCode.rawValue == 69)
    }

    @Test(arguments: [404, 410])
    func notFoundResetsTheCachedCopyAndIsNeverServed(code: Int) {
        #expect(handler.decide(status(code), in: ErrorContext(cachedCopy: .servable)) == .reset(.deleteCachedCopy, then: .alert))
        #expect(handler.decide(status(code), in: ErrorContext(cachedCopy: .none)) == .alert)
        #expect(status(code).exitCode.rawValue == 66)
    }

    @Test func theAPISayingNotFoundCountsAsNotFound() {
        let error = status(200, api: APIErrorBody(message: "Not found"))
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable)) == .reset(.deleteCachedCopy, then: .alert))
        #expect(error.exitCode.rawValue == 66)
        #expect(error.code.description == "A200")
    }

    @Test(arguments: [401, 403])
    func forbiddenResetsTheCachedCopy(code: Int) {
        #expect(handler.decide(status(code), in: ErrorContext(cachedCopy: .servable)) == .reset(.deleteCachedCopy, then: .alert))
        #expect(status(code).exitCode.rawValue == 77)
    }

    @Test(arguments: [400, 405, 418, 422])
    func otherClientErrorsAlertAndAreNeverServedStale(code: Int) {
        let error = status(code, api: APIErrorBody(reason: "bad sort"))
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable)) == .alert)
        #expect(error.exitCode.rawValue == 76)
        #expect(error.message.contains("bad sort"))
    }

    @Test func htmlWhereJSONWasExpectedServesStaleOrExits76() {
        let error = ReaderError.contentType(ContentTypeFailure(contentType: "text/html", url: "u"))
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable)) == .ignore(.servedStale))
        #expect(handler.decide(error, in: ErrorContext()) == .alert)
        #expect(error.exitCode.rawValue == 76)
        #expect(error.hints().text.contains("captive portal"))
    }

    @Test(arguments: [DecodingFailure.Reason.corrupt, .keyMissing, .typeMismatch, .invalidValue])
    func undecodableJSONServesStaleOrExits65(reason: DecodingFailure.Reason) {
        let error = ReaderError.decoding(DecodingFailure(reason, codingPath: "results[0]", detail: "", url: "u"))
        #expect(handler.decide(error, in: ErrorContext(cachedCopy: .servable)) == .ignore(.servedStale))
        #expect(handler.decide(error, in: ErrorContext()) == .alert)
        #expect(error.exitCode.rawValue == 65)
        #expect(error.hints().text.contains("update the models"))
    }

    @Test func offlineWithNothingCachedAlertsAndExits69() {
        let error = ReaderError.cache(CacheFailure(.notCached, path: "p", detail: ""))
        #expect(handler.decide(error, in: ErrorContext()) == .alert)
        #expect(error.exitCode.rawValue == 69)
    }

    @Test func aCorruptCacheIsReplacedAndTheCommandCarriesOn() {
        let decision = handler.decide(.cache(CacheFailure(.corrupt, path: "p", detail: "")), in: ErrorContext())
        #expect(decision == .reset(.replaceCacheFile, then: .ignore(.cacheReplaced)))
        #expect(!decision.endsInAlert)
    }

    @Test func anUnwritableCacheIsIgnored() {
        #expect(handler.decide(.cache(CacheFailure(.unwritable, path: "p", detail: "")), in: ErrorContext())
                == .ignore(.continueWithoutCache))
    }

    @Test func usageConfigurationAndBugsAlertWithTheirExitCodes() {
        #expect(handler.decide(.invalidArgument("x"), in: ErrorContext()) == .alert)
        #expect(ReaderError.invalidArgument("x").exitCode.rawValue == 64)
        #expect(ReaderError.invalidConfiguration("x").exitCode.rawValue == 78)
        #expect(ReaderError.bug("x").exitCode.rawValue == 70)
        #expect(ReaderError.bug("x").hints().text.contains("B1001"))
    }

    @Test func retriesStopAtTheLimit() {
        let error = status(503)
        #expect(handler.decide(error, in: ErrorContext(attempt: 3)) == .retry(after: .seconds(2)))
        #expect(handler.decide(error, in: ErrorContext(attempt: 4)) == .alert)
    }

    @Test func aWaitLongerThanTheCapOrTheDeadlineIsNotTaken() {
        #expect(handler.decide(status(503, retryAfter: 120), in: ErrorContext(attempt: 1)) == .alert)
        #expect(handler.decide(status(503, retryAfter: 5), in: ErrorContext(attempt: 1, remaining: .seconds(3))) == .alert)
    }

    @Test func onlyIdempotentRequestsAreRetried() {
        #expect(handler.decide(status(503), in: ErrorContext(attempt: 1, isIdempotent: false)) == .alert)
    }

    @Test func backgroundWorkSumsTransportFailuresUp() {
        #expect(handler.decide(transport(.cannotFindHost), in: ErrorContext(mode: .background)) == .ignore(.summarised))
    }

    /// The README's status rows, written out: whether the first failure is retried, what it
    /// becomes once retries are spent with a cached copy, and its exit code.
    static func expectedRow(forStatus code: Int) -> (retried: Bool, withCopy: Decision, exit: Int32) {
        switch code {
        case 401, 403: (false, .reset(.deleteCachedCopy, then: .alert), 77)
        case 404, 410: (false, .reset(.deleteCachedCopy, then: .alert), 66)
        case 408, 429: (true, .ignore(.servedStale), 75)
        case 502, 503, 504: (true, .ignore(.servedStale), 69)
        case 500...599: (false, .ignore(.servedStale), 69)
        // A 1xx or 3xx that reaches the handler is the server breaking HTTP: the copy still answers.
        case 100...199, 300...399: (false, .ignore(.servedStale), 76)
        default: (false, .alert, 76)
        }
    }

    /// Walks every status from 100 to 599 against the table above, as Alamofire's
    /// RetryPolicyTests walk theirs: only the listed statuses are ever retried, and no 4xx but
    /// 408 and 429 is ever served stale.
    /// A 1xx as a final answer is the server's fault (``FailureClass/serviceFault``), as a 3xx is.
    @Test func everyStatusCode() {
        for code in 100...599 {
            let row = Self.expectedRow(forStatus: code)
            let first = handler.decide(status(code), in: ErrorContext(attempt: 1))
            #expect(first == (row.retried ? .retry(after: .milliseconds(500)) : .alert), "status \(code)")
            #expect(final(status(code), cached: true) == row.withCopy, "status \(code)")
            #expect(final(status(code), cached: false) == .alert, "status \(code)")
            #expect(status(code).exitCode.rawValue == row.exit, "status \(code)")
        }
    }

    @Test func a401WithATokenResetsItOnceThenAlerts() {
        let handler = ErrorHandler()
        let unauthorized = ReaderError.status(StatusFailure(status: 401, url: "https://oauth.reddit.com/hot", service: "reddit"))
        #expect(handler.decide(unauthorized, in: ErrorContext(usesToken: true, credentialRefused: true)) == .reset(.renewToken, then: .retry(after: .zero)))
        #expect(handler.decide(unauthorized, in: ErrorContext(usesToken: true, tokenWasRenewed: true, credentialRefused: true)) == .alert)
        // A credential refused again says nothing of the resource: the copy stays, for --offline.
        #expect(handler.decide(unauthorized, in: ErrorContext(cachedCopy: .servable, usesToken: true, tokenWasRenewed: true, credentialRefused: true)) == .alert)
        #expect(handler.decide(unauthorized, in: ErrorContext(cachedCopy: .servable)) == .reset(.deleteCachedCopy, then: .alert),
                "an anonymous 401 is about the resource")
        var blocked = StatusFailure(status: 403, url: "https://www.reddit.com/r/python/hot.json")
        blocked.isBlockPage = true
        #expect(handler.decide(.status(blocked), in: ErrorContext(cachedCopy: .servable)) == .alert, "a block page is about this client")
        #expect(handler.decide(.status(StatusFailure(status: 403, url: "u")), in: ErrorContext(cachedCopy: .servable))
                == .reset(.deleteCachedCopy, then: .alert))
        #expect(handler.decide(unauthorized, in: ErrorContext()) == .alert)
        let refused = ReaderError.authentication(AuthenticationFailure(status: 401, serverError: nil, withoutSecret: false, service: "reddit"))
        #expect(handler.decide(refused, in: ErrorContext(cachedCopy: .servable, usesToken: true)) == .alert)
        #expect(refused.code.description == "R1004" && refused.exitCode == .noPermission)
        // Reddit's `{"error": 401}` says the status again: it is not quoted as a reason.
        let repeated = ReaderError.authentication(AuthenticationFailure(status: 401, serverError: "401", withoutSecret: false, service: "reddit"))
        #expect(repeated.message.hasSuffix("(the token endpoint answered 401)"), "\(repeated.message)")
        let grant = ReaderError.authentication(AuthenticationFailure(status: 400, serverError: "invalid_grant", withoutSecret: false, service: "reddit"))
        #expect(grant.message.hasSuffix("(the token endpoint answered 400, \"invalid_grant\")"), "\(grant.message)")
    }

    @Test func credentialsNeverShowTheirSecret() {
        let credentials = RedditCredentials(clientID: "id", clientSecret: "s3cr3t")
        #expect(!"\(credentials)".contains("s3cr3t") && !String(reflecting: credentials).contains("s3cr3t"))
        let token = RedditToken(accessToken: "t0k3n", expiresAt: Date(), clientID: "id", origin: nil)
        #expect(!"\(token)".contains("t0k3n") && !String(reflecting: token).contains("t0k3n"))
    }

    // MARK: - What is told besides the decision

    @Test func aWaitForConnectivityIsAnnouncedOnTheFirstWaitOnly() {
        let refused = transport(.cannotConnectToHost)
        var context = ErrorContext(attempt: 1, remaining: .seconds(60), waitsForConnectivity: true)
        #expect(told(refused, in: context) == Told(.retry(after: .milliseconds(500)), .waitingForConnectivity))
        context.attempt = 2
        #expect(told(refused, in: context) == Told(.retry(after: .seconds(1))), "told once a load")
        context.attempt = 1
        #expect(told(status(503), in: context) == Told(.retry(after: .milliseconds(500))),
                "a server that answers is no wait for connectivity")
        context.waitsForConnectivity = false
        #expect(told(refused, in: context) == Told(.alert), "without --wait: no wait")
    }

    @Test func aCopyTooOldToServeIsAnnouncedWhereAYoungerOneWouldHaveBeenServed() {
        let tooOld = ErrorContext(cachedCopy: .olderThanMaxStale, attempt: 4)
        #expect(told(transport(.cannotConnectToHost), in: tooOld) == Told(.alert, .copyTooOldToServe))
        #expect(told(status(500), in: tooOld) == Told(.alert, .copyTooOldToServe))
        var background = tooOld
        background.mode = .background
        #expect(told(transport(.cannotConnectToHost), in: background)
                == Told(.ignore(.summarised), .copyTooOldToServe))
        // A young enough copy is served: nothing more to tell.
        #expect(told(transport(.cannotConnectToHost), in: ErrorContext(cachedCopy: .servable, attempt: 4))
                == Told(.ignore(.servedStale)))
        // Failures no copy answers, however young: nothing was withheld.
        #expect(told(status(404), in: tooOld) == Told(.reset(.deleteCachedCopy, then: .alert)))
        #expect(told(status(400), in: tooOld) == Told(.alert))
        // Nor while the request is still being retried, nor without a copy.
        #expect(told(transport(.timedOut), in: ErrorContext(cachedCopy: .olderThanMaxStale, attempt: 1))
                == Told(.retry(after: .milliseconds(500))))
        #expect(told(transport(.cannotConnectToHost), in: ErrorContext(attempt: 4)) == Told(.alert))
    }
}
