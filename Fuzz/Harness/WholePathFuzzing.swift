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

    /// Runs one input (the format of ``AnswerFuzzing/run(_:)``) through every endpoint type.
    /// - Returns: the outcome for each endpoint type, by the type's name.
    @discardableResult
    public static func run(_ input: some Collection<UInt8>) async -> [String: Outcome] {
        AnswerFuzzing.run(input)
        guard let (response, _) = AnswerFuzzing.answer(input) else { return [:] }
        return await [
            "films": through(SWAPIPage<Film>.self, response, service: SWAPIService(), render: renderList),
            "people": through(SWAPIPage<Person>.self, response, service: SWAPIService(), render: renderList),
            "planets": through(SWAPIPage<Planet>.self, response, service: SWAPIService(), render: renderList),
            "species": through(SWAPIPage<Species>.self, response, service: SWAPIService(), render: renderList),
            "starships": through(SWAPIPage<Starship>.self, response, service: SWAPIService(), render: renderList),
            "vehicles": through(SWAPIPage<Vehicle>.self, response, service: SWAPIService(), render: renderList),
            "film": through(Film.self, response, service: SWAPIService(), render: renderDetail),
            "person": through(Person.self, response, service: SWAPIService(), render: renderDetail),
            "planet": through(Planet.self, response, service: SWAPIService(), render: renderDetail),
            "species/1": through(Species.self, response, service: SWAPIService(), render: renderDetail),
            "starship": through(Starship.self, response, service: SWAPIService(), render: renderDetail),
            "vehicle": through(Vehicle.self, response, service: SWAPIService(), render: renderDetail),
            "posts": through(RedditListing.self, response, service: RedditService(), render: renderListing),
            "comments": through(RedditCommentPage.self, response, service: RedditService(), render: renderComments),
        ]
    }

    /// Decodes `response` as `type` as a load does, stores it, reads it back and renders it; or
    /// decides on and presents the failure.
    static func through<Value: Decodable>(_ type: Value.Type, _ response: HTTPResponse, service: any Service,
                                          render: (Value, Data) -> Void) async -> Outcome {
        let url = "http://127.0.0.1/fuzz/\(Value.self)"
        do throws(ReaderError) {
            let value = try ResponseValidator.decode(type, from: response, url: url, now: now, service: service)
            render(value, response.body)
            let entry = CacheEntry(key: url, service: service.name, url: url, status: response.status, body: response.body,
                                   contentType: response.headers["Content-Type"], etag: response.headers["ETag"],
                                   lastModified: response.headers["Last-Modified"], cacheControl: response.headers["Cache-Control"],
                                   fetchedAt: now)
            guard FreshnessPolicy.mayStore(cacheControl: entry.cacheControl), let cache else { return "ok" }
            return await readBack(type, key: url, from: cache, afterStoring: entry, render: render)
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
    static func readBack<Value: Decodable>(_ type: Value.Type, key: String, from cache: ResponseCache,
                                           afterStoring entry: CacheEntry? = nil, render: (Value, Data) -> Void) async -> Outcome {
        do throws(CacheFailure) {
            if let entry { try await cache.store(entry, sizeLimit: 4 * 1024 * 1024) }
            guard let stored = try await cache.entry(forKey: key) else { return "none" }
            let freshness = FreshnessPolicy.default
            let rule = FreshnessPolicy.Rule(defaultLifetime: .seconds(60), minimumLifetime: .seconds(60))
            _ = (freshness.isFresh(stored, rule: rule, at: now), freshness.history.mayShow(stored, at: now), freshness.lifetime(of: stored, rule: rule))
            _ = RelativeAge.describe(seconds: stored.ageSeconds(at: now))
            _ = ReaderJSON.formatTimestamp(stored.fetchedAt)
            guard let value = try? ReaderJSON.makeDecoder().decode(Value.self, from: stored.body) else { return "none" }
            render(value, stored.body)
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
            "suggestion": .string(CLIWording.hint(error.advice)), "detail": .string(error.technicalDetail),
        ]))
        _ = TerminalText.sanitise(error.technicalDetail, maxLength: 2000)
    }

    /// `--json`: the body parsed as a tree and written back out, as the JSON renderer does.
    static func renderJSON(_ body: Data) {
        guard let tree = try? JSONValue(parsing: body) else { return }
        _ = JSONValue.object(["items": tree["results"] ?? tree, "meta": .null]).serialized()
    }

    static func renderList<Resource: SWAPIResource & Presentable>(_ page: SWAPIPage<Resource>, _ body: Data) {
        for width in widths {
            _ = Resource.table(page.results).render(width: width)
        }
        _ = SWAPI.pageCount(of: page)
        _ = SWAPIList<Resource>.footer(page, page: 1)
        _ = SWAPIList<Resource>.footer(page, page: 10_000)
        renderJSON(body)
    }

    static func renderDetail<Resource: SWAPIResource & Presentable>(_ resource: Resource, _ body: Data) {
        let links = resource.links.flatMap(\.1)
        let names = Dictionary(links.prefix(3).map { ($0, "Name of \($0)") }, uniquingKeysWith: { first, _ in first })
        for width in widths {
            _ = resource.detailLines(names: names, width: width, style: .plain)
        }
        renderJSON(body)
    }

    static func renderListing(_ listing: RedditListing, _ body: Data) {
        let table = Reader.Posts.table(listing.posts, now: now)
        for width in widths { _ = table.render(width: width) }
        for width in widths {
            _ = CommentTree.lines(listing.children, depth: 0, now: now, width: width, style: .plain)
        }
        renderJSON(body)
    }

    static func renderComments(_ page: RedditCommentPage, _ body: Data) {
        for width in widths {
            _ = CommentTree.header(page.post, now: now, width: width, style: .plain)
            _ = CommentTree.lines(page.comments.children, depth: 0, now: now, width: width, style: .plain)
        }
        renderJSON(body)
    }
}

/// A SWAPI command for any resource type, to reach the footer the six commands share.
struct SWAPIList<Resource: SWAPIResource & Presentable>: SWAPICommand {
    static var configuration: CommandConfiguration { CommandConfiguration(commandName: "list") }
    @OptionGroup var query: SWAPIQuery
    @OptionGroup var options: GlobalOptions
}
