import Foundation
import Testing
@testable import ReaderKit

/// The hint policy, row by row: each hint holds in the situation it is given for, and a sync's
/// failures are grouped with a hint that fits their code.
@Suite struct HintsInContextTests {
    static let refused = ReaderError.transport(TransportFailure(.cannotConnectToHost, host: "127.0.0.1", port: 9, detail: ""))
    static let serverError = ReaderError.status(StatusFailure(status: 500, url: "http://127.0.0.1:9/api/people/"))
    static let notFound = ReaderError.status(StatusFailure(status: 404, url: "http://127.0.0.1:9/api/people/?page=99",
                                                           apiError: APIErrorBody.recognise(Data(#"{"detail": "Not found"}"#.utf8))))

    static func blockPage() -> ReaderError {
        var failure = StatusFailure(status: 403, url: "https://www.reddit.com/r/python/hot.json")
        failure.isBlockPage = true
        return ReaderError.status(failure).answered(by: RedditService())
    }

    // MARK: - The cached copy decides what the offline mode and maximumStale hints say

    @Test func aNetworkFailureWithNothingCachedDoesNotOfferOffline() {
        let context = ErrorContext(cachedCopy: .none)
        #expect(Self.refused.hints(in: context) == [.checkConnectionAndServiceAddress, .nothingCachedForOffline])
        #expect(Self.refused.hints(in: context).text
                == "check your connection and the service address (Service.baseURL), and try again; nothing is cached for this request yet, so LoadOptions.CacheMode.offline cannot show it either")
    }

    @Test func aNetworkFailureWithAServableCopyOffersOffline() {
        let context = ErrorContext(cachedCopy: .servable)
        #expect(Self.refused.hints(in: context) == [.checkConnectionAndServiceAddress, .offlineShowsCachedCopy])
        #expect(Self.refused.hints(in: context).text.hasSuffix("; LoadOptions.CacheMode.offline shows the cached copy"))
    }

    @Test func aCopyOlderThanMaxStaleIsOfferedByALargerMaxStaleNotByOffline() {
        let context = ErrorContext(cachedCopy: .olderThanMaxStale)
        #expect(Self.refused.hints(in: context) == [.checkConnectionAndServiceAddress, .allowOlderCopy])
        #expect(Self.serverError.hints(in: context) == [.plain("the service has a problem; try again later"), .allowOlderCopy])
        #expect(Self.serverError.hints(in: context).text
                == "the service has a problem; try again later; the cached copy is older than FreshnessPolicy.maximumStale allows (LoadOptions.CacheMode.offline refuses it too): a larger FreshnessPolicy.maximumStale shows it")
        // A copy never stands in for a 404: no word about it.
        #expect(Self.notFound.hints(in: ErrorContext(cachedCopy: .olderThanMaxStale)).text == Self.notFound.hints().text)
    }

    @Test func unknownFactsGiveTheErrorsOwnHint() {
        for error in [Self.refused, Self.serverError, Self.notFound, Self.blockPage()] {
            #expect(error.hints(in: ErrorContext()).text == error.hints().text, "\(error.code)")
        }
    }

    // MARK: - A page past the end

    @Test func aPagePastTheEndNamesTheLastPage() {
        let many = ErrorContext(pageRange: ErrorContext.PageRange(pages: 9, items: 82))
        #expect(Self.notFound.hints(in: many) == [.lastPage(pages: 9, items: 82)])
        #expect(Self.notFound.hints(in: many).text == "there are 9 pages (82 in all): the last is page 9")
        let one = ErrorContext(pageRange: ErrorContext.PageRange(pages: 1, items: 6))
        #expect(Self.notFound.hints(in: one).text == "there is 1 page (6 in all): ask for page 1")
        let offline = ReaderError.cache(CacheFailure(.notCached, path: "", detail: ""))
        #expect(offline.hints(in: many) == [.lastPage(pages: 9, items: 82)])
        // A failure that is not about the page is not told about pages.
        #expect(!Self.refused.hints(in: many).text.contains("pages"))
    }

    // MARK: - Reddit's block page and the app identity

    @Test func theBlockPageIsRecognisedOnlyWhereItIsOne() {
        let page = Data("<html><body>You've been blocked by network security. To continue, log in…</body></html>".utf8)
        let json = Data(#"{"reason": "private", "message": "Forbidden", "error": 403}"#.utf8)
        func failure(_ body: Data) -> StatusFailure? {
            do { try ResponseValidator.validateStatus(HTTPResponse(status: 403, body: body), url: "u", service: RedditService()) } catch {
                if case .status(let failure) = error { return failure }
            }
            return nil
        }
        #expect(failure(page)?.isBlockPage == true)
        #expect(failure(Data("<html>Your request has been blocked due to a network policy.</html>".utf8))?.isBlockPage == true)
        #expect(failure(json)?.isBlockPage == false)
        #expect(failure(Data("<html><title>403 Forbidden</title></html>".utf8))?.isBlockPage == false)
        // A service that says nothing of block pages has none: the page is a plain 403.
        do { try ResponseValidator.validateStatus(HTTPResponse(status: 403, body: page), url: "u", service: SWAPIService()) } catch {
            guard case .status(let plain) = error else { Issue.record("\(error)"); return }
            #expect(!plain.isBlockPage)
        }
    }

    @Test func theBlockPageSaysHowToSetAnAppIdentityUnlessOneWasUsed() {
        let anonymous = Self.blockPage().hints(in: ErrorContext(cachedCopy: .none))
        #expect(anonymous == [.service("reddit", reason: "blocked", withCredential: false, text:
            "Reddit lets in readers with an app identity: give RedditService a Reddit app's RedditCredentials (the README's \"Reddit with an app identity\" has the steps)")])
        #expect(Self.blockPage().reason == "blocked")
        let withIdentity = Self.blockPage().hints(in: ErrorContext(cachedCopy: .none, usesToken: true))
        #expect(withIdentity == [.service("reddit", reason: "blocked", withCredential: true, text:
            "Reddit refused it although the request carried the app's identity; try later or from another network")])
    }

    @Test func aQuarantinedSubredditsHintSaysAnonymouslyOnlyWithoutAToken() {
        let failure = StatusFailure(status: 403, url: "https://oauth.reddit.com/r/x/hot", apiError: APIErrorBody(reason: "quarantined", message: "Forbidden"))
        let quarantined = ReaderError.status(failure).answered(by: RedditService())
        #expect(quarantined.hints(in: ErrorContext(usesToken: true)) == [.service("reddit", reason: "quarantined", withCredential: true, text:
            "an app's token does not opt in to it either; ReaderKit does not opt in for you")])
        #expect(quarantined.hints().text == "it cannot be read anonymously; ReaderKit does not opt in for you")
    }

    @Test func anAddressNamesItsPort() {
        #expect(TransportFailure(.cannotConnectToHost, host: "127.0.0.1", port: 9, detail: "").address == "127.0.0.1:9")
        #expect(TransportFailure(.cannotConnectToHost, host: "::1", port: 8080, detail: "").address == "[::1]:8080")
        #expect(TransportFailure(.cannotConnectToHost, host: "swapi.dev", port: nil, detail: "").address == "swapi.dev")
        #expect(TransportFailure(.cannotConnectToHost, host: "swapi.dev", port: 70_000, detail: "").address == "swapi.dev")
        #expect(Self.refused.message == "cannot connect to 127.0.0.1:9: nothing accepted the connection")
    }

    // MARK: - A sync's failures

    @Test func eachSyncGroupHasAHintThatFitsItsCode() {
        #expect(Self.notFound.hints(in: ErrorContext(isSyncSummary: true)).text == "they are gone or never existed: running the sync again will not bring them back")
        #expect(Self.refused.hints(in: ErrorContext(isSyncSummary: true)).text == "run the sync again to fill these gaps")
        #expect(Self.serverError.hints(in: ErrorContext(isSyncSummary: true)).text == "the service has a problem; run the sync again later to fill these gaps")
        #expect(Self.blockPage().hints(in: ErrorContext(isSyncSummary: true)).text == Self.blockPage().hints().text)
    }

    /// Each refused certificate is the service's to fix: a sync run again does not fill its gaps,
    /// and its group keeps the certificate's own hint.
    @Test(arguments: [TransportFailure.Reason.certificateUntrusted, .certificateExpired, .certificateWrongName, .certificateNotYetValid])
    func aRefusedCertificateIsNoGapASyncRunAgainFills(_ reason: TransportFailure.Reason) {
        let error = ReaderError.transport(TransportFailure(reason, host: "127.0.0.1", port: 9, detail: ""))
        #expect(!error.isWorthRetryingLater, "\(error.code)")
        #expect(error.hints(in: ErrorContext(isSyncSummary: true)).text == error.hints().text, "\(error.code): \(error.hints(in: ErrorContext(isSyncSummary: true)).text)")
        #expect(!error.hints(in: ErrorContext(isSyncSummary: true)).text.contains("run the sync again"), "\(error.code)")
    }

    /// A status that is no client error is the server's, never the arguments'; a 4xx still is theirs.
    @Test(arguments: [(101, "the service answered wrongly: it is the service's to fix; try again later, or tell the service"),
                      (999, "the service answered wrongly: it is the service's to fix; try again later, or tell the service"),
                      (600, "the service answered wrongly: it is the service's to fix; try again later, or tell the service"),
                      (418, "check the arguments")])
    func aStatusThatIsNoClientErrorIsTheServersFault(_ status: Int, _ hint: String) {
        let error = ReaderError.status(StatusFailure(status: status, url: "http://127.0.0.1:9/api/people/"))
        #expect(error.hints().text == hint, "\(error.code)")
    }

    @Test func aGroupOfDifferentNotFoundsSaysWhatTheCodeMeansAndNamesAFew() {
        var report = SyncReport()
        for id in ["a1", "b2", "c3", "d4", "e5"] {
            let error = ReaderError.status(StatusFailure(status: 404, url: "https://www.reddit.com/comments/\(id).json",
                                                         apiError: APIErrorBody.recognise(Data(#"{"message": "Not Found", "error": 404}"#.utf8)),
                                                         service: "reddit")).answered(by: RedditService())
            report.count(Result<Loaded<Int>, LoadFailure>.failure(LoadFailure(error: error, decision: .alert)), subject: "post \(id)")
        }
        let group = report.failureGroups[0]
        #expect(!group.allSaidTheSame)
        #expect(group.summary == "A404 ×5: not found (404) (post a1, post b2, post c3 and 2 more)")
        #expect(report.failureLines == [group.summary, "hint: they are gone or never existed: running the sync again will not bring them back"])
    }

    @Test func runningASyncAgainIsSuggestedOnlyWhereItHelps() {
        func report(_ errors: [ReaderError]) -> SyncReport {
            var report = SyncReport()
            for error in errors { report.count(Result<Loaded<Int>, LoadFailure>.failure(LoadFailure(error: error, decision: .alert))) }
            return report
        }
        #expect(SyncReport.hint(after: [report([])]) == nil)
        #expect(SyncReport.hint(after: [report([Self.refused, Self.serverError])]) == "run it again to fill the gaps")
        #expect(SyncReport.hint(after: [report([Self.notFound])])
                == "running it again will not fill these gaps (A404): see each code's hint")
        #expect(SyncReport.hint(after: [report([Self.refused]), report([Self.notFound])])
                == "running it again may fill the gaps of T1004, not those of A404: see each code's hint")
    }

    /// A 503 of a busy server and a 503 that is a block page are two groups, and only the first
    /// is worth running the sync again for (found by the attack on issue 21, where they were one).
    @Test func aBlockPageIsAGroupOfItsOwnAndNeverWorthRunningAgain() {
        func status(_ code: Int, blockPage: Bool) -> ReaderError {
            var failure = StatusFailure(status: code, url: "http://127.0.0.1:9/r/x/hot.json")
            failure.isBlockPage = blockPage
            return .status(failure)
        }
        var report = SyncReport()
        for error in [status(503, blockPage: false), status(503, blockPage: true), status(429, blockPage: true), status(503, blockPage: false)] {
            report.count(Result<Loaded<Int>, LoadFailure>.failure(LoadFailure(error: error, decision: .alert)))
        }
        #expect(report.failureGroups.map(\.label) == ["H503", "H503 blocked", "H429 blocked"])
        #expect(report.failureGroups.map(\.count) == [2, 1, 1])
        #expect(report.summary == "0 fetched, 4 failed (H503 ×2, H503 blocked ×1, H429 blocked ×1)")
        #expect(SyncReport.hint(after: [report])
                == "running it again may fill the gaps of H503, not those of H503 blocked, H429 blocked: see each code's hint")
    }

    /// A time to come back is told only by a server that may answer then, and the hint says why
    /// its wait was not taken (found by the attack on issue 21).
    @Test func aRetryAfterIsToldOnlyWhereItHoldsAndWithWhatStoodInItsWay() {
        let later = Date(timeIntervalSince1970: 4_000_000_000)
        func status(_ code: Int, after seconds: Double) -> ReaderError {
            .status(StatusFailure(status: code, url: "u", retryAfterSeconds: seconds, retryAt: later))
        }
        #expect(status(400, after: 5).hints() == [.plain("check the arguments")], "a 400 stays a 400")
        #expect(status(503, after: 5).hints() == [.tryAgainThenOrAllowLongerWait], "the situation unknown")
        #expect(status(503, after: 60).hints(in: ErrorContext(remaining: .seconds(300), longestWait: .seconds(30)))
                == [.tryAgainThenOrAllowLongerWait])
        #expect(status(503, after: 5).hints(in: ErrorContext(remaining: .seconds(3), longestWait: .seconds(30)))
                == [.tryAgainThenOrAllowMoreTime])
        #expect(status(501, after: 5).hints(in: ErrorContext(remaining: .seconds(300), longestWait: .seconds(30)))
                == [.tryAgainThen], "not retried for its status, not for its wait")
        #expect(status(503, after: 0).hints() == [.plain("the service has a problem; try again later")], "no moment to come back at")
    }
}
