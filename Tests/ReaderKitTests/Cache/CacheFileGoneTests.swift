import Foundation
import Testing
@testable import ReaderKit
import TestSupport

/// A cache file deleted while a long-running client uses it (`reader browse`): noticed when
/// asked, said once (C1003, as a sync says it), and the path opened anew, so that what is
/// loaded afterwards is in the file the next run reads.
@Suite struct CacheFileGoneTests {
    @Test func aCacheFileDeletedWhileInUseIsNoticedAndOpenedAnew() async throws {
        try await withShutdown(of: ClientHarness()) { harness in
            try await withShutdown(of: harness.client()) { client in
                _ = try await client.load(try SWAPI.list(Film.self))
                await client.reopenCacheIfMoved()
                #expect(await client.notices.drain().isEmpty, "the file is still there: nothing to say")
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: harness.cachePath + suffix) }

                await client.reopenCacheIfMoved()
                let notices = await client.notices.drain().map(\.notice)
                #expect(notices.map(\.code.description) == ["C1003"])
                #expect(notices.first?.message.contains("the cache file was deleted while in use") == true, "\(notices)")
                #expect(FileManager.default.fileExists(atPath: harness.cachePath))

                // What is loaded now is stored where the next run looks.
                _ = try await client.load(try SWAPI.list(Person.self))
            }
            let statistics = try await ResponseCache.open(path: harness.cachePath).statistics()
            #expect(statistics.services["swapi"]?.entries == 1, "\(statistics)")
        }
    }
}
