import Foundation
import GRDB
import Testing
import TestSupport

/// The cache under abuse, end to end with the built binary: many processes at once, writers
/// killed mid-write, damaged and foreign files, and a cache the user may only read.
@Suite(.processSlot) struct CacheChaosTests {
    static let commands: [[String]] = [["films"], ["people"], ["planets"], ["species"], ["starships"], ["vehicles"],
                                       ["posts", "python"], ["posts", "popular"]]

    func integrity(of path: String) async throws -> String {
        try await DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }

    func keys(in path: String) async throws -> Set<String> {
        try await Set(DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT key FROM response") })
    }

    @Test func eightProcessesAtOnceShareOneCacheFile() async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            for round in 0..<3 {
                // The first round creates the file together; the next ones all write at once.
                let extra = round == 0 ? [] : ["--refresh"]
                let running = try Self.commands.map { try reader.launch($0 + extra) }
                for (command, process) in zip(Self.commands, running) {
                    let result = await process.wait()
                    #expect(result.status == 0, "\(command) round \(round): \(result.stderr)")
                    #expect(!result.stdout.isEmpty && !result.stdout.contains("no posts"), "\(command) got its data")
                    #expect(!result.stderr.contains("warning") && !result.stderr.contains("locked"), "\(command): \(result.stderr)")
                }
            }
            #expect(try await integrity(of: reader.cachePath) == "ok")
            #expect(try await keys(in: reader.cachePath).count == Self.commands.count)
        }
    }

    /// The kill points come from a seed, printed with every failure; set `READER_CHAOS_SEED` to
    /// replay a failing run's kills.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["READER_CHAOS_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 0...UInt64.max)

    /// The ends of the debug lines (`--verbose`) a read writes, in order, before which a kill lands.
    static let killPoints = ["] GET\n", "] response\n", "] storing\n", "] stored\n"]

    @Test(.replaysRecordings) func aWriterKilledAtRandomPointsLosesNothingCommitted() async throws {
        let seed = Self.seed
        var random = SplitMix64(seed: seed)
        // Large bodies make each write last long enough for kills to land inside it.
        let padded = Fixtures.bytes("swapi/people_1.json") + Array(repeating: UInt8(ascii: " "), count: 3 * 1024 * 1024)
        try await withTestServer { _ in .json(padded) } body: { server in
            let reader = ReaderProcess(server: server)
            var committed: Set<String> = []
            var killed = 0
            // The kill points, each six times in an order drawn from the seed: the moment reader
            // says (with --verbose) that it sends the request, has the response, starts storing
            // the body, or has stored it. A kill is sent on seeing the line, so it lands in the
            // step that follows: the request, the store's transaction, the record of use.
            let points = Array(Self.killPoints.map { Array(repeating: $0, count: 6) }.joined()).shuffled(using: &random)
            for (id, point) in zip(1..., points) {
                let (running, _) = try await reader.launch(["people", String(id), "--verbose"], untilStandardErrorContains: point,
                                                           whenSeen: { kill($0, SIGKILL) })
                let result = await running.wait()
                if running.process.terminationReason == .uncaughtSignal { killed += 1 } else {
                    #expect(result.status == 0, "seed \(seed), run \(id), killed at \(point): \(result.stderr)")
                }
                guard FileManager.default.fileExists(atPath: reader.cachePath) else { continue }
                #expect(try await integrity(of: reader.cachePath) == "ok", "seed \(seed), after run \(id)")
                let now = try await keys(in: reader.cachePath)
                #expect(committed.isSubset(of: now), "seed \(seed), run \(id) lost \(committed.subtracting(now))")
                committed = now
            }
            #expect(killed > 0, "seed \(seed): the test must actually kill writers")
            #expect(!committed.isEmpty, "seed \(seed): some writes must have been committed")
            let after = try await reader.run("people", "1")
            #expect(after.status == 0 && !after.stderr.contains("warning"), "seed \(seed): \(after.stderr)")
        }
    }

    /// The points of setting up a new cache file that the debug build's test hook counts
    /// (`TestHook.reached` in CacheFile.settle): the lock taken, a hot journal recovered, WAL mode,
    /// the file marked as reader's, migrated, checkpointed.
    static let settlingSteps = 6

    /// The files moved aside as damaged in `folder`.
    static func movedAside(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".corrupt-") }
    }

    @Test func aProcessKilledAtAnyStepOfSettingUpANewCacheLeavesOneTheNextCommandUses() async throws {
        try await withTestServer(SampleAPI.route) { server in
            for step in 1...Self.settlingSteps {
                // Given a process killed (SIGKILL, by the debug build's hook) at one step of making a new cache
                var killed = ReaderProcess(server: server)
                killed.environment["READER_TEST_KILL_AT_STEP"] = String(step)
                let running = try killed.launch(["films"])
                _ = await running.wait()
                #expect(running.process.terminationReason == .uncaughtSignal && running.process.terminationStatus == SIGKILL,
                        "step \(step): the hook killed it")

                // When the next command runs on what it left
                var next = killed
                next.environment["READER_TEST_KILL_AT_STEP"] = nil
                let films = try await next.run("films")
                let offline = try await next.run("films", "--offline")
                let stats = try await next.run("cache", "stats")

                // Then it reads, stores and counts as on a new cache: no warning, nothing moved aside
                #expect(films.status == 0 && films.stdout.contains("A New Hope"), "step \(step): \(films.stderr)")
                #expect(!films.stderr.contains("warning") && !films.stderr.contains("error"), "step \(step): \(films.stderr)")
                #expect(offline.status == 0 && offline.stdout.contains("A New Hope"), "step \(step): stored: \(offline.stderr)")
                #expect(stats.status == 0 && stats.stderr.isEmpty, "step \(step): \(stats.stderr)")
                let folder = (next.cachePath as NSString).deletingLastPathComponent
                #expect(try Self.movedAside(in: folder).isEmpty, "step \(step)")
                #expect(try await integrity(of: next.cachePath) == "ok", "step \(step)")
            }
        }
    }

    @Test func eightProcessesSettingUpANewCacheAtOnceNeverTakeItForDamaged() async throws {
        let seed = Self.seed
        var random = SplitMix64(seed: seed)
        try await withTestServer(SampleAPI.route) { server in
            for round in 0..<16 {
                // Given eight processes making one new cache at once, one of them (drawn from the seed)
                // killed at a step drawn from the seed (0: none is)
                let reader = ReaderProcess(server: server)
                let victim = Int.random(in: 0..<Self.commands.count, using: &random)
                let step = Int.random(in: 0...Self.settlingSteps, using: &random)
                let running = try Self.commands.enumerated().map { index, command in
                    var process = reader
                    if index == victim, step > 0 { process.environment["READER_TEST_KILL_AT_STEP"] = String(step) }
                    return try process.launch(command)
                }

                // Then every other process gets its data and says nothing; the file is never moved aside
                var survivors: [[String]] = []
                for (index, (command, process)) in zip(Self.commands, running).enumerated() {
                    let result = await process.wait()
                    if index == victim, process.process.terminationReason == .uncaughtSignal { continue }
                    survivors.append(command)
                    #expect(result.status == 0, "seed \(seed), round \(round), \(command): \(result.stderr)")
                    #expect(!result.stderr.contains("warning") && !result.stderr.contains("error"),
                            "seed \(seed), round \(round), \(command): \(result.stderr)")
                }
                let folder = (reader.cachePath as NSString).deletingLastPathComponent
                #expect(try Self.movedAside(in: folder).isEmpty, "seed \(seed), round \(round)")
                #expect(try await integrity(of: reader.cachePath) == "ok", "seed \(seed), round \(round)")
                #expect(try await keys(in: reader.cachePath).count == survivors.count, "seed \(seed), round \(round): each stored its answer")
            }
        }
    }

    @Test func aHotJournalLeftByAKillIsRolledBackAndTheCacheIsUsed() async throws {
        // Given the state a process killed inside SQLite's first transaction on a new cache leaves:
        // the file written in part, beside its rollback journal, which no process holds ("hot").
        // Made by copying both while a transaction that spilled to the file is open.
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            let folder = (reader.cachePath as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let source = reader.folder.appendingPathComponent("source.sqlite").path
            _ = FileManager.default.createFile(atPath: source, contents: nil)
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true
            let writer = try DatabaseQueue(path: source, configuration: configuration)
            try writer.inDatabase { db in
                try db.execute(sql: "PRAGMA cache_size = 8")
                try db.execute(sql: "BEGIN")
                try db.execute(sql: "CREATE TABLE filler (x)")
                for _ in 0..<40 { try db.execute(sql: "INSERT INTO filler VALUES (zeroblob(20000))") }
                try FileManager.default.copyItem(atPath: source, toPath: reader.cachePath)
                try FileManager.default.copyItem(atPath: source + "-journal", toPath: reader.cachePath + "-journal")
                try db.execute(sql: "ROLLBACK")
            }
            try writer.close()
            #expect((try FileManager.default.attributesOfItem(atPath: reader.cachePath)[.size] as? Int ?? 0) > 0)

            // When commands run on it
            let films = try await reader.run("films")
            let offline = try await reader.run("films", "--offline")
            let stats = try await reader.run("cache", "stats")
            let clear = try await reader.run("cache", "clear")

            // Then the journal is rolled back (the file was empty before it), and the cache works
            #expect(films.status == 0 && films.stdout.contains("A New Hope"), "\(films.stderr)")
            #expect(!films.stderr.contains("warning") && !films.stderr.contains("error"), "\(films.stderr)")
            #expect(offline.status == 0 && offline.stdout.contains("A New Hope"), "stored: \(offline.stderr)")
            #expect(stats.status == 0 && stats.stdout.contains("ENTRIES"), "\(stats.stderr)")
            #expect(clear.status == 0 && clear.stdout.contains("removed 1 entr"), "\(clear.stdout)\(clear.stderr)")
            #expect(!FileManager.default.fileExists(atPath: reader.cachePath + "-journal"))
            #expect(try Self.movedAside(in: folder).isEmpty)
            #expect(try await integrity(of: reader.cachePath) == "ok")
        }
    }

    enum Damage: String, CaseIterable, Sendable {
        case truncated, foreign, newerSchema, zeroLength, text, randomBytes
    }

    @Test(arguments: Damage.allCases)
    func aDamagedOrForeignFileIsMovedAsideAndTheCommandCarriesOn(damage: Damage) async throws {
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            for command in Self.commands.prefix(6) { #expect(try await reader.run(command).status == 0) }
            let path = reader.cachePath
            for sidecar in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + sidecar) }
            switch damage {
            case .truncated:
                let data = try #require(FileManager.default.contents(atPath: path))
                try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: path))
            case .foreign:
                try FileManager.default.removeItem(atPath: path)
                try await DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('x')") }
            case .newerSchema:
                try await DatabaseQueue(path: path).write { db in try db.execute(sql: "INSERT INTO grdb_migrations VALUES ('v99')") }
            case .zeroLength:
                try Data().write(to: URL(fileURLWithPath: path))
            case .text:
                try Data("not a database at all, just text".utf8).write(to: URL(fileURLWithPath: path))
            case .randomBytes:
                try Data(repeating: 0xAB, count: 8192).write(to: URL(fileURLWithPath: path))
            }
            for sidecar in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + sidecar) }
            let before = try #require(FileManager.default.contents(atPath: path))

            let result = try await reader.run("films", "--refresh")
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.contains("A New Hope"))
            let folder = (path as NSString).deletingLastPathComponent
            let aside = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".corrupt-") || $0.range(of: #"\.corrupt-\d+$"#, options: .regularExpression) != nil }
            if damage == .zeroLength {
                // An empty file is a valid empty database: it is simply used.
                #expect(!result.stderr.contains("warning") && aside.isEmpty, "\(result.stderr)")
            } else {
                #expect(result.stderr.components(separatedBy: "warning C1002").count == 2, "one notice: \(result.stderr)")
                try #require(aside.count == 1, "the old file is kept, never deleted: \(aside)")
                #expect(FileManager.default.contents(atPath: folder + "/" + aside[0]) == before, "and kept intact")
                // It holds the user's data: private, whatever mode it had (0644 here).
                let mode = try FileManager.default.attributesOfItem(atPath: folder + "/" + aside[0])[.posixPermissions] as? Int
                #expect(mode == 0o600, "mode \(String(mode ?? 0, radix: 8))")
            }
            #expect(try await reader.run("films", "--offline").status == 0, "the new cache holds what was just read")
            #expect(try await integrity(of: path) == "ok")
        }
    }

    /// Runs as an unprivileged user when the tests run as root, whom file modes do not stop.
    static var unprivileged: [String] {
        getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    }

    static var canDropPrivileges: Bool {
        getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    /// How a cache is made unwritable for the user who runs reader.
    enum Unwritable: String, CaseIterable, Sendable {
        /// The file, its side files and its folder: writable by no one but root.
        case everything
        /// The file alone (0444); its folder and side files are the user's own. SQLite opens such
        /// a file read-only without a word, and a file in reader's form needs no write to open:
        /// unasked, every write would fail and be warned about ("576 times").
        case theFileAlone
        /// As `everything`, with what was last recorded still in the `-wal` and no `-shm`:
        /// SQLite cannot make one, and reads a WAL file through it.
        case everythingWithoutTheSharedMemoryFile
    }

    @Test(.enabled(if: canDropPrivileges), arguments: Unwritable.allCases)
    func aReadOnlyCacheIsStillReadAndWritingIsSkippedWithOneWarning(_ unwritable: Unwritable) async throws {
        // Given a cache with entries that its user cannot write
        try await withTestServer(SampleAPI.route) { server in
            let reader = ReaderProcess(server: server)
            #expect(try await reader.run("films").status == 0)
            #expect(try await reader.run("people", "1").status == 0)
            let folder = (reader.cachePath as NSString).deletingLastPathComponent
            let fileName = (reader.cachePath as NSString).lastPathComponent
            var hitsBefore: Int?
            if unwritable == .everythingWithoutTheSharedMemoryFile {
                // A cached read records its use in the log, and leaves it there.
                #expect(try await reader.run("films").status == 0)
                hitsBefore = Self.hits(try await reader.run("cache", "stats", "--json"))
                #expect((try FileManager.default.attributesOfItem(atPath: reader.cachePath + "-wal")[.size] as? Int ?? 0) > 0)
                try FileManager.default.removeItem(atPath: reader.cachePath + "-shm")
            }
            // The unprivileged user's own, when root runs the tests.
            let owned: [FileAttributeKey: Any] = getuid() == 0 ? [.ownerAccountID: 65534, .groupOwnerAccountID: 65534] : [:]
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: reader.folder.path)
            switch unwritable {
            case .everything, .everythingWithoutTheSharedMemoryFile:
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
                for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
                    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: folder + "/" + file)
                }
            case .theFileAlone:
                try FileManager.default.setAttributes(owned.merging([.posixPermissions: 0o700]) { $1 }, ofItemAtPath: folder)
                for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
                    let mode = file == fileName ? 0o444 : 0o600
                    try FileManager.default.setAttributes(owned.merging([.posixPermissions: mode]) { $1 }, ofItemAtPath: folder + "/" + file)
                }
            }
            defer {
                try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: folder)
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: reader.cachePath))
            // A copy of the binary the unprivileged user can reach, wherever the build folder is.
            let binary = reader.folder.appendingPathComponent("reader")
            try FileManager.default.copyItem(at: ReaderProcess.executable, to: binary)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: binary.path)

            // When it reads, refreshes (an answer to store, its use to record), and looks at the cache
            let offline = try await reader.run(["films", "--offline"], prefix: Self.unprivileged, executable: binary)
            let online = try await reader.run(["people", "1", "--refresh"], prefix: Self.unprivileged, executable: binary)
            let stats = try await reader.run(["cache", "stats"], prefix: Self.unprivileged, executable: binary)

            // Then both work from the cache as it is, and the refresh says once that nothing is stored
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(offline.stdout.contains("A New Hope"), "reading still works")
            #expect(online.status == 0, "\(online.stderr)")
            #expect(online.stdout.contains("Luke Skywalker"))
            #expect(online.stderr.components(separatedBy: "warning C1003").count == 2, "one warning: \(online.stderr)")
            #expect(!online.stderr.contains(" times)"), "said once, not at every write: \(online.stderr)")
            // A command that stores nothing has nothing to be warned about.
            #expect(stats.status == 0 && stats.stdout.contains("ENTRIES"), "\(stats.stdout)\(stats.stderr)")
            #expect(stats.stderr.isEmpty, "\(stats.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: reader.cachePath)) == before, "the file is as it was")
            if let hitsBefore {
                let json = try await reader.run(["cache", "stats", "--json"], prefix: Self.unprivileged, executable: binary)
                // (The reads above cannot record their use.)
                #expect(Self.hits(json) == hitsBefore, "what the log holds is read too: \(json.stdout)\(json.stderr)")
                #expect(hitsBefore > 0)
            }
        }
    }

    /// The hits `reader cache stats --json` counted.
    static func hits(_ stats: ReaderProcess.Result) -> Int? {
        (stats.json?["total"] as? [String: Any])?["hits"] as? Int
    }
}

