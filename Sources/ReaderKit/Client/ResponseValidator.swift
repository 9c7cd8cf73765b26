import Foundation

/// The pure checks an answer passes before it is decoded, in order; the first failure wins:
/// HTTP status (with the API's own error body) → content type. Decoding comes after, in
/// ``ReaderClient``, so a 404 HTML page is reported as not found, never as invalid JSON.
public enum ResponseValidator {
    /// Validates `response` to a request for `url`.
    /// - Parameter now: the time, to read a `Retry-After` given as an HTTP date.
    /// - Throws: ``ReaderError/status(_:)`` or ``ReaderError/contentType(_:)``.
    public static func validate(_ response: HTTPResponse, url: String, now: Date = Date()) throws(ReaderError) {
        try validateStatus(response, url: url, now: now)
        try validateContentType(response, url: url)
    }

    /// Any status outside 200–299 fails, carrying the API's explanation when the body gives one.
    public static func validateStatus(_ response: HTTPResponse, url: String, now: Date = Date()) throws(ReaderError) {
        guard !(200...299).contains(response.status) else { return }
        throw .status(StatusFailure(
            status: response.status, url: url,
            apiError: APIErrorBody.recognise(response.body),
            retryAfterSeconds: retryAfterSeconds(response.headers["Retry-After"], now: now)))
    }

    /// A 2xx answer must be JSON. A missing content type is accepted when the body starts like JSON.
    public static func validateContentType(_ response: HTTPResponse, url: String) throws(ReaderError) {
        let contentType = response.headers["Content-Type"]
        if let contentType {
            let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            if mediaType == "application/json" || mediaType.hasSuffix("+json") { return }
        } else if let first = response.body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }),
                  first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return
        }
        throw .contentType(ContentTypeFailure(
            contentType: contentType ?? "no content type", url: url, pageTitle: htmlTitle(response.body)))
    }

    /// `Retry-After` as delay-seconds or as an HTTP date; nil when absent or unreadable.
    public static func retryAfterSeconds(_ value: String?, now: Date) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds.isFinite, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
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
