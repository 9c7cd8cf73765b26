import Dispatch
import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import Testing
@testable import ReaderKit
import TestSupport

/// Concurrent loads overlap where they can: one load's decoding, or its wait on the cache file,
/// does not hold up another load. Observed without timing: a load is held at a point of its own
/// (in its decoding, or behind a write lock another connection holds on the cache file) and
/// another load must finish before the first is let go. Were the work taken in turns, the second
/// load could not finish while the first is held, and the first would give up waiting (after a
/// bound that only a broken pipeline ever reaches), which the test reports.
@Suite(.serialized) struct ConcurrentLoadsTests {
    /// Holds a decoding until the test lets it go, and tells the test when it has begun.
    final class DecodeGate: Sendable {
        let entered: AsyncStream<Void>
        private let enter: AsyncStream<Void>.Continuation
        private let release = DispatchSemaphore(value: 0)
        /// Whether the decoding was let go (true) or gave up waiting (false); nil before.
        let letGo = NIOLockedValueBox<Bool?>(nil)

        init() { (entered, enter) = AsyncStream.makeStream() }

        /// Called by the decoding: blocks its thread, as heavy decoding does, until ``open()``.
        func pass() {
            enter.yield()
            // A bound only for a pipeline that takes loads in turns: the other load can then never
            // finish, and the test must end rather than hang.
            let opened = release.wait(timeout: .now() + .seconds(20)) == .success
            letGo.withLockedValue { $0 = opened }
        }

        func open() { release.signal() }
    }

    /// A film whose decoding passes through the gate installed at the time (none: straight through).
    struct HeldFilm: Decodable, Sendable {
        static let gate = NIOLockedValueBox<DecodeGate?>(nil)
        var title: String

        init(from decoder: any Decoder) throws {
            Self.gate.withLockedValue { $0 }?.pass()
            title = try Film(from: decoder).title
        }
    }

    /// The test's temporary folder, removed with this test's instance of the suite.
    let scratch = TemporaryFolder("reader-concurrent")

    enum HeldAt: String, CaseIterable, Sendable {
        /// Decoding an answer from the network.
        case network
        /// Decoding a copy read from the cache (offline).
        case cache
    }

    /// The held decoding blocks one thread of the concurrent pool, as heavy decoding does: the
    /// other load needs another, and a machine of one core has a pool of one thread.
    @Test(.enabled(if: ProcessInfo.processInfo.activeProcessorCount > 1, "the concurrent pool has one thread"),
          arguments: HeldAt.allCases)
    func anotherLoadFinishesWhileOneIsDecoding(_ heldAt: HeldAt) async throws {
        // Given a client, and a load whose decoding is held (from the network, or from a copy
        // cached by an earlier load that went straight through)
        try await withTestServer { SampleAPI.route($0) } body: { server in
            try await withShutdown(of: makeClient(server, cachePath: scratch.cachePath())) { client in
                let film = Endpoint<HeldFilm>(service: "swapi", path: "films/1/")
                HeldFilm.gate.withLockedValue { $0 = nil }
                if heldAt == .cache { _ = try await client.load(film) }
                let gate = DecodeGate()
                HeldFilm.gate.withLockedValue { $0 = gate }
                defer { HeldFilm.gate.withLockedValue { $0 = nil } }
                let held = Task { try await client.load(film, options: LoadOptions(cacheMode: heldAt == .cache ? .offline : .refresh)) }
                var entered = gate.entered.makeAsyncIterator()
                _ = await entered.next()

                // When another load runs meanwhile
                let other = try await client.load(try SWAPI.resource(Person.self, id: 1))
                gate.open()
                let first = try await held.value

                // Then it finished while the first was still held, and both have their answers
                #expect(gate.letGo.withLockedValue { $0 } == true, "the other load waited for the first one's decoding")
                #expect(other.value.name == "Luke Skywalker" && other.metadata.source == .network)
                #expect(first.value.title == "A New Hope" && first.metadata.source == (heldAt == .cache ? .cache : .network))
            }
        }
    }

    /// Tells the test when a load is about to store an answer (the cache's `storing` debug line).
    struct StoreWatch: LogHandler {
        let storing: @Sendable (String) -> Void
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .debug

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            if event.message.description == "storing", let key = event.metadata?["cache.key"] { storing(key.description) }
        }
    }

    enum LoadEvent: Equatable, Sendable {
        case storing(key: String)
        case finished
    }

    @Test func theCacheIsReadWhileALoadWaitsToWriteIt() async throws {
        // Given a cache with one entry, and another connection holding the file's write lock
        try await withTestServer { SampleAPI.route($0) } body: { server in
            let cachePath = scratch.cachePath()
            let (events, event) = AsyncStream<LoadEvent>.makeStream()
            try await withShutdown(of: makeClient(server, cachePath: cachePath, logger: Logger(label: "test") { _ in
                StoreWatch { event.yield(.storing(key: $0)) }
            })) { client in
                _ = try await client.load(try SWAPI.resource(Person.self, id: 1))
                var configuration = Configuration()
                configuration.allowsUnsafeTransactions = true
                let blocker = try DatabaseQueue(path: cachePath, configuration: configuration)
                try blocker.inDatabase { db in try db.execute(sql: "BEGIN IMMEDIATE") }

                // When a load comes to store its answer, and must wait for the lock, the cache is read meanwhile
                let films = try SWAPI.list(Film.self)
                let held = Task {
                    defer { event.yield(.finished) }
                    return try await client.load(films)
                }
                var first: LoadEvent?
                for await next in events where next != .storing(key: server.baseURL + "/api/people/1/") {
                    first = next
                    break
                }
                let statistics = try await client.cacheStatistics()
                try blocker.inDatabase { db in try db.execute(sql: "COMMIT") }
                let loaded = try await held.value

                // Then the read saw the file as it was, and the load stored its answer once the lock went
                #expect(first == .storing(key: server.baseURL + "/api/films/"), "the load got to its write while the lock was held")
                #expect(statistics.services["swapi"]?.entries == 1, "read while the write waited")
                #expect(loaded.metadata.source == .network && loaded.value.results.count == 6)
                #expect(await client.notices.drain().isEmpty, "no write gave up on the file")
                let stored = try? await client.load(films, options: LoadOptions(cacheMode: .offline))
                #expect(stored?.metadata.source == .cache, "stored")
                try blocker.close()
            }
        }
    }
}
