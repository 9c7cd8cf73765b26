import Foundation
import GRDB
import Testing
import TestSupport

/// One notice per cause (issue 30 item 18): `films 1 --refresh` with the server gone serves each
/// copy it holds instead of the same failure; copies of different ages made one line each
/// ("12 times", "27 times", different ages). One line, with the oldest copy's age.
@Suite(.processSlot) struct OneNoticePerCauseEndToEndTests {
    @Test(.replaysRecordings) func copiesOfDifferentAgesServedForOneFailureAreOneNotice() async throws {
        let server = try await TestServer(Fixtures.route)
        let reader = ReaderProcess(server: server)
        let first = try await reader.run("films", "1")
        #expect(first.status == 0, "\(first.stderr)")
        // Half the copies an hour older than the rest. (The linked names the fixtures lack are
        // stored 404s, no copies: issue 30 item 22.)
        try await DatabaseQueue(path: reader.cachePath).write { db in
            try db.execute(sql: """
                UPDATE response SET fetchedAt = datetime(fetchedAt, '-1 hour')
                WHERE rowid = (SELECT MIN(rowid) FROM response WHERE status = 200)
                """)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM response WHERE status = 200") == 2, "two copies")
        }
        await server.shutdown()
        let gone = try await reader.run("films", "1", "--refresh")
        #expect(gone.status == 0, "\(gone.stderr)")
        let notices = gone.stderr.split(separator: "\n").filter { $0.hasPrefix("notice ") }
        #expect(notices.count == 1, "\(gone.stderr)")
        #expect(notices.first?.contains("showing cached data from 1 h ago") == true && notices.first?.hasSuffix("(2 times)") == true, "\(gone.stderr)")
    }
}
