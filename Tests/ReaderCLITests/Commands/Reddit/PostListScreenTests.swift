import Foundation
import Testing
@testable import ReaderCLI
@testable import ReaderKit
import ReaderTerminal

/// The post list of `reader browse` as a model: a state and an event give the next state and
/// effects; a state and a size give the screen, written out.
@Suite struct PostListScreenTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    static func post(_ number: Int, title: String, score: Int = 10, comments: Int = 2, hoursAgo: Int = 3) -> RedditPost {
        RedditPost(id: "p\(number)", name: "t3_p\(number)", title: title, author: "user\(number)", subreddit: "python",
                   score: score, numComments: comments, createdUTC: now.addingTimeInterval(TimeInterval(-hoursAgo * 3600)),
                   permalink: "/r/python/comments/p\(number)/")
    }

    static let posts = [post(1, title: "First post", score: 1234), post(2, title: "Second post"), post(3, title: "Third post, much longer than the others")]

    static func metadata(stale: Bool = false, age: Int = 0, errorCode: ErrorCode? = nil) -> LoadMetadata {
        LoadMetadata(source: stale ? .cache : .network, stale: stale, fetchedAt: now.addingTimeInterval(TimeInterval(-age)),
                     ageSeconds: age, errorCode: errorCode, url: "https://www.reddit.com/r/python/hot.json")
    }

    static func screen(size: TerminalSize = TerminalSize(columns: 80, rows: 24)) -> PostListScreen {
        PostListScreen(place: "r/python", sort: .hot, size: size, now: now) { .failed(message: "unused", code: "B0000") }
    }

    static func loaded(_ posts: [RedditPost] = posts, metadata: LoadMetadata = metadata(), size: TerminalSize = TerminalSize(columns: 80, rows: 24)) -> PostListScreen {
        var screen = screen(size: size)
        _ = screen.update(.message(.loaded(posts, metadata)))
        return screen
    }

    private func quits(_ effects: [Effect<PostListScreen.Message>]) -> ProgramEnd? {
        guard effects.count == 1, case .quit(let end) = effects[0] else { return nil }
        return end
    }

    @Test func itStartsByLoadingAndSaysSo() {
        let screen = Self.screen()
        #expect(screen.start().count == 1)
        let view = screen.view(size: TerminalSize(columns: 40, rows: 10))
        #expect(view.text(ofRow: 0) == "loading r/python…")
        #expect(view.text(ofRow: 9) == "r/python · hot · loading")
    }

    @Test func keysMoveTheSelectionWithinTheListAndQuit() {
        var screen = Self.loaded()
        #expect(screen.selected == 0)
        #expect(screen.update(.key(.character("j"))).isEmpty)
        #expect(screen.selected == 1)
        _ = screen.update(.key(.down))
        _ = screen.update(.key(.down))
        #expect(screen.selected == 2)
        _ = screen.update(.key(.character("k")))
        #expect(screen.selected == 1)
        _ = screen.update(.key(.character("g")))
        _ = screen.update(.key(.up))
        #expect(screen.selected == 0)
        _ = screen.update(.key(.character("G")))
        #expect(screen.selected == 2)
        #expect(quits(screen.update(.key(.character("q")))) == .finished)
        #expect(quits(screen.update(.key(.control("c")))) == .interrupted)
    }

    @Test func theSelectionScrollsIntoViewAndStaysAcrossAResize() {
        let many = (1...30).map { Self.post($0, title: "Post \($0)") }
        var screen = Self.loaded(many, size: TerminalSize(columns: 40, rows: 10))
        // 8 rows of posts at 40×10: the ninth scrolls the list by one.
        for _ in 0..<8 { _ = screen.update(.key(.character("j"))) }
        #expect(screen.selected == 8)
        #expect(screen.top == 1)
        _ = screen.update(.key(.pageDown))
        #expect(screen.selected == 16)
        #expect(screen.top == 9)
        _ = screen.update(.resize(TerminalSize(columns: 80, rows: 24)))
        #expect(screen.selected == 16)
        // The taller screen shows the last 22 posts, the selected one among them.
        #expect(screen.top == 8)
        _ = screen.update(.key(.end))
        #expect(screen.selected == 29)
        #expect(screen.top == 8)
    }

    @Test func theListAt80x24() {
        let view = Self.loaded().view(size: TerminalSize(columns: 80, rows: 24))
        #expect(view.text == """
            SCORE  COMMENTS  AGE  SUBREDDIT  AUTHOR   ID  TITLE
             1234         2  3 h  r/python   u/user1  p1  First post
               10         2  3 h  r/python   u/user2  p2  Second post
               10         2  3 h  r/python   u/user3  p3  Third post, much longer than the …
            \(String(repeating: "\n", count: 19))r/python · hot · 3 posts
            """)
        // The selected row is reverse video across the screen.
        #expect((0..<80).allSatisfy { view[x: $0, y: 1].style.reverse })
        #expect(!view[x: 0, y: 2].style.reverse)
    }

    @Test func theListAt40x10AndTooSmallBelow() {
        let screen = Self.loaded(metadata: Self.metadata(stale: true, age: 3 * 3600, errorCode: ErrorCode(.transport, 1003)))
        #expect(screen.view(size: TerminalSize(columns: 40, rows: 10)).text == """
            SCORE  ID  TITLE
             1234  p1  First post
               10  p2  Second post
               10  p3  Third post, much longer than…
            \(String(repeating: "\n", count: 5))r/python · hot copy from 3 h ago · T1003
            """)
        #expect(screen.view(size: TerminalSize(columns: 39, rows: 10)).text(ofRow: 0) == "terminal too small: 40×10 at least")
        #expect(screen.view(size: TerminalSize(columns: 20, rows: 5)).text == "terminal too small:\n40×10 at least\n\n\n")
    }

    @Test func aFailureWithNothingToShowIsOneBannerInPlaceOfTheList() {
        var screen = Self.screen()
        _ = screen.update(.message(.failed(message: "cannot connect to 127.0.0.1:9: nothing accepted the connection", code: "T1004")))
        let view = screen.view(size: TerminalSize(columns: 40, rows: 10))
        #expect(view.text == """
            cannot connect to 127.0.0.1:9: nothing
            accepted the connection
            T1004
            \(String(repeating: "\n", count: 6))r/python · hot · 0 posts
            """)
    }

    @Test func theBottomLineSaysTheCopysAgeAndCodeAndTheAgeGrowsWithTicks() {
        var screen = Self.loaded(metadata: Self.metadata(stale: true, age: 3 * 3600, errorCode: ErrorCode(.transport, 1003)))
        #expect(screen.view(size: TerminalSize(columns: 80, rows: 24)).text(ofRow: 23)
                == "r/python · hot · 3 posts                               copy from 3 h ago · T1003")
        _ = screen.update(.tick(Self.now.addingTimeInterval(3600)))
        #expect(screen.view(size: TerminalSize(columns: 80, rows: 24)).text(ofRow: 23)
                == "r/python · hot · 3 posts                               copy from 4 h ago · T1003")
        // Fresh: nothing on the right.
        #expect(Self.loaded().view(size: TerminalSize(columns: 80, rows: 24)).text(ofRow: 23) == "r/python · hot · 3 posts")
    }

    @Test func hostileTitlesReachTheScreenSanitised() {
        let hostile = Self.post(9, title: "evil\u{1B}]0;pwned\u{07} \u{1B}[2Jtitle\u{202E}txt.exe\u{200B}")
        let view = Self.loaded([hostile]).view(size: TerminalSize(columns: 80, rows: 24))
        #expect(view.text(ofRow: 1).hasSuffix("evil titletxt.exe"))
        #expect(!view.text.contains("pwned"))
    }
}
