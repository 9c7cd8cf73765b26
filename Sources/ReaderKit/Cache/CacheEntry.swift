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
    /// Every `Cache-Control` line of the response, as one list.
    public var cacheControl: String?
    /// The response's `Date`, as sent.
    public var date: String?
    /// Every `Expires` line of the response, as sent (more than one is no date: already expired).
    public var expires: String?
    /// Every `Age` line of the response, as sent (RFC 9111 §5.1; more than one is ignored).
    public var age: String?
    /// Every `Vary` line of the response, as one list.
    public var vary: String?
    /// What the request held in the fields `vary` names (``Vary/requestFingerprint(vary:requestHeaders:)``).
    public var varyRequest: String?
    /// When the request that brought the response (or its last `304`) was sent; nil in entries
    /// stored before reader kept it, whose age then counts from ``fetchedAt``.
    public var requestedAt: Date?
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
        case date = "dateHeader", expires = "expiresHeader", age = "ageHeader", vary = "varyHeader", varyRequest, requestedAt
    }

    /// The optional text columns, in the order ``init(storedRow:)`` keeps them.
    static let optionalTextColumns = ["contentType", "etag", "lastModified", "cacheControl", "dateHeader", "expiresHeader", "ageHeader",
                                      "varyHeader", "varyRequest"]

    public enum Columns {
        public static let key = Column(CodingKeys.key)
        public static let service = Column(CodingKeys.service)
        public static let fetchedAt = Column(CodingKeys.fetchedAt)
        public static let lastUsedAt = Column(CodingKeys.lastUsedAt)
        public static let bodySize = Column(CodingKeys.bodySize)
    }

    public init(key: String, service: ServiceName, url: String, status: Int, body: Data, contentType: String? = nil,
                etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, date: String? = nil,
                expires: String? = nil, age: String? = nil, vary: String? = nil, varyRequest: String? = nil, requestedAt: Date? = nil,
                fetchedAt: Date, lastUsedAt: Date? = nil) {
        self.key = key
        self.service = service
        self.url = url
        self.status = status
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.date = date
        self.expires = expires
        self.age = age
        self.vary = vary
        self.varyRequest = varyRequest
        self.requestedAt = requestedAt
        self.fetchedAt = fetchedAt
        self.lastUsedAt = lastUsedAt ?? fetchedAt
        self.bodySize = body.count
    }

    /// The entry `row` holds (a row of `SELECT *`) when each column holds what reader stores in
    /// it: text, whole numbers, a blob, dates in GRDB's shape (``StoredDate``); nil for anything
    /// else, which the Codable decoding reads (or reports) as it always has. The same entry as
    /// that decoding, without its generic machinery, on every cached read.
    init?(storedRow row: Row) {
        var key, service, url: String?
        var status, bodySize: Int64?
        var body: Data?
        var optionals = [String?](repeating: nil, count: Self.optionalTextColumns.count)
        var fetchedAt, lastUsedAt, requestedAt: Date?
        var seen = 0
        for (column, value) in row {
            switch (column, value.storage) {
            case ("key", .string(let text)): key = text
            case ("api", .string(let text)): service = text
            case ("url", .string(let text)): url = text
            case ("status", .int64(let number)): status = number
            case ("bodySize", .int64(let number)): bodySize = number
            case ("body", .blob(let data)): body = data
            case ("fetchedAt", .string(let text)): fetchedAt = StoredDate.date(text)
            case ("lastUsedAt", .string(let text)): lastUsedAt = StoredDate.date(text)
            case ("requestedAt", .null): requestedAt = nil
            case ("requestedAt", .string(let text)):
                guard let date = StoredDate.date(text) else { return nil }
                requestedAt = date
            case (_, _) where Self.optionalTextColumns.contains(column):
                let index = Self.optionalTextColumns.firstIndex(of: column) ?? 0
                switch value.storage {
                case .null: optionals[index] = nil
                case .string(let text): optionals[index] = text
                default: return nil
                }
            default: continue
            }
            seen += 1
        }
        guard seen == 9 + Self.optionalTextColumns.count, let key, let service = service.flatMap(ServiceName.init(rawValue:)), let url, let status, let status = Int(exactly: status),
              let bodySize, let bodySize = Int(exactly: bodySize), let body, let fetchedAt, let lastUsedAt else { return nil }
        self.key = key
        self.service = service
        self.url = url
        self.status = status
        self.body = body
        self.contentType = optionals[0]
        self.etag = optionals[1]
        self.lastModified = optionals[2]
        self.cacheControl = optionals[3]
        self.date = optionals[4]
        self.expires = optionals[5]
        self.age = optionals[6]
        self.vary = optionals[7]
        self.varyRequest = optionals[8]
        self.requestedAt = requestedAt
        self.fetchedAt = fetchedAt
        self.lastUsedAt = lastUsedAt
        self.bodySize = bodySize
    }

    /// Why this entry, read back from the file, cannot be right; nil when it can. The file is
    /// outside reader's control (another program, a damaged disk): an entry whose instants no
    /// calendar shows, whose size is not its body's, or whose status was never stored is dropped
    /// rather than served or computed with.
    public var damage: String? {
        if !OutsideNumbers.isPlausible(fetchedAt) { return "fetchedAt is not a date from 1970 to 9999" }
        if !OutsideNumbers.isPlausible(lastUsedAt) { return "lastUsedAt is not a date from 1970 to 9999" }
        if let requestedAt, !OutsideNumbers.isPlausible(requestedAt) { return "requestedAt is not a date from 1970 to 9999" }
        if bodySize != body.count { return "bodySize \(bodySize) is not the body's \(body.count) bytes" }
        // An error answer is stored too (``FreshnessPolicy/mayStoreFailure(_:)``): any status a
        // final answer can have.
        if !(200...599).contains(status) { return "status \(status) is not a stored answer's" }
        if key.isEmpty { return "the key is empty" }
        return nil
    }

    /// Marks the entry as confirmed unchanged at `now` by a `304` (RFC 9111 §4.3.4): the header
    /// fields it sent replace the stored ones; those it did not send stay, except `Date` and
    /// `Age`, which belong to the `304` (a `304` without them makes the copy's age count from now).
    mutating func confirm(at now: Date, by confirmation: Confirmation) {
        fetchedAt = now
        lastUsedAt = now
        requestedAt = confirmation.requestedAt
        etag = confirmation.etag ?? etag
        lastModified = confirmation.lastModified ?? lastModified
        cacheControl = confirmation.cacheControl ?? cacheControl
        expires = confirmation.expires ?? expires
        date = confirmation.date
        age = confirmation.age
    }

    /// What a `304 Not Modified` says of a stored copy: the header fields that matter, and when
    /// the request it answered was sent.
    public struct Confirmation: Sendable, Equatable {
        public var etag: String?
        public var lastModified: String?
        public var cacheControl: String?
        public var expires: String?
        public var date: String?
        public var age: String?
        public var requestedAt: Date?

        public init(etag: String? = nil, lastModified: String? = nil, cacheControl: String? = nil, expires: String? = nil,
                    date: String? = nil, age: String? = nil, requestedAt: Date? = nil) {
            self.etag = etag
            self.lastModified = lastModified
            self.cacheControl = cacheControl
            self.expires = expires
            self.date = date
            self.age = age
            self.requestedAt = requestedAt
        }

        /// What `headers` (a `304`'s) say, for a request sent at `requestedAt`.
        public init(headers: HeaderFields, requestedAt: Date?) {
            self.init(etag: headers["ETag"], lastModified: headers["Last-Modified"], cacheControl: HeaderList.combined("Cache-Control", in: headers),
                      expires: HeaderList.combined("Expires", in: headers), date: headers["Date"], age: HeaderList.combined("Age", in: headers),
                      requestedAt: requestedAt)
        }
    }

    /// The stored header fields that matter to a reader of the cache, by lowercased name;
    /// absent ones are left out.
    public var storedHeaders: [String: String] {
        let fields: [(String, String?)] = [("etag", etag), ("last-modified", lastModified), ("cache-control", cacheControl),
                                           ("expires", expires), ("date", date), ("age", age), ("vary", vary)]
        return Dictionary(uniqueKeysWithValues: fields.compactMap { name, value in value.map { (name, $0) } })
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
