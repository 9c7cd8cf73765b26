import Foundation
import Testing
import TestSupport

/// A thread deeper than the text keeps (issue 30 item 15): "never dropped silently" — the text
/// says how many levels of replies it does not show; `--json` has them all.
@Suite(.processSlot) struct DeepThreadEndToEndTests {
    /// A post whose one comment thread is `levels` comments deep, each the only reply of the one above.
    static func thread(levels: Int) -> [UInt8] {
        var replies = "\"\""
        for level in stride(from: levels, through: 1, by: -1) {
            let comment = #"{"kind": "t1", "data": {"id": "c\#(level)", "author": "a\#(level)", "body": "level \#(level)", "score": 1, "created_utc": 1700000100, "replies": \#(replies)}}"#
            replies = level == 1 ? comment : #"{"kind": "Listing", "data": {"after": null, "before": null, "children": [\#(comment)]}}"#
        }
        return Array("""
            [{"kind": "Listing", "data": {"after": null, "before": null, "children": [{"kind": "t3", "data": {
              "id": "abc", "name": "t3_abc", "title": "A deep post", "author": "someone", "subreddit": "swift", "score": 5,
              "num_comments": \(levels), "created_utc": 1700000000, "permalink": "/r/swift/comments/abc/", "is_self": true, "selftext": ""}}]}},
             {"kind": "Listing", "data": {"after": null, "before": null, "children": [\(replies)]}}]
            """.utf8)
    }

    @Test func aThreadDeeperThanTheTextKeepsSaysHowManyLevelsAreNotShown() async throws {
        try await withTestServer { _ in .json(Self.thread(levels: 31)) } body: { server in
            let result = try await ReaderProcess(server: server).run("comments", "abc")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("level 17\n"), "\(result.stdout)")
            #expect(!result.stdout.contains("level 18\n"), "\(result.stdout)")
            #expect(result.stdout.contains("… 14 more levels of replies not shown (--json has them)"), "\(result.stdout)")
        }
    }

    @Test func aThreadTheTextKeepsWholeHasNoSuchNote() async throws {
        try await withTestServer { _ in .json(Self.thread(levels: 10)) } body: { server in
            let result = try await ReaderProcess(server: server).run("comments", "abc")
            #expect(result.stdout.contains("level 10\n"), "\(result.stdout)")
            #expect(!result.stdout.contains("not shown"), "\(result.stdout)")
        }
    }
}
