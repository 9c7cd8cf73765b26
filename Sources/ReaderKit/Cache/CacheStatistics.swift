import Foundation

/// What `reader cache stats` shows: what the cache holds per API, and how it has served.
public struct CacheStatistics: Sendable, Equatable, Encodable {
    /// One API's share of the cache.
    public struct ServiceStatistics: Sendable, Equatable, Encodable {
        public var entries = 0
        /// The stored bodies' total size, which the size limit bounds.
        public var bytes = 0
        /// The oldest and newest `fetchedAt`.
        public var oldest: Date?
        public var newest: Date?
        /// Loads the cache answered without the network (fresh, offline, or stale on a failure).
        /// A stored error answer that answers a load again
        /// (``FreshnessPolicy/isStoredFailure(_:)``) is no hit: it brought nothing to read, and
        /// is not counted.
        public var hits = 0
        /// Loads that needed a body from the network.
        public var misses = 0
        /// Loads the network confirmed unchanged with a `304 Not Modified`: no body transferred.
        public var revalidations = 0

        public init() {}

        /// The share of loads answered without a body transfer, from 0 to 1; nil before any load.
        public var hitRatio: Double? {
            let loads = hits + misses + revalidations
            return loads == 0 ? nil : Double(hits + revalidations) / Double(loads)
        }

        enum CodingKeys: String, CodingKey {
            case entries, bytes, oldest, newest, hits, misses, revalidations
            case hitRatio = "hit_ratio"
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(entries, forKey: .entries)
            try container.encode(bytes, forKey: .bytes)
            try container.encode(oldest, forKey: .oldest)
            try container.encode(newest, forKey: .newest)
            try container.encode(hits, forKey: .hits)
            try container.encode(misses, forKey: .misses)
            try container.encode(revalidations, forKey: .revalidations)
            try container.encode(hitRatio, forKey: .hitRatio)
        }
    }

    public var path: String
    /// The file's size on disk, write-ahead log included: SQLite's pages make it larger than `bytes`.
    public var fileBytes = 0
    /// When the cache file was created (for a cache made before reader 0.2, its oldest entry).
    public var createdAt: Date?
    /// Each service's share: the services with entries or counts in the file, and those the
    /// client has registered (at zero when unused), so that a script can index without checking.
    public var services: [ServiceName: ServiceStatistics] = [:]

    public init(path: String, createdAt: Date? = nil) {
        self.path = path
        self.createdAt = createdAt
    }

    /// The sums over every service.
    public var total: ServiceStatistics {
        services.values.reduce(into: ServiceStatistics()) { total, api in
            total.entries += api.entries
            total.bytes += api.bytes
            total.hits += api.hits
            total.misses += api.misses
            total.revalidations += api.revalidations
            total.oldest = [total.oldest, api.oldest].compactMap { $0 }.min()
            total.newest = [total.newest, api.newest].compactMap { $0 }.max()
        }
    }

    enum CodingKeys: String, CodingKey {
        case path, total, apis
        case fileBytes = "file_bytes"
        case createdAt = "created_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(fileBytes, forKey: .fileBytes)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(total, forKey: .total)
        // Keyed `apis`, as scripts written before services were named read it.
        let byName = Dictionary(uniqueKeysWithValues: services.map { ($0.key.rawValue, $0.value) })
        try container.encode(byName, forKey: .apis)
    }
}

/// How a load used the cache, as counted by ``ResponseCache/recordUse(_:service:key:at:)``.
public enum CacheUse: Sendable, Equatable {
    /// Answered from the cache without the network, with data (a stored error answer that
    /// answers again is not counted at all).
    case hit
    /// A body came from the network.
    case miss
    /// The network confirmed the cached copy with a `304 Not Modified`.
    case revalidation
}

/// What ``ResponseCache/clear(service:)`` or ``ResponseCache/prune(fetchedBefore:service:now:)`` removed.
public struct CacheRemoval: Sendable, Equatable, Encodable {
    public var entries: Int
    public var bytes: Int

    public init(entries: Int, bytes: Int) {
        self.entries = entries
        self.bytes = bytes
    }
}
