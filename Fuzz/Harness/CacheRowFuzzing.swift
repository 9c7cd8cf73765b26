import Foundation
import ReaderCLI
import ReaderKit

/// One fuzzer input as the values of a cache row — every column of an entry and of a rate
/// limit, each as any of SQLite's kinds (null, integer, real, text, blob) — written into a real
/// cache file as another program or a damaged disk would, then read back through everything that
/// reads it: the entry for a load (dropped when it cannot be right), its decoding and renderers,
/// `reader cache stats`, the rate-limit lock-outs `reader status` shows, prune and clear; and
/// the same bytes as the token file.
public enum CacheRowFuzzing {
    static let entryColumns = ["key", "api", "url", "status", "body", "contentType", "etag", "lastModified", "cacheControl",
                               "fetchedAt", "lastUsedAt", "bodySize"]
    static let rateLimitColumns = ["host", "api", "remaining", "resetAt", "observedAt"]
    static let key = "http://127.0.0.1/fuzz/row"

    /// Reads values from the input, one column after another: a byte chooses the kind and, for
    /// text and blobs, a second byte the length; integers and reals take eight bytes. An input
    /// that runs out gives nulls. With the first byte's low bit set, the row is a rate limit.
    /// - Returns: for an entry row, what reading it back as the first service's first answer came to (`ok`, `none`,
    ///   or a code such as `C1006`); nil for a rate-limit row or an empty input.
    @discardableResult
    public static func run(_ input: some Collection<UInt8>) async -> WholePathFuzzing.Outcome? {
        var reader = ValueReader(bytes: Array(input))
        guard let cache = WholePathFuzzing.cache, let selector = reader.byte() else { return nil }
        var outcome: WholePathFuzzing.Outcome?
        let now = WholePathFuzzing.now
        if selector & 1 == 0 {
            var values = entryColumns.map { _ in reader.value() }
            // Mostly keep the key the load asks for, so that the read reaches the row.
            if selector & 2 == 0 { values[0] = .text(key) }
            let names = WholePathFuzzing.services.map(\.service.name.rawValue)
            if selector & 4 == 0, !names.isEmpty { values[1] = .text(names[Int(selector >> 3) % names.count]) }
            try? cache.replaceRawRow(in: "response", columns: entryColumns, values: values)
            for (_, answers) in WholePathFuzzing.services {
                for answer in answers {
                    guard case .decoded(nil, _, let readStored) = answer.reading else { continue }
                    let read = await WholePathFuzzing.readBack(key: key, from: cache, readStored: readStored)
                    if outcome == nil { outcome = read }
                }
            }
        } else {
            var values = rateLimitColumns.map { _ in reader.value() }
            if selector & 2 == 0 { values[0] = .text("http://127.0.0.1") }
            if selector & 4 == 0, let name = WholePathFuzzing.services.last?.service.name { values[1] = .text(name.rawValue) }
            try? cache.replaceRawRow(in: "rateLimit", columns: rateLimitColumns, values: values)
            if let limits = try? await cache.rateLimits() {
                for limit in limits {
                    _ = limit.waitBeforeNextRequest(at: now, window: .seconds(600)).map { Duration.seconds($0) }
                    _ = limit.lockedOutUntil(at: now, window: .seconds(600)).map { RelativeAge.describe(moment: $0, from: now) }
                }
            }
            for (service, _) in WholePathFuzzing.services { _ = try? await cache.rateLimit(forOrigin: "http://127.0.0.1", service: service.name) }
        }
        if let statistics = try? await cache.statistics() {
            _ = Reader.Cache.Stats.render(statistics, now: now)
            _ = try? ReaderJSON.makeEncoder().encode(statistics)
        }
        if selector & 16 != 0 { _ = try? await cache.prune(fetchedBefore: now.addingTimeInterval(-86_400)) }
        if selector & 32 != 0 { _ = try? await cache.clear() }
        AnswerFuzzing.readFiles(input, in: WholePathFuzzing.folder)
        return outcome
    }

    /// Reads SQLite values out of fuzzer bytes.
    struct ValueReader {
        let bytes: [UInt8]
        var index = 0

        mutating func byte() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func eight() -> UInt64 {
            var value: UInt64 = 0
            for _ in 0..<8 { value = value << 8 | UInt64(byte() ?? 0) }
            return value
        }

        mutating func data() -> [UInt8] {
            let length = Int(byte() ?? 0)
            let end = min(bytes.count, index + length)
            defer { index = end }
            return Array(bytes[min(index, end)..<end])
        }

        mutating func value() -> RawDatabaseValue {
            switch (byte() ?? 0) % 8 {
            case 0: return .null
            case 1: return .integer(Int64(bitPattern: eight()))
            case 2: return .real(Double(bitPattern: eight()))
            case 3: return .text(String(decoding: data(), as: UTF8.self))
            case 4: return .blob(Data(data()))
            case 5: return .real([1e300, -1e300, 253_402_300_800, 1_790_000_000, 0, -1, .greatestFiniteMagnitude][Int(byte() ?? 0) % 7])
            case 6: return .integer([Int64.max, Int64.min, 0, -1, 1_790_000_000, 9_223_372_036_854_775_000][Int(byte() ?? 0) % 6])
            default: return .text(["2026-11-21 10:00:00.000", "not a date", "9999-12-31 23:59:59.999", "0000-01-01", ""][Int(byte() ?? 0) % 5])
            }
        }
    }
}
