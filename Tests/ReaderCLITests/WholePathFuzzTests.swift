import Foundation
import Testing
@_spi(Fuzzing) import ReaderCLI
@_spi(Fuzzing) import ReaderKit
import TestSupport

/// The fuzzers' whole-path entry points, replayed by `swift test`: every input that once crashed
/// them (`Fuzz/Regressions`, `Fuzz/CacheRowRegressions`), the recorded responses, and the absurd
/// numbers the robustness review found, each through validation, the decision, the cache and
/// every renderer. A trap here is a crash of `reader`.
@Suite struct WholePathFuzzTests {
    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func files(in folder: String) throws -> [URL] {
        let url = fuzz.appendingPathComponent(folder)
        return try FileManager.default.contentsOfDirectory(atPath: url.path)
            .filter { !$0.hasPrefix(".") }.sorted().map { url.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    @Test func everyAnswerThatOnceCrashedIsSurvivedThroughTheWholePath() throws {
        let files = try Self.files(in: "Regressions")
        #expect(!files.isEmpty)
        for file in files { WholePathFuzzing.run(try Data(contentsOf: file)) }
    }

    @Test func everyCacheRowThatOnceCrashedIsSurvived() throws {
        for file in try Self.files(in: "CacheRowRegressions") { CacheRowFuzzing.run(try Data(contentsOf: file)) }
    }

    @Test func everyRecordedResponseIsSurvivedThroughTheWholePath() {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
        #expect(files.count > 20)
        for file in files {
            for headers in [[0, 0, 0x0F], [13, 0, 0x05], [0, 2, 0x00]] as [[UInt8]] {
                WholePathFuzzing.run(headers + Fixtures.bytes(file).prefix(60_000))
            }
        }
    }

    /// The review's numbers, in the fuzzer's input format: status 503 (index 15) with each
    /// Retry-After as header text (flag 0x81), and bodies with the absurd fields.
    @Test(arguments: ["99999999999999999999", "1e300", "-1e300", "nan", "inf", "1e400", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func anAbsurdRetryAfterIsSurvivedThroughTheWholePath(_ value: String) {
        WholePathFuzzing.run([15, 0, 0x81] + Array((value + "\n{}").utf8))
        WholePathFuzzing.run([15, 0, 0x85] + Array((value + "\n{}").utf8))
    }

    @Test(arguments: [
        #"{"count": 9223372036854775807, "next": "x", "previous": null, "results": [{"name": "a", "url": "u/1/"}]}"#,
        #"{"kind": "Listing", "data": {"children": [{"kind": "t3", "data": {"id": "a", "name": "t3_a", "title": "t", "author": "u", "subreddit": "s", "score": -9223372036854775808, "num_comments": 1, "created_utc": 1e300, "permalink": "/p"}}]}}"#,
    ])
    func anAbsurdBodyIsSurvivedThroughTheWholePath(_ body: String) {
        WholePathFuzzing.run([0, 0, 0] + Array(body.utf8))
    }

    /// Rows with each column as a value no row of reader's has: a date of 1e300 (kind 5, index 0),
    /// Int64.max sizes (kind 6, index 0), text where numbers belong.
    @Test(arguments: [[0, 0, 0, 3, 5, 0, 5, 0, 6, 0] as [UInt8], [0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 7, 1, 7, 1, 6, 0],
                      [1, 3, 3, 97, 98, 99, 0, 5, 0, 5, 0, 5, 0], [1, 0, 0, 2, 0, 7, 1, 7, 1]])
    func anAbsurdCacheRowIsSurvived(_ input: [UInt8]) {
        CacheRowFuzzing.run(input)
    }
}
