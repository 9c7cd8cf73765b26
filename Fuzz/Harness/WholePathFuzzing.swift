import Foundation
import ArgumentParser
import ReaderCLI
import ReaderKit

/// One fuzzer input through the whole path an answer takes in `reader`: status, headers and body
/// in → validation and decoding as every endpoint's type → the ErrorHandler's decision and every
/// presentation of a failure (message, hint, detail, `--json` error, exit code, a sync's summary)
/// → for an answer that decodes, the row stored in a real cache file → the row read back and
/// decoded again → every renderer (tables at several widths, detail views, the comment tree,
/// footers, `--json`).
///
/// ``CacheRowFuzzing`` does the same from the other end: arbitrary values in a cache row.
/// Shared by the libFuzzer targets (`Fuzz/`) and the regression tests.
public enum WholePathFuzzing {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    /// Widths a terminal may have, and nil for a pipe.
    static let widths: [Int?] = [nil, 1, 20, 40, 80, 200]

    /// A private folder for this process's cache file, made once.
    static let folder: String = {
        let path = NSTemporaryDirectory() + "reader-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Runs `body` to its end from libFuzzer's synchronous callback, as the cache's API is `async`.
    /// Only from libFuzzer's own thread: called from Swift concurrency it would block a thread
    /// the task may need.
    public static func waiting(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }

    /// The cache the fuzzer stores into and reads back from: a real file, as `reader` uses it.
    static let cache: ResponseCache? = try? ResponseCache.open(path: folder + "/cache.sqlite")

    /// What became of one input for one endpoint type: `ok` (decoded, stored, read back, rendered),
    /// or the code of the failure it ended with (`D1005`, `H503`, `C1006`…), which is the code
    /// `reader` shows and the one its exit code follows.
    public typealias Outcome = String

    /// The services fuzzed: the registry's, each at its defaults, with the answers it reads.
    static let services: [(service: any Service, answers: [ServiceAnswer])] = {
        let services = ServiceRegistry.builtIn.servicesAtTheirDefaults
        return ServiceRegistry.builtIn.plugins.compactMap { plugin in services[plugin.name].map { ($0, plugin.answers) } }
    }()

    /// Each width at the fuzzer's moment.
    static let showings = widths.map { ServiceAnswer.Showing(width: $0, now: now) }

    /// Runs one input (the format of ``AnswerFuzzing/run(_:)``) through every service's answers
    /// that an endpoint decodes from the body as it came.
    /// - Returns: the outcome for each such answer, by its name (`films`, `posts`).
    @discardableResult
    public static func run(_ input: some Collection<UInt8>) async -> [String: Outcome] {
        AnswerFuzzing.run(input)
        guard let (response, _) = AnswerFuzzing.answer(input) else { return [:] }
        var outcomes: [String: Outcome] = [:]
        for (service, answers) in services {
            for answer in answers {
                guard case .decoded(nil, let read, let readStored) = answer.reading else { continue }
                outcomes[answer.name] = await through(response, as: answer.name, service: service, read: read, readStored: readStored)
            }
        }
        return outcomes
    }

    /// Decodes `response` as a load does, shows it, stores it, reads it back and shows it again;
    /// or decides on and presents the failure.
    static func through(_ response: HTTPResponse, as name: String, service: any Service,
                        read: (HTTPResponse, String, any Service, [ServiceAnswer.Showing]) throws(ReaderError) -> Void,
                        readStored: @escaping (Data, [ServiceAnswer.Showing]) -> Bool) async -> Outcome {
        // A key of its own: a copy of another answer's shape under it would not read back as this one.
        let url = "http://127.0.0.1/fuzz/\(service.name)/\(name)"
        do throws(ReaderError) {
            try read(response, url, service, showings)
            renderJSON(response.body)
            let entry = CacheEntry(key: url, service: service.name, url: url, status: response.status, body: response.body,
                                   contentType: response.headers["Content-Type"], etag: response.headers["ETag"],
                                   lastModified: response.headers["Last-Modified"], cacheControl: response.headers["Cache-Control"],
                                   fetchedAt: now)
            guard FreshnessPolicy.mayStore(cacheControl: entry.cacheControl), let cache else { return "ok" }
            return await readBack(key: url, from: cache, afterStoring: entry, readStored: readStored)
        } catch {
            present(error.answered(by: service))
            return error.code.description
        }
    }

    /// Stores `entry` (when given), then reads `key` back as a load would: a damaged row is
    /// dropped, a copy that no longer decodes is none, and what decodes is judged and rendered.
    /// - Returns: `ok` when a copy was rendered, `none` when there is none to serve, else the
    ///   cache failure's code (`C1006` for a damaged row).
    @discardableResult
    static func readBack(key: String, from cache: ResponseCache, afterStoring entry: CacheEntry? = nil,
                         readStored: (Data, [ServiceAnswer.Showing]) -> Bool) async -> Outcome {
        do throws(CacheFailure) {
            if let entry { try await cache.store(entry, sizeLimit: 4 * 1024 * 1024) }
            guard let stored = try await cache.entry(forKey: key) else { return "none" }
            let freshness = FreshnessPolicy.default
            let rule = FreshnessPolicy.Rule(defaultLifetime: .seconds(60), minimumLifetime: .seconds(60))
            _ = (freshness.isFresh(stored, rule: rule, at: now), freshness.history.mayShow(stored, at: now), freshness.lifetime(of: stored, rule: rule))
            _ = RelativeAge.describe(seconds: stored.ageSeconds(at: now))
            _ = ReaderJSON.formatTimestamp(stored.fetchedAt)
            guard readStored(stored.body, showings) else { return "none" }
            renderJSON(stored.body)
            return "ok"
        } catch {
            present(.cache(error))
            return ReaderError.cache(error).code.description
        }
    }

    /// Every way `reader` shows a failure, and the exit code it ends with.
    static func present(_ error: ReaderError) {
        AnswerFuzzing.decideAndPresent(error)
        _ = error.exitCode.rawValue
        _ = try? ReaderJSON.makeEncoder().encode(JSONValue.object([
            "code": .string(error.code.description), "message": .string(CLIWording.message(of: error)),
            "hint": .string(CLIWording(registry: .builtIn).text(of: error.hints())), "detail": .string(error.technicalDetail),
        ]))
        _ = TerminalText.sanitise(error.technicalDetail, maxLength: 2000)
    }

    /// `--json`: the body parsed as a tree and written back out, as the JSON renderer does.
    static func renderJSON(_ body: Data) {
        guard let tree = try? JSONValue(parsing: body) else { return }
        _ = JSONValue.object(["items": tree["results"] ?? tree, "meta": .null]).serialized()
    }
}
