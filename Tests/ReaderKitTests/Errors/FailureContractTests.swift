import Foundation
import TestSupport
import Testing
import ReaderKit

/// The tables of the documentation's "The failure contract" article
/// (`Sources/ReaderKit/ReaderKit.docc/FailureContract.md`), row by row against the code: each
/// code's domain, its class, the ErrorHandler's decisions and the exit code. An article that no longer says
/// what the code does fails here, and so does a code the article leaves out.
@Suite struct FailureContractTests {
    static let article = PackageRoot.appending("Sources/ReaderKit/ReaderKit.docc/FailureContract.md")

    /// One failure of each kind the article's rows name, keyed by the text of a row's code cell
    /// (a cell may name several codes: `H401`, `H403`).
    static let failures: [String: ReaderError] = {
        func transport(_ reason: TransportFailure.Reason) -> ReaderError {
            .transport(TransportFailure(reason, host: "example.org", port: 443, detail: ""))
        }
        func status(_ code: Int, retryAfter: Double? = nil, body: APIErrorBody? = nil) -> ReaderError {
            .status(StatusFailure(status: code, url: "https://example.org/x", apiError: body, retryAfterSeconds: retryAfter))
        }
        func cache(_ reason: CacheFailure.Reason) -> ReaderError { .cache(CacheFailure(reason, path: "/tmp/c", detail: "")) }
        func decoding(_ reason: DecodingFailure.Reason) -> ReaderError {
            .decoding(DecodingFailure(reason, codingPath: "results[0]", detail: "", url: "https://example.org/x"))
        }
        let notFound = APIErrorBody.recognise(Data(#"{"detail": "Not found"}"#.utf8))
        let refused = APIErrorBody.recognise(Data(#"{"reason": "private", "message": "Forbidden", "error": 403}"#.utf8))
        let wrong = APIErrorBody.recognise(Data(#"{"error": "invalid_request", "message": "bad limit"}"#.utf8))
        return [
            "R1001": .invalidArgument("--page must be a whole number"),
            "R1002": .invalidConfiguration("READER_SWAPI_URL is not an http or https URL"),
            "R1003": .rateLimited(RateLimitFailure(service: "reddit", origin: "www.reddit.com", resetAt: Date(timeIntervalSince1970: 1_790_000_600))),
            "R1004": .authentication(AuthenticationFailure(status: 401, serverError: "invalid_grant", withoutSecret: false, service: "reddit")),
            "T1000": transport(.unknown),
            "T1001": transport(.timedOut),
            "T1003": transport(.cannotFindHost),
            "T1004": transport(.cannotConnectToHost),
            "T1005": transport(.connectionLost),
            "T1007": transport(.tooManyRedirects),
            "T1009": transport(.notConnected),
            "T1010": transport(.redirectRefused),
            "T1011": transport(.badServerResponse),
            "T1103": transport(.responseTooLarge),
            "T1200": transport(.secureConnectionFailed),
            "T1201": transport(.certificateExpired),
            "T1202": transport(.certificateWrongName),
            "T1203": transport(.certificateUntrusted),
            "T1204": transport(.certificateNotYetValid),
            "T1306": transport(.proxyUnreachable),
            "T1307": transport(.proxyAuthenticationRequired),
            "T1308": transport(.proxyRefused),
            "H302": status(302),
            "H304": status(304),
            "H400": status(400),
            "H401": status(401), "H403": status(403),
            "H404": status(404), "H410": status(410),
            "H408": status(408), "H429": status(429),
            "H500": status(500),
            "H500 + Retry-After": status(500, retryAfter: 2),
            "H502": status(502), "H503": status(503), "H504": status(504),
            "H501": status(501),
            "A404": status(404, body: notFound),
            "A403": status(403, body: refused),
            "A400": status(400, body: wrong),
            "A200": status(200, body: wrong),
            "D1001": .contentType(ContentTypeFailure(contentType: "text/html", url: "https://example.org/x", pageTitle: "Sign in")),
            "D1002": decoding(.corrupt),
            "D1003": decoding(.keyMissing),
            "D1004": decoding(.typeMismatch),
            "D1005": decoding(.invalidValue),
            "C1001": cache(.notCached),
            "C1002": cache(.corrupt),
            "C1003": cache(.unwritable),
            "C1004": cache(.unavailable),
            "C1005": cache(.tooOld),
            "C1006": cache(.damagedEntry),
            "O1001": .output(OutputFailure(errorNumber: ENOSPC)),
            "O1002": .output(OutputFailure(errorNumber: ENOSPC, destination: .temporaryFile)),
            "B1001": .bug("an invariant broke"),
        ]
    }()

    /// Each exit code by its case's name, as the article links it (``ExitCode/noHost``): written
    /// out, so that the check does not depend on how an exit code prints.
    static let exitCodeNames: [ExitCode: String] = [
        .success: "success", .usage: "usage", .dataError: "dataError", .notFound: "notFound", .noHost: "noHost",
        .unavailable: "unavailable", .software: "software", .cannotCreate: "cannotCreate", .ioError: "ioError",
        .temporaryFailure: "temporaryFailure", .protocolError: "protocolError", .noPermission: "noPermission",
        .configuration: "configuration",
    ]

    /// Each domain by its case's name, as the article writes it.
    static let domainNames: [ErrorCode.Domain: String] = [
        .request: "request", .transport: "transport", .http: "http", .api: "api", .decoding: "decoding",
        .cache: "cache", .output: "output", .bug: "bug",
    ]

    /// An exit code as the article writes it: `68 ExitCode/noHost` (its backticks taken off).
    static func written(_ exit: ExitCode) -> String { "\(exit.rawValue) ExitCode/\(exitCodeNames[exit] ?? "?")" }

    let handler = ErrorHandler(retryPolicy: RetryPolicy(jitter: { 1 }))

    /// A decision as the article writes it: a retry without its delay (that is the retry
    /// policy's, tested on its own).
    static func written(_ decision: Decision) -> String {
        switch decision {
        case .retry: "retry"
        case .alert: "alert"
        case .ignore(let reason): "ignore(\(reason.rawValue))"
        case .reset(let action, let then): "reset(\(action.rawValue), then: \(written(then)))"
        }
    }

    /// The cells of each row of the article's table whose header starts with `header`.
    static func rows(underHeader header: String) throws -> [[String]] {
        let lines = try String(contentsOf: article, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(header) }) else { return [] }
        return lines[(start + 2)...].prefix { $0.hasPrefix("|") }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
        }
    }

    /// Each code a row names, with the row's cells (a row may name several codes: `H401`, `H403`).
    static func codes(underHeader header: String, cells: Int) throws -> [(code: String, cells: [String])] {
        let rows = try Self.rows(underHeader: header)
        #expect(rows.count >= 30, "the table \(header) was not found in \(Self.article.path)")
        return try rows.flatMap { row in
            try #require(row.count == cells, "a row of \(cells) cells: \(row)")
            return row[0].components(separatedBy: ", ").map { (code: $0, cells: row) }
        }
    }

    @Test func everyCodeHasItsDomainClassAndExitCode() throws {
        let rows = try Self.codes(underHeader: "| Code | Domain | Class | Failure | Exit |", cells: 5)
        for (code, cells) in rows {
            let error = try #require(Self.failures[code], "no sample failure for the article's \(code)")
            #expect(code.hasPrefix(error.code.description), "\(code)")
            #expect(Self.domainNames[error.code.domain] == cells[1], "\(code)'s domain")
            #expect("FailureClass/\(error.failureClass)" == cells[2], "\(code)'s class")
            #expect(Self.written(error.exitCode) == cells[4], "\(code)'s exit code")
        }
        #expect(Set(rows.map(\.code)) == Set(Self.failures.keys), "codes in the tests but not the article, or the other way round")
        #expect(rows.count == Self.failures.count, "a code in two rows")
    }

    @Test func everyCodeHasItsDecisions() throws {
        let rows = try Self.codes(underHeader: "| Code | First attempt | Retries spent, with a copy | Retries spent, no copy |", cells: 4)
        for (code, cells) in rows {
            let error = try #require(Self.failures[code], "no sample failure for the article's \(code)")
            #expect(Self.written(handler.decide(error, in: ErrorContext(attempt: 1))) == cells[1], "\(code), first attempt")
            #expect(Self.written(handler.decide(error, in: ErrorContext(cachedCopy: .servable, attempt: 4))) == cells[2],
                    "\(code), retries spent, with a copy")
            #expect(Self.written(handler.decide(error, in: ErrorContext(attempt: 4))) == cells[3], "\(code), retries spent, no copy")
        }
        #expect(Set(rows.map(\.code)) == Set(Self.failures.keys), "codes in the tests but not the article, or the other way round")
        #expect(rows.count == Self.failures.count, "a code in two rows")
    }

    /// The article's table of classes: what a copy becomes, and whether a later run may fill
    /// the gap, for every sample failure of each class, so that the handler and a sync's summary
    /// read the class alike.
    @Test func everyClassIsDecidedAsTheArticleSays() throws {
        let rows = try Self.rows(underHeader: "| class | failures | a cached copy | worth another run later |")
        #expect(Set(rows.map(\.first)) == Set(FailureClass.allCases.map { "FailureClass/\($0)" }), "one row a class")
        for row in rows {
            let samples = Self.failures.filter { "FailureClass/\($0.value.failureClass)" == row[0] }
            #expect(!samples.isEmpty, "no sample failure of \(row[0])")
            for (code, error) in samples {
                let decision = handler.decide(error, in: ErrorContext(cachedCopy: .servable, attempt: 4))
                switch row[2] {
                case "served": #expect(decision == .ignore(.servedStale), "\(code)")
                case "deleted", "deleted, unless it refuses this client":
                    #expect(decision == (code == "R1004" ? .alert : .reset(.deleteCachedCopy, then: .alert)), "\(code)")
                case "kept, not served": #expect(decision == .alert, "\(code)")
                default: #expect(!decision.endsInAlert || error.failureClass == .local, "\(code)")
                }
                let worth = row[3] == "yes" || (row[3] == "C1006 only" && code == "C1006")
                #expect(error.isWorthRetryingLater == worth, "\(code)")
            }
        }
    }

    @Test func aCopyOlderThanMaxStaleIsDecidedAsNoCopy() throws {
        for (code, error) in Self.failures {
            #expect(handler.decide(error, in: ErrorContext(cachedCopy: .olderThanMaxStale, attempt: 4))
                .endsInAlert == handler.decide(error, in: ErrorContext(attempt: 4)).endsInAlert, "\(code)")
        }
    }

    /// A new transport reason cannot be left out of the article: each has its sample failure.
    @Test func everyTransportReasonHasARow() {
        let codes = Set(TransportFailure.Reason.allCases.map { "T\($0.rawValue)" })
        #expect(codes.subtracting(Self.failures.keys).isEmpty, "\(codes.subtracting(Self.failures.keys).sorted())")
    }

    @Test func everyDomainIsInTheArticleWithItsLetter() throws {
        let rows = try Self.rows(underHeader: "| Letter | Domain |")
        #expect(Set(rows.map { "\($0[0]) \($0[1])" })
            == Set(ErrorCode.Domain.allCases.map { "\($0.rawValue) ErrorCode/Domain/\(Self.domainNames[$0] ?? "?")" }))
        #expect(rows.count == ErrorCode.Domain.allCases.count)
        #expect(Self.domainNames.count == ErrorCode.Domain.allCases.count)
    }

    @Test func everyExitCodeIsInTheArticleWithItsNumber() throws {
        let rows = try Self.rows(underHeader: "| Exit | ``ExitCode`` |")
        #expect(Set(rows.map { "\($0[0]) \($0[1])" }) == Set(ExitCode.allCases.map(Self.written)))
        #expect(rows.count == ExitCode.allCases.count)
        #expect(Self.exitCodeNames.count == ExitCode.allCases.count)
    }
}
