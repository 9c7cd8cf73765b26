import Foundation

/// Where a loaded value came from and how old it is.
public struct LoadMetadata: Sendable, Equatable, Codable {
    public enum Source: String, Sendable, Codable {
        /// A new body from the network.
        case network
        /// The cached copy, without the network.
        case cache
        /// The cached copy, confirmed unchanged by the network with a `304 Not Modified`.
        case revalidated
    }

    public var source: Source
    /// Whether the data is older than its freshness lifetime.
    public var stale: Bool
    public var fetchedAt: Date
    public var ageSeconds: Int
    /// The code of the error that made a stale copy be served, if one did.
    public var errorCode: ErrorCode?
    public var url: String

    enum CodingKeys: String, CodingKey {
        case source, stale, url
        case fetchedAt = "fetched_at"
        case ageSeconds = "age_seconds"
        case errorCode = "error_code"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(stale, forKey: .stale)
        try container.encode(fetchedAt, forKey: .fetchedAt)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(errorCode, forKey: .errorCode)  // null when none, so scripts can rely on the key
        try container.encode(url, forKey: .url)
    }
}
