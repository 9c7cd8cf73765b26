import Foundation

/// The two services ReaderKit reads.
public enum API: String, Sendable, Codable, CaseIterable {
    case swapi
    case reddit
}

/// A request as a value: which API, which path, which query, and the type the answer decodes to.
///
/// Build endpoints with ``SWAPI`` and ``Reddit``; they validate their arguments before any
/// request is made.
public struct Endpoint<Response: Decodable & Sendable>: Sendable, Hashable {
    public var api: API
    /// The path below the API's base URL, such as `films/1/` or `r/swift/hot.json`.
    public var path: String
    /// The query, in order.
    public var query: [URLQueryItem]

    public init(api: API, path: String, query: [URLQueryItem] = []) {
        self.api = api
        self.path = path
        self.query = query
    }

    /// The full URL against the configured base.
    public func url(in configuration: ServiceConfiguration) -> URL {
        var text = configuration.baseURL(for: api).absoluteString
        if !text.hasSuffix("/") { text += "/" }
        // The OAuth host serves the same listings without the `.json` the public site needs.
        text += api == .reddit && configuration.redditCredentials != nil && path.hasSuffix(".json") ? String(path.dropLast(5)) : path
        let encoded = query.map { "\(Self.percentEncode($0.name))=\(Self.percentEncode($0.value ?? ""))" }
        if !encoded.isEmpty { text += "?" + encoded.joined(separator: "&") }
        // Every part was percent-encoded above, so this cannot fail for a valid base URL.
        return URL(string: text)!
    }

    /// Encodes everything but RFC 3986's unreserved characters, so `+`, `&` and `=` in a search
    /// reach the server as themselves.
    static func percentEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
