import Foundation
import Testing
import ReaderFuzzing
import ReaderKit
import TestSupport

/// Replays, through the fuzzer's own entry point, every input the fuzzer ever crashed on
/// (`Fuzz/Regressions`), and the recorded responses under each status and content type. A crash
/// here is a crash the fuzzer found again.
@Suite struct FuzzRegressionTests {
    static var regressions: URL {
        PackageRoot.appending("Fuzz/Regressions")
    }

    @Test func everyInputThatOnceCrashedIsSurvived() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.regressions.path)
            .filter { !$0.hasPrefix(".") }.sorted()
        #expect(names.contains("reddit-comment-thread-100-levels-deep-took-seconds"), "the regressions are found: \(names)")
        for name in names {
            let bytes = try Data(contentsOf: Self.regressions.appendingPathComponent(name))
            AnswerFuzzing.run(bytes)
        }
    }

    /// The regression that was slow rather than a crash: a thread 100 comments deep (header bytes
    /// 0, 0, 0: a 200 answer, `application/json`, no other headers). What bounds its cost is the
    /// work done, not the time taken: a comment tree is cut below sixteen levels of replies (17
    /// comments, one a level, are decoded of the 100), and JSONValue through a Decoder stops at 64
    /// coding-path steps. Each way of reading it ends in a value or a classified error.
    @Test func theHundredLevelThreadIsCutAtItsDocumentedDepth() throws {
        let input = try Data(contentsOf: Self.regressions.appendingPathComponent("reddit-comment-thread-100-levels-deep-took-seconds"))
        #expect(Array(input.prefix(3)) == [0, 0, 0])
        let response = HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data(input.dropFirst(3)))
        func decode<Value: Decodable>(_ type: Value.Type) -> Result<Value, ReaderError> {
            Result { () throws(ReaderError) in try ResponseValidator.decode(type, from: response, url: "http://127.0.0.1/fuzz") }
        }

        func comments(in listing: RedditListing?) -> [Int] {
            (listing?.comments ?? []).map { 1 + (comments(in: $0.replies).max() ?? 0) }
        }
        let listing = try decode(RedditListing.self).get()
        #expect(comments(in: listing) == [17], "one thread, cut after 17 comments")

        #expect(throws: Never.self) { try JSONValue(parsing: input.dropFirst(3)) }
        // Past 64 steps each kind JSONValue tries fails, and the last try's failure is what is
        // reported (an object expected where the outer array is): a D code, exit 65, whichever.
        guard case .failure(let tooDeep) = decode(JSONValue.self), case .decoding = tooDeep else {
            Issue.record("JSONValue through a Decoder must stop at its 64-step cap")
            return
        }
        #expect(tooDeep.exitCode.rawValue == 65, "\(tooDeep)")
        guard case .failure(.decoding(let notAPage)) = decode(RedditCommentPage.self) else {
            Issue.record("a listing is not a post's page (an array of two listings)")
            return
        }
        #expect(notAPage.reason == .typeMismatch, "\(notAPage)")
    }

    @Test(.replaysRecordings) func everyRecordedResponseIsSurvivedUnderEveryStatusAndContentType() {
        let files = Fixtures.names(in: "swapi", withExtension: "json") + Fixtures.names(in: "reddit", withExtension: "json")
            + Fixtures.names(in: "reddit", withExtension: "html") + Fixtures.names(in: "swapi", withExtension: "html")
        #expect(files.count > 20)
        for file in files {
            let body = Fixtures.bytes(file).prefix(20_000)
            for status in [0, 9, 11, 13, 200] as [UInt8] {
                for contentType in [0, 2, 3, 8] as [UInt8] {
                    AnswerFuzzing.run([status, contentType, 0x0F] + body)
                }
            }
        }
    }
}
