import Foundation
import GRDB
import Testing
import TestSupport

/// The cache file when it is not what reader expects: read-only, not a file at all, reached
/// through a symbolic link, or holding rows with absurd values; and a sync that cannot read a
/// whole collection. Each runs the built `reader`.
@Suite(.processSlot) struct CacheFileRobustnessEndToEndTests {
    /// EX_CANTCREAT: the cache file cannot be created, opened or written.
    static let cacheExitCode: Int32 = 73

    // MARK: - A read-only cache

    @Test(.enabled(if: CacheChaosTests.canDropPrivileges))
    func clearAndPruneOnAReadOnlyCacheFailWithC1003AndItsExitCode() async throws {
        // Given a cache with entries, its file and folder writable by no one but root.
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("people", "1").status == 0)
            await server.shutdown()
            // (Counted by reader: a connection of the test's own would delete the -wal and -shm files
            // on closing, and without them a read-only folder's cache cannot even be opened.)
            let entries = try #require(Self.totalEntries(try await reader.run("cache", "stats", "--json")))
            #expect(entries > 1)
            let (binary, folder) = try Self.makeReadOnlyForAnotherUser(reader)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder) }

            for command in [["cache", "clear"], ["cache", "prune", "--older-than", "1s"], ["cache", "clear", "--api", "swapi"]] {
                // When another user clears or prunes it.
                let result = try await reader.run(command, prefix: CacheChaosTests.unprivileged, executable: binary)

                // Then the command fails with C1003 and its exit code, saying what is true.
                #expect(result.status == Self.cacheExitCode, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("error C1003: the cache cannot be written (\(reader.cachePath))"), "\(result.stderr)")
                #expect(!result.stderr.contains("carrying on"), "the command stops; it does not carry on: \(result.stderr)")
                #expect(result.stdout.isEmpty, "nothing is reported removed: \(result.stdout)")
                let json = try await reader.run(command + ["--json"], prefix: CacheChaosTests.unprivileged, executable: binary)
                #expect(json.status == Self.cacheExitCode)
                #expect(json.errorJSON?["code"] as? String == "C1003" && json.errorJSON?["exit_code"] as? Int == 73, "\(json.stderr)")
            }
            // And the entries are all still there.
            #expect(Self.totalEntries(try await reader.run("cache", "stats", "--json")) == entries)
        }
    }

    /// The entries `reader cache stats --json` counted.
    static func totalEntries(_ stats: ReaderProcess.Result) -> Int? {
        (stats.json?["total"] as? [String: Any])?["entries"] as? Int
    }

    /// How many entries the file holds, counted by SQLite.
    static func entryCount(_ path: String) async throws -> Int {
        try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM response") ?? -1 }
    }

    @Test(.enabled(if: CacheChaosTests.canDropPrivileges))
    func aReadOnlyCacheOfAnOlderSchemaIsStillRead() async throws {
        // Given a cache of the v2 schema (before rate limits were kept per origin), its file and
        // folder writable by no one but root
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            await server.shutdown()
            try await DatabaseQueue(path: reader.cachePath).write { db in
                try db.execute(sql: """
                    DROP TABLE rateLimit;
                    CREATE TABLE rateLimit (api TEXT PRIMARY KEY, remaining DOUBLE NOT NULL, resetAt DATETIME NOT NULL, observedAt DATETIME NOT NULL);
                    DELETE FROM grdb_migrations WHERE identifier IN ('v3', 'v4', 'v5', 'v6');
                    DROP TABLE visit;
                    DROP TABLE detour;
                    ALTER TABLE response DROP COLUMN dateHeader;
                    ALTER TABLE response DROP COLUMN expiresHeader;
                    ALTER TABLE response DROP COLUMN ageHeader;
                    ALTER TABLE response DROP COLUMN varyHeader;
                    ALTER TABLE response DROP COLUMN varyRequest;
                    ALTER TABLE response DROP COLUMN requestedAt;
                    """)
            }
            let (binary, folder) = try Self.makeReadOnlyForAnotherUser(reader)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder) }

            // When another user reads it offline, and looks at it
            let films = try await reader.run(["films", "--offline"], prefix: CacheChaosTests.unprivileged, executable: binary)
            let stats = try await reader.run(["cache", "stats", "--json"], prefix: CacheChaosTests.unprivileged, executable: binary)

            // Then what it holds is served (the schema migrated in a copy in memory, not in the file)
            #expect(films.status == 0 && films.stdout.contains("A New Hope"), "\(films.stderr)")
            #expect(!films.stderr.contains("C1004") && !films.stderr.contains("C1001"), "\(films.stderr)")
            #expect(stats.status == 0 && Self.totalEntries(stats) == 1, "\(stats.stdout)\(stats.stderr)")
            let migrations = try await DatabaseQueue(path: reader.cachePath, configuration: Self.readOnly).read { db in
                try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier")
            }
            #expect(migrations == ["v1", "v2"], "the file itself is as it was")
        }
    }

    static var readOnly: Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    /// Makes the cache's folder (0755) and its files (0444) read-only, and copies `reader` where
    /// another user may run it.
    /// - Returns: the copy, and the cache's folder, whose mode the caller gives back.
    static func makeReadOnlyForAnotherUser(_ reader: ReaderProcess) throws -> (binary: URL, folder: String) {
        let folder = (reader.cachePath as NSString).deletingLastPathComponent
        for item in [reader.folder.path, folder] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: item) }
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: folder + "/" + file)
        }
        let binary = reader.folder.appendingPathComponent("reader")
        try FileManager.default.copyItem(at: ReaderProcess.executable, to: binary)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)
        return (binary, folder)
    }

    // MARK: - Another process's write lock

    @Test func aReadWhileAnotherProcessHoldsTheWriteLockIsServedAndOnlyItsWriteIsSkipped() async throws {
        // Given a cache with entries, and another process in a write transaction on it
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("people", "1").status == 0)
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let blocker = try DatabaseQueue(path: reader.cachePath, configuration: configuration)
            try blocker.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }

            // When a cached read, a network read and a look at the cache run meanwhile
            let cached = try await reader.run("films")
            let network = try await reader.run("vehicles")
            let stats = try await reader.run("cache", "stats")
            try blocker.inDatabase { db in try db.execute(sql: "ROLLBACK") }
            try blocker.close()

            // Then each is served: the cached read says nothing (only its use count is not written),
            // and what the network read would have stored is skipped with one notice saying why
            #expect(cached.status == 0 && cached.stdout.contains("A New Hope"), "\(cached.stderr)")
            #expect(!cached.stderr.contains("warning") && !cached.stderr.contains("C10"), "\(cached.stderr)")
            #expect(network.status == 0 && network.stdout.contains("Sand Crawler"), "\(network.stderr)")
            #expect(network.stderr.components(separatedBy: "warning C1003: the cache is busy: another process holds its write lock").count == 2,
                    "one notice: \(network.stderr)")
            #expect(!network.stderr.contains("C1004"), "\(network.stderr)")
            #expect(stats.status == 0 && stats.stdout.contains("ENTRIES") && stats.stderr.isEmpty, "\(stats.stdout)\(stats.stderr)")
        }
    }

    // MARK: - A full disk

    /// Whether this process may mount a small tmpfs to fill (root, as in CI).
    static let canMountTemporaryFileSystem: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("reader-mount-probe-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard run("/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe) == 0 else { return false }
        return run("/bin/umount", probe) == 0
    }()

    @discardableResult
    static func run(_ tool: String, _ arguments: String...) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(.enabled(if: canMountTemporaryFileSystem), arguments: [false, true])
    func aCacheOnAFullDiskIsStillRead(withItsSharedMemoryFile: Bool) async throws {
        // Given a cache on a small file system (its -shm gone, or there), the disk then filled
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            let disk = reader.folder.appendingPathComponent("disk").path
            try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
            try #require(Self.run("/bin/mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", disk) == 0)
            defer { Self.run("/bin/umount", disk) }
            reader.environment["READER_CACHE_PATH"] = disk + "/cache.sqlite"
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("people", "1").status == 0)
            let entries = try #require(Self.totalEntries(try await reader.run("cache", "stats", "--json")))
            // A cached read records its use in the log, and leaves it there: the log is to be read too.
            #expect(try await reader.run("films").status == 0)
            if !withItsSharedMemoryFile { try FileManager.default.removeItem(atPath: reader.cachePath + "-shm") }
            let filler = open(disk + "/filler", O_CREAT | O_WRONLY, 0o600)
            let block = [UInt8](repeating: 0, count: 4096)
            while write(filler, block, block.count) == block.count {}
            close(filler)

            // When it is read, and looked at
            let films = try await reader.run("films")
            let offline = try await reader.run("people", "1", "--offline")
            let stats = try await reader.run("cache", "stats", "--json")

            // Then the cached data is served, without a word: only the reads' record of their use is
            // skipped, which stores nothing of the user's; looking at the cache says nothing either
            #expect(films.status == 0 && films.stdout.contains("A New Hope"), "\(films.stderr)")
            #expect(!films.stderr.contains("warning") && !films.stderr.contains("error"), "a pure read says nothing: \(films.stderr)")
            #expect(offline.status == 0 && offline.stdout.contains("Luke Skywalker"), "\(offline.stderr)")
            #expect(!offline.stderr.contains("warning") && !offline.stderr.contains("error"), "\(offline.stderr)")
            #expect(stats.status == 0 && Self.totalEntries(stats) == entries, "\(stats.stdout)\(stats.stderr)")
            #expect(stats.stderr.isEmpty, "a pure read says nothing: \(stats.stderr)")
        }
    }

    // MARK: - A cache path that is not a regular file

    @Test func aCachePathThatIsNotARegularFileIsRefusedWithC1004AndLeftAlone() async throws {
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            let places = try Self.thingsThatAreNotFiles(in: reader.folder)
            // A device node is not left behind in the temporary folder.
            defer { for (_, path) in places { try? FileManager.default.removeItem(atPath: path) } }
            for (kind, path) in places {
                // Given a cache path naming a FIFO, a folder, a socket or a device.
                reader.environment["READER_CACHE_PATH"] = path
                let before = try Set(FileManager.default.contentsOfDirectory(atPath: reader.folder.path))

                // When a command reads, and a cache command runs (bounded: a FIFO must not hang reader).
                let films = try await reader.run(["films"], prefix: ["/usr/bin/timeout", "60"])
                let stats = try await reader.run(["cache", "stats"], prefix: ["/usr/bin/timeout", "60"])
                let clear = try await reader.run(["cache", "clear", "--json"], prefix: ["/usr/bin/timeout", "60"])

                // Then the read works without the cache, with one warning...
                #expect(films.status == 0, "\(kind): \(films.stderr)")
                #expect(films.stdout.contains("A New Hope"), "\(kind)")
                #expect(films.stderr.components(separatedBy: "warning C1004").count == 2, "\(kind): \(films.stderr)")
                // ...the cache commands fail with C1004 and its exit code...
                #expect(stats.status == Self.cacheExitCode, "\(kind): \(stats.stderr)")
                #expect(stats.stderr.contains("error C1004: the cache cannot be opened (\(path))"), "\(kind): \(stats.stderr)")
                #expect(clear.status == Self.cacheExitCode && clear.errorJSON?["code"] as? String == "C1004", "\(kind): \(clear.stderr)")
                // ...and nothing was made beside it, nor was it moved aside.
                let after = try Set(FileManager.default.contentsOfDirectory(atPath: reader.folder.path))
                let made = after.subtracting(before).filter { !$0.hasPrefix("stdout-") && !$0.hasPrefix("stderr-") }
                #expect(made.isEmpty, "\(kind): \(made.sorted())")
                #expect(after.isSuperset(of: before), "\(kind): \(before.subtracting(after).sorted()) went")
            }
        }
    }

    /// A FIFO, a folder, a listening socket and, when the tests run as root, a character device
    /// (the null device's numbers) inside `folder`, so that nothing outside it can be touched.
    static func thingsThatAreNotFiles(in folder: URL) throws -> [(kind: String, path: String)] {
        var places: [(String, String)] = []
        let fifo = folder.appendingPathComponent("fifo.sqlite").path
        #expect(mkfifo(fifo, 0o600) == 0)
        places.append(("FIFO", fifo))
        let directory = folder.appendingPathComponent("folder.sqlite").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        places.append(("folder", directory))
        let socketPath = folder.appendingPathComponent("socket.sqlite").path
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in socketPath.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0, "bind \(socketPath)")
        close(descriptor)
        places.append(("socket", socketPath))
        let device = folder.appendingPathComponent("device.sqlite").path
        if getuid() == 0, mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 {
            places.append(("character device", device))
        }
        return places
    }

    // MARK: - A symbolic link

    @Test func aSymlinkedCacheAndItsSidecarsAreMadePrivateWhateverTheTargetsMode() async throws {
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            let target = reader.folder.appendingPathComponent("elsewhere/cache.sqlite").path
            let link = reader.folder.appendingPathComponent("link.sqlite").path
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            reader.environment["READER_CACHE_PATH"] = link
            func modes() -> [String: Int] {
                var modes: [String: Int] = [:]
                for suffix in ["", "-wal", "-shm"] {
                    var status = stat()
                    if stat(target + suffix, &status) == 0 { modes["cache.sqlite" + suffix] = Int(status.st_mode & 0o777) }
                }
                return modes
            }
            let allPrivate = ["cache.sqlite": 0o600, "cache.sqlite-wal": 0o600, "cache.sqlite-shm": 0o600]

            // Given a link to an empty file anyone may read.
            #expect(FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o644]))
            // When reader stores through the link.
            let first = try await reader.run("films")
            // Then the target and the sidecars SQLite made beside it are private.
            #expect(first.status == 0, "\(first.stderr)")
            #expect(modes() == allPrivate)

            // Given the cache and its sidecars opened up (copied from elsewhere, say).
            for (name, _) in allPrivate {
                try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: (target as NSString).deletingLastPathComponent + "/" + name)
            }
            // When reader next opens it, even only to read.
            let offline = try await reader.run("films", "--offline")
            // Then they are private again, and what they held is still there.
            #expect(offline.status == 0 && offline.stdout.contains("A New Hope"), "\(offline.stderr)")
            #expect(modes() == allPrivate)
        }
    }

    @Test func theFoldersReaderMakesForTheCacheArePrivateWhateverTheUmask() async throws {
        try await withTestServer(SampleAPI.route) { server in
            var reader = ReaderProcess(server: server)
            let path = reader.folder.appendingPathComponent("a/b/cache.sqlite").path
            reader.environment["READER_CACHE_PATH"] = path
            // A umask of 0 would leave a folder made with the default mode open to all.
            let result = try await reader.run(["films"], prefix: ["/bin/sh", "-c", "umask 000 && exec \"$0\" \"$@\""])
            #expect(result.status == 0, "\(result.stderr)")
            for folder in ["a", "a/b"] {
                let attributes = try FileManager.default.attributesOfItem(atPath: reader.folder.appendingPathComponent(folder).path)
                #expect(attributes[.posixPermissions] as? Int == 0o700, "\(folder)")
            }
            let file = try FileManager.default.attributesOfItem(atPath: path)
            #expect(file[.posixPermissions] as? Int == 0o600)
        }
    }

    // MARK: - Rows with absurd values

    @Test func clearAndPruneRepairAFileWhoseRowsHoldAbsurdValues() async throws {
        // Given a cache with good entries...
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("people", "1").status == 0)
            let goodEntries = try await Self.entryCount(reader.cachePath)
            // ...and rows written by something else: sizes that overflow a sum, dates that are no dates.
            let damagedBodies = ["big-1": 3, "big-2": 5, "far-future": 7, "garbage-date": 11, "text-size": 13]
            try await DatabaseQueue(path: reader.cachePath).write { db in
                let now = Date()
                let rows: [(key: String, fetchedAt: DatabaseValue, lastUsedAt: DatabaseValue, bodySize: DatabaseValue)] = [
                    ("big-1", now.databaseValue, now.databaseValue, Int64.max.databaseValue),
                    ("big-2", now.databaseValue, now.databaseValue, (Int64.max - 1).databaseValue),
                    ("far-future", 1e300.databaseValue, "garbage".databaseValue, 7.databaseValue),
                    ("garbage-date", "garbage".databaseValue, 1e300.databaseValue, 11.databaseValue),
                    ("text-size", now.databaseValue, now.databaseValue, "huge".databaseValue),
                ]
                for row in rows {
                    try db.execute(sql: """
                        INSERT INTO response (key, api, url, status, body, fetchedAt, lastUsedAt, bodySize)
                        VALUES (?, 'swapi', 'http://x/', 200, zeroblob(?), ?, ?, ?)
                        """, arguments: [row.key, damagedBodies[row.key]!, row.fetchedAt, row.lastUsedAt, row.bodySize])
                }
                try db.execute(sql: "UPDATE usage SET hits = 9223372036854775807, revalidations = 'x'")
                try db.execute(sql: "UPDATE cacheInfo SET createdAt = 1e300")
            }
            let goodBytes = try await DatabaseQueue(path: reader.cachePath).read { db in
                try Int.fetchOne(db, sql: "SELECT SUM(length(body)) FROM response WHERE key NOT IN ('big-1', 'big-2', 'far-future', 'garbage-date', 'text-size')")
            }

            // When the statistics are read, then they count every row by what it holds.
            let stats = try await reader.run("cache", "stats", "--json")
            #expect(stats.status == 0, "\(stats.stderr)")
            #expect(((stats.json?["total"] as? [String: Any])?["entries"] as? Int) == goodEntries + 5, "\(stats.stdout)")
            #expect(((stats.json?["total"] as? [String: Any])?["bytes"] as? Int) == (goodBytes ?? 0) + 39, "\(stats.stdout)")
            #expect(try await reader.run("cache", "stats").status == 0)

            // When a response is stored under a size limit, then eviction is not stopped by them.
            let stored = try await reader.run("planets", "--cache-size", "10MB")
            #expect(stored.status == 0 && !stored.stderr.contains("warning C"), "\(stored.stderr)")
            #expect(try await reader.run("planets", "--offline").status == 0, "planets were stored")

            // When pruning entries older than 30 days, then the rows whose fetch time cannot be read go too.
            let prune = try await reader.run("cache", "prune", "--json")
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.json?["entries"] as? Int == 2 && prune.json?["bytes"] as? Int == 18, "\(prune.stdout)")

            // When clearing, then everything goes: the good entries, the planets, the three damaged rows left.
            let clear = try await reader.run("cache", "clear", "--json")
            #expect(clear.status == 0, "\(clear.stderr)")
            #expect(clear.json?["entries"] as? Int == goodEntries + 1 + 3, "\(clear.stdout)")
            #expect(try await Self.entryCount(reader.cachePath) == 0)
        }
    }

    // MARK: - A sync that cannot read a whole collection

    @Test func aSyncWhoseFirstPageFailsSaysTheCollectionWasNotReadAndEndsWithItsCode() async throws {
        // Given a server where the films' first page never answers, people's third page neither,
        // and every starship answers 500 (more often than either).
        let data = SWAPIDataSet()
        try await withTestServer { request in
            if request.path == "/api/films/" { return .close }
            if request.path == "/api/people/", request.query["page"] == "3" { return .close }
            if request.path.hasPrefix("/api/starships/") && request.path.count > "/api/starships/".count {
                return .respond(status: 500, headers: [("Content-Type", "text/html")], body: Array("<html>down</html>".utf8))
            }
            return data.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)

            // When syncing.
            let sync = try await reader.run("sync", "swapi", "--retries", "0")

            // Then the films are reported as not read, people's missing page as hiding its resources...
            #expect(sync.stdout.contains("films: not read (first page failed: T1005)"), "\(sync.stdout)")
            #expect(sync.stdout.contains("people: 1 page failed (the resources it lists were not read)"), "\(sync.stdout)")
            #expect(sync.stderr.contains("error T1005: the sync is incomplete: films not read, 38 requests failed"), "\(sync.stderr)")
            // ...and the exit code is the unread collection's (75), not the more frequent 500's (69).
            #expect(sync.status == 75, "\(sync.stderr)")

            let json = try await reader.run("sync", "swapi", "--retries", "0", "--json")
            #expect(json.status == 75)
            let report = try #require(json.json?["swapi"] as? [String: Any])
            #expect(report["complete"] as? Bool == false)
            let notRead = report["not_read"] as? [[String: Any]]
            #expect(notRead?.count == 1 && notRead?.first?["name"] as? String == "films" && notRead?.first?["code"] as? String == "T1005",
                    "\(json.stdout)")
            #expect((report["pages_failed"] as? [String: Any])?["people"] as? Int == 1, "\(json.stdout)")
        }
    }

    enum Loss: String, CaseIterable, Sendable {
        case deleted, replaced
    }

    @Test(arguments: Loss.allCases)
    func aSyncWhoseCacheFileIsDeletedOrReplacedMeanwhileSaysWhatWasFetchedIsNotStored(_ loss: Loss) async throws {
        // Given a server that, asked for people's second page mid-sync, first deletes the cache
        // file (or puts a copy of it in its place, a file the sync does not write into)
        let data = SWAPIDataSet()
        try await withTemporaryFolder("reader-e2e") { folder in
            let path = folder.appendingPathComponent("cache/cache.sqlite").path
            try await withTestServer { request in
                if request.path == "/api/people/", request.query["page"] == "2", FileManager.default.fileExists(atPath: path) {
                    switch loss {
                    case .deleted:
                        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
                    case .replaced:
                        try? FileManager.default.removeItem(atPath: path + ".copy")
                        try? FileManager.default.copyItem(atPath: path, toPath: path + ".copy")
                        _ = rename(path + ".copy", path)
                    }
                }
                return data.route(request)
            } body: { server in
                var reader = ReaderProcess(server: server)
                reader.environment["READER_CACHE_PATH"] = path

                // When syncing
                let sync = try await reader.run("sync", "swapi")

                // Then it fetched everything, and says that it is not stored, with C1003 and its exit code
                let gone = loss == .deleted ? "deleted" : "replaced"
                #expect(sync.status == Self.cacheExitCode, "\(sync.stdout)\(sync.stderr)")
                #expect(sync.stdout.contains("sync swapi: \(data.requestsForEverything) fetched; not stored (C1003): the cache file was \(gone)"),
                        "\(sync.stdout)")
                #expect(sync.stderr.contains("error C1003: the sync is incomplete: what was fetched is not stored in the cache"), "\(sync.stderr)")
            }
        }
    }

    @Test func aSyncWhoseSubredditListingFailsSaysItWasNotRead() async throws {
        // Given a subreddit whose listing never answers, beside one that does.
        try await withTestServer { request in
            request.path == "/r/swift/hot.json" ? .close : SampleAPI.route(request)
        } body: { server in
            let reader = ReaderProcess(server: server)

            // When syncing both.
            let sync = try await reader.run("sync", "reddit", "python", "swift", "--retries", "0")

            // Then the one that failed is named as not read, and the sync ends with its code.
            #expect(sync.status == 75, "\(sync.stderr)")
            #expect(sync.stdout.contains("r/swift: not read (listing failed: T1005)"), "\(sync.stdout)")
            #expect(sync.stderr.contains("the sync is incomplete: r/swift not read"), "\(sync.stderr)")
        }
    }
}
