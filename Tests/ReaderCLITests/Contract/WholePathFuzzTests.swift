import Foundation
import Testing
import ReaderFuzzing
import ReaderKit
import TestSupport

/// The fuzzers' whole-path entry points, replayed by `swift test`: every input that once crashed
/// them (`Fuzz/Regressions`, `Fuzz/CacheRowRegressions`), the recorded responses, and the absurd
/// numbers the robustness review found, each through validation, the decision, the cache and
/// every renderer. A trap here is a crash of `reader`.
@Suite struct WholePathFuzzTests {
    static let fuzz = PackageRoot.appending("Fuzz")

    static func files(in folder: String) throws -> [URL] {
        let url = fuzz.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path)
            .filter { !$0.hasPrefix(".") }.sorted().map { url.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    @Test func everyAnswerThatOnceCrashedIsSurvivedThroughTheWholePath() async throws {
        let files = try Self.files(in: "Regressions")
        #expect(!files.isEmpty)
        for file in files { await WholePathFuzzing.run(try Data(contentsOf: file)) }
    }

    @Test func everyCacheRowThatOnceCrashedIsSurvived() async throws {
        let files = try Self.files(in: "CacheRowRegressions")
        #expect(!files.isEmpty)
        for file in files { await CacheRowFuzzing.run(try Data(contentsOf: file)) }
    }

    @Test(.replaysRecordings) func everyRecordedResponseIsSurvivedThroughTheWholePath() async {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
        #expect(files.count > 20)
        for file in files {
            for headers in [[0, 0, 0x0F], [13, 0, 0x05], [0, 2, 0x00]] as [[UInt8]] {
                await WholePathFuzzing.run(headers + Fixtures.bytes(file).prefix(60_000))
            }
        }
    }

    /// A recorded answer goes the whole way: decoded, stored, read back and rendered.
    @Test(.replaysRecordings, arguments: [("swapi/films.json", "films"), ("swapi/people_page1.json", "people"), ("swapi/films_1.json", "films/1"),
                      ("swapi/people_1.json", "people/1"), ("reddit/listing_r_python_hot.json", "posts"),
                      ("reddit/comments_r_python_2xmo63.json", "comments")])
    func aRecordedAnswerIsRenderedAndReadBackFromTheCache(_ file: String, _ type: String) async {
        let outcomes = await WholePathFuzzing.run([0, 0, 0] + Fixtures.bytes(file))
        #expect(outcomes[type] == "ok", "\(file): \(outcomes)")
    }

    /// The review's numbers, in the fuzzer's input format: status 503 (index 15) with each
    /// Retry-After as header text (flag 0x81; 0x85 adds the rate-limit headers): a status failure
    /// for every endpoint type, whatever the number.
    @Test(arguments: ["99999999999999999999", "1e300", "-1e300", "nan", "inf", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func anAbsurdRetryAfterIsAStatusFailureThroughTheWholePath(_ value: String) async {
        for flags in [0x81, 0x85] as [UInt8] {
            let outcomes = await WholePathFuzzing.run([15, 3, flags] + Array((value + "\n<p>down</p>").utf8))
            #expect(outcomes.count == 15)
            #expect(Set(outcomes.values) == ["H503"], "\(value): \(outcomes)")
        }
    }

    @Test func aCountOf2To63IsD1005ForEveryCollection() async {
        let body = #"{"count": 9223372036854775807, "next": "x", "previous": null, "results": []}"#
        let outcomes = await WholePathFuzzing.run([0, 0, 0] + Array(body.utf8))
        for collection in ["films", "people", "planets", "species", "starships", "vehicles"] {
            #expect(outcomes[collection] == "D1005", "\(collection): \(outcomes)")
        }
    }

    @Test(arguments: [#""score": -9223372036854775808"#, #""num_comments": 9223372036854775807"#, #""created_utc": 1e300"#])
    func anAbsurdNumberInAPostIsD1005(_ field: String) async {
        var fields = [#""score": 1"#, #""num_comments": 1"#, #""created_utc": 1790000000"#]
        fields.removeAll { $0.hasPrefix(String(field.prefix(8))) }
        let post = #"{"id": "a", "name": "t3_a", "title": "t", "author": "u", "subreddit": "s", "permalink": "/p", "#
            + (fields + [field]).joined(separator: ", ") + "}"
        let body = #"{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": "# + post + "}]}}"
        #expect(await WholePathFuzzing.run([0, 0, 0] + Array(body.utf8))["posts"] == "D1005")
    }

    /// A cache row in the cache fuzzer's input format: a selector byte (0: an entry row under the
    /// key a load reads, of SWAPI), then each column's kind and value.
    enum Column {
        case null, integer(Int64), text(String), realPick(UInt8), integerPick(UInt8), textPick(UInt8)
        var bytes: [UInt8] {
            switch self {
            case .null: [0]
            case .integer(let value): [1] + withUnsafeBytes(of: UInt64(bitPattern: value).bigEndian) { Array($0) }
            case .text(let text): [3, UInt8(text.utf8.count)] + Array(text.utf8)
            case .realPick(let index): [5, index]
            case .integerPick(let index): [6, index]
            case .textPick(let index): [7, index]
            }
        }
    }

    static let emptyFilmsPage = #"{"count":0,"next":null,"previous":null,"results":[]}"#

    /// key, api (both set by the selector), url, status, body, contentType, etag, lastModified,
    /// cacheControl, fetchedAt, lastUsedAt, bodySize.
    static func row(status: Column = .integer(200), fetchedAt: Column = .textPick(0), bodySize: Column? = nil) -> [UInt8] {
        let columns: [Column] = [.null, .null, .text("u"), status, .text(emptyFilmsPage), .null, .null, .null, .null,
                                 fetchedAt, .textPick(0), bodySize ?? .integer(Int64(emptyFilmsPage.utf8.count))]
        return [0] + columns.flatMap(\.bytes)
    }

    @Test func aSoundCacheRowIsServed() async {
        #expect(await CacheRowFuzzing.run(Self.row()) == "ok")
    }

    @Test(arguments: [("fetchedAt 1e300", row(fetchedAt: .realPick(0))), ("fetchedAt -1e300", row(fetchedAt: .realPick(1))),
                      ("fetchedAt text", row(fetchedAt: .textPick(1))), ("bodySize Int64.max", row(bodySize: .integerPick(0))),
                      ("status 99999", row(status: .integer(99_999)))])
    func aCacheRowThatCannotBeRightIsDroppedAsC1006(_ name: String, _ input: [UInt8]) async {
        #expect(await CacheRowFuzzing.run(input) == "C1006", "\(name)")
    }
}
