import Foundation
import GRDB
import Testing
import TestSupport

/// The cache under abuse, end to end with the built binary: many processes at once, writers
/// killed mid-write, damaged and foreign files, and a cache the user may only read.
@Suite struct CacheChaosTests {
    static let commands: [[String]] = [["films"], ["people"], ["planets"], ["species"], ["starships"], ["vehicles"],
                                       ["posts", "python"], ["posts", "popular"]]

    func integrity(of path: String) async throws -> String {
        try await DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "" }
    }

    func keys(in path: String) async throws -> Set<String> {
        try await Set(DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT key FROM response") })
    }

    @Test func eightProcessesAtOnceShareOneCacheFile() async throws {
        let server = try await TestServer(Fixtures.route)
        let reader = ReaderProcess(server: server)
        for round in 0..<3 {
            // The first round creates the file together; the next ones all write at once.
            let extra = round == 0 ? [] : ["--refresh"]
            let running = try Self.commands.map { try reader.launch($0 + extra) }
            for (command, process) in zip(Self.commands, running) {
                let result = process.wait()
                #expect(result.status == 0, "\(command) round \(round): \(result.stderr)")
                #expect(!result.stdout.isEmpty && !result.stdout.contains("no posts"), "\(command) got its data")
                #expect(!result.stderr.contains("warning") && !result.stderr.contains("locked"), "\(command): \(result.stderr)")
            }
        }
        #expect(try await integrity(of: reader.cachePath) == "ok")
        #expect(try await keys(in: reader.cachePath).count == Self.commands.count)
        await server.shutdown()
    }

    /// The kill points come from a seed, printed with every failure; set `READER_CHAOS_SEED` to
    /// replay a failing run's kills.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["READER_CHAOS_SEED"].flatMap { UInt64($0) }
        ?? UInt64.random(in: 0...UInt64.max)

    @Test func aWriterKilledAtRandomPointsLosesNothingCommitted() async throws {
        let seed = Self.seed
        var random = SplitMix64(seed: seed)
        // Large bodies make each write last long enough for kills to land inside it.
        let padded = Fixtures.bytes("swapi/people_1.json") + Array(repeating: UInt8(ascii: " "), count: 3 * 1024 * 1024)
        let server = try await TestServer { _ in .json(padded) }
        let reader = ReaderProcess(server: server)
        var committed: Set<String> = []
        var killed = 0
        for id in 1...24 {
            let running = try reader.launch(["people", String(id)])
            // The random point is the input under test: a kill somewhere in the run's first quarter second.
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &random)))
            if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) }
            let result = running.wait()
            if running.process.terminationReason == .uncaughtSignal { killed += 1 } else {
                #expect(result.status == 0, "seed \(seed), run \(id): \(result.stderr)")
            }
            guard FileManager.default.fileExists(atPath: reader.cachePath) else { continue }
            #expect(try await integrity(of: reader.cachePath) == "ok", "seed \(seed), after run \(id)")
            let now = try await keys(in: reader.cachePath)
            #expect(committed.isSubset(of: now), "seed \(seed), run \(id) lost \(committed.subtracting(now))")
            committed = now
        }
        #expect(killed > 0, "seed \(seed): the test must actually kill writers")
        #expect(!committed.isEmpty, "seed \(seed): some writes must have been committed")
        let after = try reader.run("people", "1")
        #expect(after.status == 0 && !after.stderr.contains("warning"), "seed \(seed): \(after.stderr)")
        await server.shutdown()
    }

    enum Damage: String, CaseIterable, Sendable {
        case truncated, foreign, newerSchema, zeroLength, text, randomBytes
    }

    @Test(arguments: Damage.allCases)
    func aDamagedOrForeignFileIsMovedAsideAndTheCommandCarriesOn(damage: Damage) async throws {
        let server = try await TestServer(Fixtures.route)
        let reader = ReaderProcess(server: server)
        for command in Self.commands.prefix(6) { #expect(try reader.run(command).status == 0) }
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

        let result = try reader.run("films", "--refresh")
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
        }
        #expect(try reader.run("films", "--offline").status == 0, "the new cache holds what was just read")
        #expect(try await integrity(of: path) == "ok")
        await server.shutdown()
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
    }

    @Test(.enabled(if: canDropPrivileges), arguments: Unwritable.allCases)
    func aReadOnlyCacheIsStillReadAndWritingIsSkippedWithOneWarning(_ unwritable: Unwritable) async throws {
        // Given a cache with entries that its user cannot write
        let server = try await TestServer(Fixtures.route)
        let reader = ReaderProcess(server: server)
        #expect(try reader.run("films").status == 0)
        #expect(try reader.run("people", "1").status == 0)
        let folder = (reader.cachePath as NSString).deletingLastPathComponent
        let fileName = (reader.cachePath as NSString).lastPathComponent
        // The unprivileged user's own, when root runs the tests.
        let owned: [FileAttributeKey: Any] = getuid() == 0 ? [.ownerAccountID: 65534, .groupOwnerAccountID: 65534] : [:]
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: reader.folder.path)
        switch unwritable {
        case .everything:
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
        let offline = try reader.launch(["films", "--offline"], prefix: Self.unprivileged, executable: binary).wait()
        let online = try reader.launch(["people", "1", "--refresh"], prefix: Self.unprivileged, executable: binary).wait()
        let stats = try reader.launch(["cache", "stats"], prefix: Self.unprivileged, executable: binary).wait()

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
        await server.shutdown()
    }
}

