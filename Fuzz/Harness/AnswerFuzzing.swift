import Foundation
import GRDB
import ReaderKit
import ReaderCLI

/// One fuzzer input through everything ReaderKit does with an answer from the network: the
/// status and its error body, the content type, `Retry-After` and rate-limit headers, decoding as
/// every type an endpoint can return, the token endpoint's answer, the links a page carries, the
/// decision and message for whatever failed, and the terminal sanitising of every text it shows.
///
/// Shared by the libFuzzer target (`Fuzz/`) and the regression tests, which replay each input the
/// fuzzer ever crashed on.
package enum AnswerFuzzing {
    /// Statuses worth reaching in one byte; any other byte maps onto 100–610.
    static let statuses = [200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 410, 429, 451, 500, 502, 503, 504]
    /// Content types worth reaching in one byte; nil sends none.
    static let contentTypes: [String?] = [
        "application/json", "application/json; charset=utf-8", nil, "text/html; charset=utf-8",
        "application/problem+json", "text/plain", "", " APPLICATION/JSON ;charset=latin1", "application/jsonx",
        "application/atom+xml; charset=UTF-8",
    ]

    /// The HTTP cache's judgement of `response` as stored, at moments from its arrival to far
    /// beyond, under each service's rule: every header it reads (Cache-Control, Date, Expires,
    /// Age, Vary) is the input's.
    static func judgeFreshness(of response: HTTPResponse, now: Date) {
        let headers = response.headers
        let vary = headers["Vary"]
        for (service, _) in WholePathFuzzing.services {
            let stored = CacheEntry(key: "k", service: service.name, url: "u", status: response.status, body: response.body,
                                    etag: headers["ETag"], lastModified: headers["Last-Modified"], cacheControl: headers["Cache-Control"],
                                    date: headers["Date"], expires: headers["Expires"], age: headers["Age"], vary: vary,
                                    varyRequest: Vary.requestFingerprint(vary: vary, requestHeaders: headers),
                                    requestedAt: now.addingTimeInterval(-1), fetchedAt: now)
            for policy in [FreshnessPolicy.default, FreshnessPolicy(maximumAge: .seconds(60), maximumStale: .seconds(3600))] {
                for later in [0.0, 86_400, 1e10] {
                    let moment = now.addingTimeInterval(later)
                    let rule = service.freshness
                    _ = policy.reuse(of: stored, rule: rule, requestHeaders: headers, at: moment)
                    _ = policy.mayServeStaleOnError(stored, rule: rule, at: moment)
                    _ = policy.lifetime(of: stored, rule: rule)
                    _ = CacheListing(stored, bytes: stored.bodySize, policy: policy, rule: rule, at: moment)
                }
            }
        }
    }

    /// Reads the input as three header bytes and a body:
    /// - byte 0: the status (an index into ``statuses``, else `100 + 2 × byte`);
    /// - byte 1: the content type (an index into ``contentTypes``, else none);
    /// - byte 2: which headers to send. Bit 0 `Retry-After` in seconds, bit 1 as an HTTP date,
    ///   bit 2 rate-limit headers (`X-Ratelimit-*`), bit 3 an `ETag`; with bit 7 set, the body's first line
    ///   is the text of those headers instead of a well-formed value;
    /// - the rest: the body.
    package static func run(_ input: some Collection<UInt8>) {
        guard let (response, _) = answer(input) else { return }
        let body = response.body
        let headers = response.headers
        let now = Date(timeIntervalSince1970: 1_790_000_000)

        for (service, answers) in WholePathFuzzing.services {
            _ = RateLimitState(origin: Origin(service.baseURL)?.description ?? "127.0.0.1", service: service.name,
                               announcement: service.rateLimit(in: headers), now: now, window: service.rateLimitWindow)?
                .waitBeforeNextRequest(at: now, window: service.rateLimitWindow)
            for answer in answers { exercise(answer, response, service: service, now: now) }
        }
        _ = FreshnessPolicy.mayStore(cacheControl: headers["Cache-Control"])
        judgeFreshness(of: response, now: now)
        exercise(JSONValue.self, response, now: now)
        _ = try? JSONValue(parsing: body)
        _ = HTMLMarkdown.markdown(from: String(decoding: body.prefix(64 * 1024), as: UTF8.self))
    }

    /// Reads `response` as `answer` does, as its service's, or decides on and presents the failure.
    static func exercise(_ answer: ServiceAnswer, _ response: HTTPResponse, service: any Service, now: Date) {
        do throws(ReaderError) {
            switch answer.reading {
            case .decoded(let translation, let read, _):
                let url = "http://127.0.0.1/fuzz" + (translation == nil ? "" : "/.rss")
                try read(response, url, service, [ServiceAnswer.Showing(width: 60, now: now)])
            case .answer(let read):
                try read(response, now)
            case .file:
                break
            }
        } catch {
            decideAndPresent(error)
        }
    }

    /// Reads `bytes` as each file a service keeps (a token file) would be read, in `folder`.
    static func readFiles(_ bytes: some Collection<UInt8>, in folder: String) {
        for (_, answers) in WholePathFuzzing.services {
            for answer in answers {
                if case .file(let read) = answer.reading { read(Data(bytes), folder, Date(timeIntervalSince1970: 1_790_000_000)) }
            }
        }
    }

    /// The answer an input describes (see ``run(_:)``), and its header flags; nil for an input
    /// shorter than its three header bytes.
    static func answer(_ input: some Collection<UInt8>) -> (response: HTTPResponse, flags: UInt8)? {
        let bytes = Array(input)
        guard bytes.count >= 3 else { return nil }
        let statusByte = Int(bytes[0])
        let status = statusByte < statuses.count ? statuses[statusByte] : 100 + 2 * statusByte
        let contentType = Int(bytes[1]) < contentTypes.count ? contentTypes[Int(bytes[1])] : nil
        let flags = bytes[2]
        var body = Data(bytes.dropFirst(3))
        var headerText: String?
        if flags & 0x80 != 0 {
            let line = body.prefix { $0 != UInt8(ascii: "\n") }
            headerText = String(decoding: line, as: UTF8.self)
            body = Data(body.dropFirst(line.count + 1))
        }
        var headers = HeaderFields()
        if let contentType { headers.add("Content-Type", contentType) }
        if flags & 0x01 != 0 { headers.add("Retry-After", headerText ?? "30") }
        if flags & 0x02 != 0 { headers.add("Retry-After", headerText ?? "Wed, 21 Oct 2015 07:28:00 GMT") }
        if flags & 0x04 != 0 {
            headers.add("X-Ratelimit-Remaining", headerText ?? "0")
            headers.add("X-Ratelimit-Used", headerText ?? "100")
            headers.add("X-Ratelimit-Reset", headerText ?? "412")
        }
        if flags & 0x08 != 0 { headers.add("ETag", headerText ?? "\"61869decb421e0ce25dfacf7d8ed16a7\"") }
        return (HTTPResponse(status: status, headers: headers, body: body), flags)
    }

    /// Decodes `response` as `type` through the pipeline, then does with the value what a reader
    /// does with it, or decides on and presents the failure.
    static func exercise<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, now: Date,
                                           using use: (Value) -> Void = { _ in }) {
        do throws(ReaderError) {
            let value = try ResponseValidator.decode(type, from: response, url: "http://127.0.0.1/fuzz", now: now)
            use(value)
        } catch {
            decideAndPresent(error)
        }
    }

    /// Decides on `error` in several contexts, presents it every way reader does, and counts it
    /// into a sync's summary, as a failed load does.
    static func decideAndPresent(_ error: ReaderError) {
        for context in [ErrorContext(), ErrorContext(mode: .background, cachedCopy: .servable), ErrorContext(attempt: 3, usesToken: true),
                        ErrorContext(cachedCopy: .olderThanMaxStale, attempt: 2, remaining: .seconds(20))] {
            let decision = ErrorHandler().decide(error, in: context)
            _ = (ErrorHandler().announcement(of: decision, on: error, in: context), error.hints(in: context).text)
        }
        _ = (error.code, error.failureClass, error.exitCode, error.message, error.hints().text, error.reason, error.technicalDetail)
        var report = SyncReport()
        let failure: Result<Loaded<JSONValue>, LoadFailure> = .failure(LoadFailure(error: error, decision: .ignore(.summarised)))
        report.count(failure)
        report.count(failure)
        _ = (report.summary, report.failed, report.isComplete)
    }
}

/// A value SQLite can hold, for writing a cache row as another program or a damaged disk would.
enum RawDatabaseValue: Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }
}

extension ResponseCache {
    /// Writes one row of `table` with `values` for `columns`, as they are, replacing any row with
    /// the same key: for the fuzzer of what is read back from the file.
    func replaceRawRow(in table: String, columns: [String], values: [RawDatabaseValue]) throws {
        let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        try writer.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO \"\(table)\" (\(names)) VALUES (\(marks))",
                           arguments: StatementArguments(values.map(\.databaseValue)))
        }
    }
}
