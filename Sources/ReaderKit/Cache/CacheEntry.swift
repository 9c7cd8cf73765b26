import Foundation
import GRDB

/// One stored response: its body and what is needed to judge and revalidate its freshness.
public struct CacheEntry: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "response"

    /// The normalised URL (see ``CacheKey``).
    public var key: String
    /// The service that answered.
    public var service: ServiceName
    /// The URL as requested.
    public var url: String
    public var status: Int
    public var body: Data
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    public var cacheControl: String?
    /// When the response arrived, or was last confirmed unchanged by a `304 Not Modified`.
    public var fetchedAt: Date
    /// When the entry was last served or stored: the least recently used go first when the cache is full.
    public var lastUsedAt: Date
    /// The body's size in bytes, kept so that the cache's size is a sum over an integer column.
    public private(set) var bodySize: Int

    /// The columns keep their first names: the service's is `api`, so that files written before
    /// services were named keep every entry.
    enum CodingKeys: String, CodingKey {
        case key, service = "api", url, status, body, contentType, etag, lastModified, cacheControl, fetchedAt, lastUsedAt, bodySize
    }

    public enum Columns {
        public static let key = Column(CodingKeys.key)
        public static let service = Column(CodingKeys.service)
        public static let fetchedAt = Column(CodingKeys.fetchedAt)
        public static let lastUsedAt = Column(CodingKeys.lastUsedAt)
        public static let bodySize = Column(CodingKeys.bodySize)
    }

    public init(key: String, service: ServiceName, url: String, status: Int, body: Data, contentType: String? = nil,
                etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, fetchedAt: Date,
                lastUsedAt: Date? = nil) {
        self.key = key
        self.service = service
        self.url = url
        self.status = status
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.fetchedAt = fetchedAt
        self.lastUsedAt = lastUsedAt ?? fetchedAt
        self.bodySize = body.count
    }

    /// Why this entry, read back from the file, cannot be right; nil when it can. The file is
    /// outside reader's control (another program, a damaged disk): an entry whose instants no
    /// calendar shows, whose size is not its body's, or whose status was never stored is dropped
    /// rather than served or computed with.
    public var damage: String? {
        if !OutsideNumbers.isPlausible(fetchedAt) { return "fetchedAt is not a date from 1970 to 9999" }
        if !OutsideNumbers.isPlausible(lastUsedAt) { return "lastUsedAt is not a date from 1970 to 9999" }
        if bodySize != body.count { return "bodySize \(bodySize) is not the body's \(body.count) bytes" }
        if !(200...299).contains(status) { return "status \(status) is not a stored answer's" }
        if key.isEmpty { return "the key is empty" }
        return nil
    }

    /// Whether a revalidation can be asked for: the server gave a validator.
    public var canRevalidate: Bool { etag != nil || lastModified != nil }

    /// How old the entry is at `now`, in whole seconds, never negative.
    public func ageSeconds(at now: Date) -> Int {
        max(0, OutsideNumbers.wholeSeconds(now.timeIntervalSince(fetchedAt)))
    }
}

extension ServiceName: DatabaseValueConvertible {}

/// The key a response is cached under: its URL, normalised so that the same request always finds
/// the same entry (scheme and host lowercased, default port and fragment dropped, query sorted).
public enum CacheKey {
    public static func normalise(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if (components.scheme == "http" && components.port == 80) || (components.scheme == "https" && components.port == 443) {
            components.port = nil
        }
        components.fragment = nil
        if let items = components.percentEncodedQueryItems, !items.isEmpty {
            components.percentEncodedQueryItems = items.sorted { ($0.name, $0.value ?? "") < ($1.name, $1.value ?? "") }
        } else {
            components.percentEncodedQuery = nil
        }
        if components.path.isEmpty { components.path = "/" }
        return components.string ?? url.absoluteString
    }
}
