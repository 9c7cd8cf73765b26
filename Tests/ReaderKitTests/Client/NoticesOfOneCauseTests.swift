import Foundation
import Testing
@testable import ReaderKit

/// One notice per cause (issue 30 item 18): the copies served for one failure, each of its own
/// age, are one line with their count and the oldest copy's age, not one line per age.
@Suite struct NoticesOfOneCauseTests {
    func served(ago age: String, seconds: Int) -> Notice {
        var notice = Notice(kind: .staleData, code: ErrorCode(.transport, 1004),
                            message: "showing cached data from \(age) ago: 127.0.0.1 cannot be reached")
        notice.cause = "127.0.0.1 cannot be reached"
        notice.rank = seconds
        return notice
    }

    @Test func noticesOfOneCauseAreOneWithTheOldestCopysAge() async {
        let board = NoticeBoard()
        #expect(await board.post(served(ago: "2 min", seconds: 120)))
        #expect(await !board.post(served(ago: "5 min", seconds: 300)))
        #expect(await !board.post(served(ago: "1 min", seconds: 60)))
        let drained = await board.drain()
        #expect(drained.map(\.notice.message) == ["showing cached data from 5 min ago: 127.0.0.1 cannot be reached"])
        #expect(drained.map(\.count) == [3])
    }

    @Test func noticesWithoutACauseAreOneByTheirLine() async {
        let board = NoticeBoard()
        let first = Notice(kind: .cache, code: ErrorCode(.cache, 1003), message: "the cache cannot be written")
        let other = Notice(kind: .cache, code: ErrorCode(.cache, 1003), message: "the cache is read-only")
        await board.post(first)
        await board.post(first)
        await board.post(other)
        let drained = await board.drain()
        #expect(drained.map(\.notice) == [first, other])
        #expect(drained.map(\.count) == [2, 1])
    }
}
