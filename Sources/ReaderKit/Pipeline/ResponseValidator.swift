import Foundation

/// The pure checks an answer passes before it is decoded, in order; the first failure wins:
/// HTTP status (with the service's own error body) → content type. Decoding comes after, so a
/// 404 HTML page is reported as not found, never as invalid JSON.
///
/// The service that answered (``Service``) says how its error bodies and its rate-limit headers
/// read; without one, the common error shapes (``APIErrorBody/recognise(_:)``) and no rate limit.
public enum ResponseValidator {
    /// Validates `response` to a request for `url`.
    /// - Parameters:
    ///   - response: the answer, body included.
    ///   - url: the URL asked for, shown in a failure.
    ///   - now: the time, to read a `Retry-After` given as an HTTP date.
    ///   - service: the service that answered, or nil for the common shapes.
    /// - Throws: ``ReaderError/status(_:)`` or ``ReaderError/contentType(_:)``.
    public static func validate(_ response: HTTPResponse, url: String, now: Date = Date(),
                                service: (any Service)? = nil) throws(ReaderError) {
        try validateStatus(response, url: url, now: now, service: service)
        try validateContentType(response, url: url)
    }

    /// The whole pipeline after transport, for one answer: status (with the API's own error
    /// body), then content type, then decoding as `type`. An error envelope in a 2xx answer is the
    /// API speaking, not a change of shape, so it is reported as the status it names.
    /// - Throws: ``ReaderError/status(_:)``, ``ReaderError/contentType(_:)`` or ``ReaderError/decoding(_:)``.
    public static func decode<Value: Decodable>(_ type: Value.Type, from response: HTTPResponse, url: String,
                                                now: Date = Date(), service: (any Service)? = nil) throws(ReaderError) -> Value {
        try validateStatus(response, url: url, now: now, service: service)
        // No body has no content type, and an endpoint that allows none reads it (a 204).
        if let value = noBody(Value.self, in: response.body) { return value }
        // A `204 No Content` where the endpoint needs a body is the server's answer, with nothing
        // to show: said as that status, not as a page in the way or JSON gone wrong.
        if response.status == 204 {
            throw .status(StatusFailure(status: response.status, url: url, service: service?.name))
        }
        try validateContentType(response, url: url)
        do {
            return try decodeBody(Value.self, from: response.body)
        } catch {
            if let apiError = errorBody(response, service: service) {
                // The status the body claims names the failure only when it is an error status:
                // a body saying `"error": -5` or `304` in a 200 answer is an error envelope in a 200 (A200).
                let claimed = apiError.statusInBody.flatMap { (400...599).contains($0) ? $0 : nil }
                throw .status(StatusFailure(status: claimed ?? response.status, url: url, apiError: apiError))
            }
            var failure = DecodingFailure(error, url: url)
            // JSONDecoder calls a number too large for the model's integer "not valid JSON", with
            // no path. JSON that parses is not corrupt: it holds a value the model cannot take.
            // Raw control characters and invalid UTF-8 are not JSON, though the lenient parser reads them.
            if failure.reason == .corrupt {
                if let violation = JSONValue.textViolation(in: response.body) {
                    failure.detail = "\(violation): \(failure.detail)"
                } else if (try? JSONValue(parsing: response.body)) != nil {
                    failure.reason = .invalidValue
                    failure.detail = "a value the model cannot take, such as a number too large for its integer: \(failure.detail)"
                }
            }
            throw .decoding(failure)
        }
    }

    /// `body`, a 2xx answer's (or a stored copy's), decoded as `type`: an empty body is the
    /// type's ``BodylessDecodable/noBody`` when it has one (a `204 No Content`), and otherwise
    /// read as JSON (which it is not: `D1002`).
    public static func decodeBody<Value: Decodable>(_ type: Value.Type, from body: Data) throws -> Value {
        if let value = noBody(Value.self, in: body) { return value }
        return try ReaderJSON.makeDecoder().decode(Value.self, from: body)
    }

    /// What an empty `body` stands for as `type`, when `type` allows no body; nil otherwise.
    static func noBody<Value>(_ type: Value.Type, in body: Data) -> Value? {
        guard body.isEmpty, let bodyless = Value.self as? any BodylessDecodable.Type else { return nil }
        return bodyless.noBody as? Value
    }

    /// Any status outside 200–299 fails, carrying the service's explanation when the body gives one;
    /// so does a page of the service's firewall (``Service/isBlockPage(_:status:)``) sent as a success.
    public static func validateStatus(_ response: HTTPResponse, url: String, now: Date = Date(),
                                      service: (any Service)? = nil) throws(ReaderError) {
        if (200...299).contains(response.status) {
            // Only a page that is not JSON: a JSON answer may quote the block page's words.
            guard let service, !isJSON(response), service.isBlockPage(response.body.prefix(64 * 1024), status: response.status) else { return }
            var failure = StatusFailure(status: response.status, url: url, service: service.name)
            failure.isBlockPage = true
            throw .status(failure)
        }
        let retryAfter = retryAfterSeconds(response.headers, now: now, service: service)
        let apiError = errorBody(response, service: service)
        var failure = StatusFailure(
            status: response.status, url: url, apiError: apiError,
            retryAfterSeconds: retryAfter, retryAt: retryAfter.flatMap { retryMoment(after: $0, now: now) })
        failure.isBlockPage = apiError == nil && service?.isBlockPage(response.body.prefix(64 * 1024), status: response.status) == true
        throw .status(failure)
    }

    /// The error body of `response` as `service` reads it, from its first
    /// ``APIErrorBody/maximumBodySize`` bytes: error bodies are small, and this one comes from a
    /// server that is already misbehaving.
    static func errorBody(_ response: HTTPResponse, service: (any Service)?) -> APIErrorBody? {
        guard !response.body.isEmpty, response.body.count <= APIErrorBody.maximumBodySize else { return nil }
        guard let service else { return APIErrorBody.recognise(response.body) }
        return service.errorBody(in: response.body, status: response.status)
    }

    /// How long the server asks to be left alone: its `Retry-After`, or else, when its rate limit
    /// (as `service` reads it) says nothing remains, the time until it resets, at most the
    /// service's ``Service/rateLimitWindow``.
    public static func retryAfterSeconds(_ headers: HeaderFields, now: Date, service: (any Service)?) -> Double? {
        if let seconds = retryAfterSeconds(headers["Retry-After"], now: now) { return seconds }
        guard let service else { return nil }
        return RateLimitState.wait(announcedBy: service.rateLimit(in: headers), now: now, window: service.rateLimitWindow)
    }

    /// A 2xx answer must be JSON. A missing content type is accepted when the body starts like JSON.
    public static func validateContentType(_ response: HTTPResponse, url: String) throws(ReaderError) {
        guard !isJSON(response) else { return }
        throw .contentType(ContentTypeFailure(
            contentType: response.headers["Content-Type"] ?? "no content type", url: url, pageTitle: htmlTitle(response.body)))
    }

    /// Whether `response` says it is JSON, or, saying nothing, starts as JSON does.
    static func isJSON(_ response: HTTPResponse) -> Bool {
        if let contentType = response.headers["Content-Type"] {
            let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            return mediaType == "application/json" || mediaType.hasSuffix("+json")
        }
        guard let first = response.body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return false }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// `Retry-After` as delay-seconds or as an HTTP date (IMF-fixdate, or the obsolete RFC 850
    /// and asctime forms a recipient must accept, RFC 9110 §5.6.7); nil when absent or unreadable.
    /// A wait longer than ``OutsideNumbers/maximumWaitSeconds`` (ten years: a server's
    /// `99999999999999999999`) is read as that long, which is "come back later" to any caller.
    public static func retryAfterSeconds(_ value: String?, now: Date) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty, value.utf8.count <= 64 else { return nil }
        if let seconds = OutsideNumbers.decimal(value) {
            return seconds >= 0 ? min(seconds, OutsideNumbers.maximumWaitSeconds) : nil
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return min(max(0, date.timeIntervalSince(now)), OutsideNumbers.maximumWaitSeconds)
    }

    /// When the server asks to be asked again, `seconds` after `now`: nil when that is no moment
    /// reader can show (the wait was clamped, or `now` plus it passes the year 9999), so that a
    /// message says "later" rather than a date the server did not mean.
    static func retryMoment(after seconds: Double, now: Date) -> Date? {
        guard seconds < OutsideNumbers.maximumWaitSeconds else { return nil }
        let moment = now.addingTimeInterval(seconds)
        return OutsideNumbers.isPlausible(moment) ? moment : nil
    }

    /// The sanitised `<title>` of an HTML page, from its first 16 KB.
    static func htmlTitle(_ body: Data) -> String? {
        let head = String(decoding: body.prefix(16 * 1024), as: UTF8.self)
        guard let open = head.range(of: "<title", options: .caseInsensitive),
              let close = head.range(of: ">", range: open.upperBound..<head.endIndex),
              let end = head.range(of: "</title>", options: .caseInsensitive, range: close.upperBound..<head.endIndex)
        else { return nil }
        let title = TerminalText.sanitise(head[close.upperBound..<end.lowerBound], maxLength: 80)
        return title.isEmpty ? nil : title
    }
}
