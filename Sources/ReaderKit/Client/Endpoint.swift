import Foundation

/// A request as a value: which service, which path, which query, and the type the answer decodes to.
///
/// A service's endpoint builders (``SWAPI``, ``Reddit``, or your own) validate their arguments
/// before any request is made. The URL is made by the client, once the service has adapted the
/// request (``Service/adapt(_:)``).
public struct Endpoint<Response: Decodable & Sendable>: Sendable, Hashable {
    /// The service, by the name it is registered under in ``ServiceConfiguration``.
    public var service: ServiceName
    /// The path below the service's base URL, such as `films/1/` or `r/swift/hot.json`.
    public var path: String
    /// The query, in order.
    public var query: [URLQueryItem]

    public init(service: ServiceName, path: String, query: [URLQueryItem] = []) {
        self.service = service
        self.path = path
        self.query = query
    }

    /// The request as `service` adapts it, and its full URL against the service's base: nil when
    /// `service` is not this endpoint's.
    public func request(for service: any Service) -> (request: ServiceRequest, url: URL)? {
        guard service.name == self.service else { return nil }
        var request = ServiceRequest(path: path, query: query, headers: HeaderFields([
            (name: "Accept", value: "application/json"), (name: "User-Agent", value: "ReaderKit/\(ReaderKitVersion.string)"),
        ]))
        service.adapt(&request)
        guard let url = Self.url(of: request, on: service.baseURL) else { return nil }
        return (request, url)
    }

    /// The URL of `request` below `baseURL`, without its ``ServiceRequest/secretQuery``.
    static func url(of request: ServiceRequest, on baseURL: URL) -> URL? {
        var text = baseURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        var path = Substring(request.path)
        while path.hasPrefix("/") { path = path.dropFirst() }
        text += encodePath(path)
        if !request.query.isEmpty { text += "?" + encodedQuery(request.query) }
        return URL(string: text)
    }

    /// The cache's key of `request`, whose URL is `url`: the URL normalised (``CacheKey``), with
    /// the request's ``ServiceRequest/cacheKeyQuery`` and never its secret query.
    static func cacheKey(of request: ServiceRequest, at url: URL) -> String {
        CacheKey.normalise(adding(request.cacheKeyQuery, to: url))
    }

    /// `items` as a query's text: `name=value` pairs, each part percent-encoded, joined by `&`.
    private static func encodedQuery(_ items: [URLQueryItem]) -> String {
        items.map { "\(percentEncode($0.name))=\(percentEncode($0.value ?? ""))" }.joined(separator: "&")
    }

    /// `url` with `items` added to its query: what is sent when a request has a secret query.
    static func adding(_ items: [URLQueryItem], to url: URL) -> URL {
        guard !items.isEmpty else { return url }
        let encoded = encodedQuery(items)
        let text = url.absoluteString
        let joined = text.contains("?") ? text + "&" + encoded : text + "?" + encoded
        return URL(string: joined) ?? url
    }

    /// The full URL in `configuration`; nil when the service is not registered there.
    public func url(in configuration: ServiceConfiguration) -> URL? {
        configuration[service].flatMap { request(for: $0)?.url }
    }

    /// A path as it is sent: characters a URL cannot hold are percent-encoded, `/` and what a
    /// path may hold are kept, so `films/1/` and `r/swift/hot.json` are sent as written.
    static func encodePath(_ path: Substring) -> String {
        percentEncoded(path, keeping: "-._~/!$&'()*+,;=:@%")
    }

    /// Encodes everything but RFC 3986's unreserved characters, so `+`, `&` and `=` in a search
    /// reach the server as themselves.
    public static func percentEncode(_ text: String) -> String {
        percentEncoded(text, keeping: "-._~")
    }

    /// `text` with each UTF-8 byte percent-encoded (`%2F`, upper-case hex), except ASCII letters,
    /// digits and the ASCII characters of `kept`: what `addingPercentEncoding(withAllowedCharacters:)`
    /// gives for that set, without building a `CharacterSet` for every request.
    private static func percentEncoded(_ text: some StringProtocol, keeping kept: StaticString) -> String {
        let keptBytes = UnsafeBufferPointer(start: kept.utf8Start, count: kept.utf8CodeUnitCount)
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let isLetterOrDigit = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            if isLetterOrDigit || keptBytes.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
