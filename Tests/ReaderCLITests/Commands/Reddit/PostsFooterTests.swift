import Foundation
import Testing
import TestSupport
@testable import ReaderCLI

/// The footer of `reader posts` (issue 30 item 2): only a cursor `--after` accepts, quoted for a
/// shell; anything else a server sends as `after` makes no footer at all.
@Suite(.processSlot) struct PostsFooterTests {
    @Test(arguments: [
        ("t3_2xmo63", "more: --after t3_2xmo63"),
        ("t3_abc$(touch x);x", nil),
        ("t3_abc x", nil),
        ("t3_ABC", nil),
        ("`id`", nil),
        ("", nil),
    ] as [(String, String?)])
    func onlyAFullnameMakesAFooter(_ cursor: String, _ expected: String?) {
        #expect(PostsFooter.more(after: cursor) == expected)
    }

    @Test(arguments: [
        ("t3_abc", "t3_abc"),
        ("a b", "'a b'"),
        ("it's", #"'it'\''s'"#),
        ("$(touch x)", "'$(touch x)'"),
        ("", "''"),
    ])
    func aWordIsQuotedForAShellWhenItNeedsTo(_ text: String, _ expected: String) {
        #expect(ShellWord.quoted(text) == expected)
    }

    @Test func aCursorThatRunsACommandInAShellMakesNoFooter() async throws {
        let page = Array(#"{"kind": "Listing", "data": {"after": "t3_abc$(touch x);x", "before": null, "children": [{"kind": "t3", "data": {"id": "a", "name": "t3_a", "title": "post a", "author": "a", "subreddit": "swift", "score": 1, "num_comments": 0, "created_utc": 1700000000, "permalink": "/p"}}]}}"#.utf8)
        try await withTestServer { _ in .json(page) } body: { server in
            let result = try await ReaderProcess(server: server).run("posts", "swift")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("post a"))
            #expect(!result.stderr.contains("more:"), "\(result.stderr)")
            #expect(!result.stderr.contains("touch"), "\(result.stderr)")
        }
    }
}
