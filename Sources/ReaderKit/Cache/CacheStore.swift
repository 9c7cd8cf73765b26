import Foundation
import Logging

/// The client's cache file, under the ErrorHandler's decisions: opened once, a damaged file moved
/// aside and replaced, a damaged entry dropped, writes skipped on a read-only file, and each kind
/// of trouble told once as a notice. Cache trouble never fails a load.
///
/// An actor for its few pieces of state (which file is open, whether it was replaced); the SQL
/// itself runs on GRDB's queues (the `async` forms of ``ResponseCache``'s operations), so that
/// loads waiting on the file do not hold one another up.
actor CacheStore {
    private let path: String?
    private let handler: ErrorHandler
    private let notices: NoticeBoard
    private let logger: Logger
    private let now: @Sendable () -> Date

    private enum State {
        case unopened
        case open(ResponseCache)
        case none
    }

    private var state: State = .unopened
    private var opening: Task<ResponseCache?, Never>?
    /// Which file is in use: it changes when a damaged file is replaced, so that the failure of
    /// an operation begun on the old file is not taken for the new one's.
    private var generation = 0
    /// Whether a damaged file was replaced already: it is done once, never in a loop.
    private var replacedDamagedCache = false
    /// The last failure noted, so that `reader cache …` reports why the cache did not open.
    private var lastFailure: CacheFailure?
    /// Whether a write was skipped on a read-only cache already: that is said once.
    private var saidReadOnly = false
    /// How many writes failed or were skipped, and the last one's failure: a sync asks whether
    /// what it fetched was stored (``storageFailure(since:)``).
    private var failedWrites = 0
    private var lastWriteFailure: CacheFailure?

    init(path: String?, handler: ErrorHandler, notices: NoticeBoard, logger: Logger, now: @escaping @Sendable () -> Date) {
        self.path = path
        self.handler = handler
        self.notices = notices
        self.logger = logger
        self.now = now
    }

    // MARK: - Opening

    /// Opens the cache once. A damaged file is moved aside and replaced; a cache that cannot be
    /// opened at all leaves the command to carry on without one. Concurrent loads wait for the
    /// one opening rather than each opening (and perhaps replacing) the file.
    func open() async -> ResponseCache? {
        switch state {
        case .open(let cache): return cache
        case .none: return nil
        case .unopened: break
        }
        if let opening { return await opening.value }
        let task = Task { await self.openOnce() }
        opening = task
        return await task.value
    }

    private func openOnce() async -> ResponseCache? {
        guard let path else { state = .none; return nil }
        var opened: ResponseCache?
        // The file judged, should it be damaged: only that file is moved aside.
        let identity = FileIdentity(path: path)
        do {
            opened = try ResponseCache.open(path: path)
        } catch {
            opened = await recover(from: error, path: path, identity: identity)
        }
        state = opened.map { .open($0) } ?? .none
        return opened
    }

    private func recover(from failure: CacheFailure, path: String, identity: FileIdentity?) async -> ResponseCache? {
        guard case .reset(.replaceCacheFile, _) = handler.decide(.cache(failure), in: ErrorContext()) else {
            await handle(failure)
            return nil
        }
        do {
            // Another process that found the same file damaged may have replaced it already: its
            // new file is used, not moved aside in turn.
            guard let aside = try CacheFile.moveAside(path: path, now: now(), ifStill: identity) else {
                return try ResponseCache.open(path: path)
            }
            let fresh = try ResponseCache.open(path: path)
            await notices.post(Notice(kind: .cache, code: ErrorCode(.cache, CacheFailure.Reason.corrupt.rawValue), message:
                "the cache file was damaged; it was moved to \(TerminalText.sanitise(aside)) and a new one started"))
            return fresh
        } catch {
            await handle(error)
            return nil
        }
    }

    /// The cache as it is now: a damaged file may have been replaced since a load began.
    private var current: ResponseCache? {
        if case .open(let cache) = state { cache } else { nil }
    }

    // MARK: - Entries

    /// The entry stored under `key` for `service`; nil when there is none, when there is no
    /// cache, or when the row cannot be right (it is dropped, with its notice).
    func entry(forKey key: String, service: ServiceName) async -> CacheEntry? {
        guard let cache = current else { return nil }
        let generation = self.generation
        do {
            guard let entry = try await cache.entry(forKey: key) else { return nil }
            // The key is the URL of this service's request: a row that names another service
            // was not stored by this pipeline (another program, a damaged page) and cannot be right.
            guard entry.service == service else {
                await drop(damagedEntry: key, CacheFailure(.damagedEntry, path: cache.path, detail:
                    "the entry names the service \(entry.service), not \(service)"))
                return nil
            }
            return entry
        } catch where error.reason == .damagedEntry {
            await drop(damagedEntry: key, error)
            return nil
        } catch {
            await handle(error, from: generation)
            return nil
        }
    }

    /// Drops the entry under `key`, whose stored body no longer decodes (`reason`): a damaged
    /// page, an older reader's shape.
    func drop(undecodable key: String, reason: String) async {
        await drop(damagedEntry: key, CacheFailure(.damagedEntry, path: path ?? "", detail: "the stored body does not decode (\(reason))"))
    }

    /// A row that cannot be right is never served and never fatal: it is deleted as the
    /// ErrorHandler decides, with one notice, and the load goes on as if nothing were cached.
    private func drop(damagedEntry key: String, _ failure: CacheFailure) async {
        let decision = handler.decide(.cache(failure), in: ErrorContext())
        logger.debug("damaged entry", metadata: ["cache.key": "\(key)", "decision": "\(decision)", "cache.detail": "\(failure.detail)"])
        if case .reset(.deleteCachedCopy, _) = decision {
            await write { (cache) async throws(CacheFailure) in try await cache.deleteEntry(forKey: key) }
        }
        await notices.post(Notice(kind: .cache, code: ErrorCode(.cache, failure.reason.rawValue), message:
            "a cached copy was damaged (\(TerminalText.sanitise(failure.detail, maxLength: 200))); it was dropped"))
    }

    /// Stores `entry`, evicting the least recently used entries beyond `sizeLimit`.
    func store(_ entry: CacheEntry, sizeLimit: Int?) async {
        await write { [logger] (cache) async throws(CacheFailure) in
            // Said before the write too: a write may wait for another process's (SQLite's busy timeout).
            logger.debug("storing", metadata: ["cache.key": "\(entry.key)", "cache.bytes": "\(entry.bodySize)"])
            let evicted = try await cache.store(entry, sizeLimit: sizeLimit)
            logger.debug("stored", metadata: ["cache.key": "\(entry.key)", "cache.bytes": "\(entry.bodySize)",
                                              "cache.evicted": "\(evicted.map(String.init) ?? "not stored: larger than the cache size limit")"])
        }
    }

    /// Counts the load for `reader cache stats`; a cache that cannot be written is not counted in.
    /// A read-only file, a full disk or another process's lock is not warned about here, nor
    /// waited for: the read was whole, and only its count is lost.
    func recordUse(_ use: CacheUse, service: ServiceName, key: String) async {
        let now = now()
        await write(quietWhenUnwritable: true) { (cache) async throws(CacheFailure) in
            try await cache.recordUse(use, service: service, key: key, at: now)
        }
    }

    /// Marks the entry under `key` as confirmed by a `304` at `now`, with what the `304` said.
    /// Keeps what a `304` confirmed of the copy under `key`; one whose `Cache-Control` says
    /// no-store confirms this answer and forbids keeping it (RFC 9111 §3): the copy is deleted.
    func keep(_ confirmation: CacheEntry.Confirmation, ofKey key: String, at now: Date) async {
        guard FreshnessPolicy.mayStore(cacheControl: confirmation.cacheControl) else { return await deleteEntry(forKey: key) }
        await markRevalidated(key: key, at: now, by: confirmation)
    }

    func markRevalidated(key: String, at now: Date, by confirmation: CacheEntry.Confirmation) async {
        await write { (cache) async throws(CacheFailure) in
            try await cache.markRevalidated(key: key, at: now, by: confirmation)
        }
    }

    /// Deletes the entry under `key` (a reset's action: the resource is gone).
    func deleteEntry(forKey key: String) async {
        await write { (cache) async throws(CacheFailure) in try await cache.deleteEntry(forKey: key) }
    }

    // MARK: - Rate limits

    /// The rate limit remembered for `service` at `origin`; nil when there is none or it cannot
    /// be read (a limit is never read from a file in trouble).
    func rateLimit(forOrigin origin: String, service: ServiceName) async -> RateLimitState? {
        guard let cache = current else { return nil }
        return try? await cache.rateLimit(forOrigin: origin, service: service)
    }

    /// Keeps `state` for the next run.
    func storeRateLimit(_ state: RateLimitState) async {
        await write { (cache) async throws(CacheFailure) in try await cache.storeRateLimit(state) }
    }

    // MARK: - Detours

    /// The detour remembered for `service` at `origin`; nil when there is none or the file is in trouble.
    func detour(forOrigin origin: String, service: ServiceName) async -> DetourState? {
        guard let cache = current else { return nil }
        return (try? await cache.detours(ofOrigin: origin, service: service))?.first
    }

    /// Keeps `state` for the next runs.
    func storeDetour(_ state: DetourState) async {
        await write { (cache) async throws(CacheFailure) in try await cache.storeDetour(state) }
    }

    /// The last visit to each of `keys` that has one; none without a cache.
    func lastVisits(toKeys keys: [String]) async -> [String: Visit] {
        guard let cache = current else { return [:] }
        return (try? await cache.lastVisits(toKeys: keys)) ?? [:]
    }

    /// Records `visit` as the last to `key`. Bookkeeping: a cache that cannot be written skips it
    /// without a word.
    func recordVisit(_ visit: Visit, toKey key: String, service: ServiceName) async {
        await write(quietWhenUnwritable: true) { (cache) async throws(CacheFailure) in
            try await cache.recordVisit(visit, toKey: key, service: service)
        }
    }

    // MARK: - Managing the cache (`reader cache`)

    /// Runs `body` on the cache, opened (and recovered) as a load would open it. A cache file that
    /// does not exist yet is not created: `ifMissing` answers for it. Failing to open is an error here.
    func manage<T: Sendable>(ifMissing: @Sendable (String) -> T,
                             _ body: @Sendable (ResponseCache) async throws(CacheFailure) -> T) async throws(ReaderError) -> T {
        guard let path else { throw .invalidConfiguration("no cache is configured") }
        // lstat, not fileExists: a link whose target is missing (or a loop of links) is a path that
        // names something, and it cannot be opened; only a path naming nothing is "no cache yet".
        let status: UntrustedFile.Status
        do { status = try UntrustedFile.status(of: path, followingLinks: false) } catch {
            // Only a path that names nothing is "no cache yet": one this user cannot look at (a
            // folder of another user's), or under something that is no folder, may hold one.
            guard error.number == ENOENT else {
                throw .cache(CacheFailure(.unavailable, path: path, detail: "cannot look at the file: \(error)", underlyingError: error))
            }
            return ifMissing(path)
        }
        if status.kind == .symbolicLink, !FileManager.default.fileExists(atPath: path) {
            throw .cache(CacheFailure(.unavailable, path: path, detail: "a symbolic link to a file that does not exist (or a loop of links)"))
        }
        guard let cache = await open() else {
            throw .cache(lastFailure ?? CacheFailure(.unavailable, path: path, detail: "the cache could not be opened"))
        }
        do { return try await body(cache) } catch { throw .cache(error) }
    }

    /// Leaves what was stored in the file itself (``ResponseCache/finishWrites()``).
    func finishWrites() {
        current?.finishWrites()
    }

    // MARK: - Trouble

    /// Runs a write on the current cache. On a read-only cache it is skipped, said once at the
    /// first: a command that only reads it (`reader cache stats`) has nothing to be warned about.
    /// - Parameter quietWhenUnwritable: bookkeeping (a read's record of its use), which a
    ///   read-only file, a full disk or another process's lock skips without a word, and which is
    ///   no data a sync stored.
    private func write(quietWhenUnwritable: Bool = false, _ body: (ResponseCache) async throws(CacheFailure) -> Void) async {
        guard let cache = current else { return }
        if quietWhenUnwritable, cache.isReadOnly { return }
        guard !cache.isReadOnly else {
            let failure = CacheFailure(.unwritable, path: cache.path,
                                       detail: cache.readOnlyBecause?.detail ?? "the file or its folder is read-only")
            noteFailedWrite(failure)
            if !saidReadOnly {
                saidReadOnly = true
                await handle(failure)
            }
            return
        }
        let generation = self.generation
        do { try await body(cache) } catch {
            if quietWhenUnwritable, error.reason == .unwritable {
                logger.debug("use not recorded", metadata: ["cache.detail": "\(error.detail)"])
                return
            }
            if generation == self.generation { noteFailedWrite(error) }
            await handle(error, from: generation)
        }
    }

    private func noteFailedWrite(_ failure: CacheFailure) {
        failedWrites += 1
        lastWriteFailure = failure
    }

    // MARK: - Whether data was stored (a sync)

    /// When the file in use was deleted or replaced at its path (what was stored in it went
    /// with it, and what is stored next would too), says so (C1003, as a sync does) and opens
    /// the path anew: what is stored from now on is in the file the next run reads. A
    /// long-running program asks this now and then.
    /// - Returns: whether the file was opened anew.
    @discardableResult
    func reopenIfMoved() async -> Bool {
        guard case .open(let cache) = state, !cache.isStillAtItsPath, let path else { return false }
        let gone = FileManager.default.fileExists(atPath: path) ? "replaced" : "deleted"
        state = .unopened
        opening = nil
        // What was begun on the old file is not taken for the new one's.
        generation += 1
        cache.close()
        await notices.post(Notice(kind: .cache, code: ErrorCode(.cache, CacheFailure.Reason.unwritable.rawValue), message:
            "the cache file was \(gone) while in use (\(TerminalText.sanitise(path))): what was stored before went with it; a new one was opened"))
        return await open() != nil
    }

    /// A mark to pass to ``storageFailure(since:)``: how many writes failed so far.
    var failedWriteMark: Int { failedWrites }

    /// Why nothing could be stored in the cache, asked before a sync fetches: no cache could be
    /// opened (C1004, a path that is no regular file), or the file opened only for reading
    /// (C1003). Nil when writes may go in, and when no cache is configured.
    func unstorable() async -> CacheFailure? {
        guard let path else { return nil }
        guard let cache = await open() else {
            return lastFailure ?? CacheFailure(.unavailable, path: path, detail: "the cache could not be opened")
        }
        guard cache.isReadOnly else { return nil }
        return CacheFailure(.unwritable, path: cache.path, detail: cache.readOnlyBecause?.detail ?? "the file or its folder is read-only")
    }

    /// Why what was loaded since `mark` may not be in the cache file the path names: the file
    /// was deleted or replaced while in use (what was written went with it), or no cache could
    /// be opened (`failedWrites` nil: nothing is stored); or some writes failed or were skipped
    /// (C1003; `failedWrites` says how many, the last one's failure is given: the others were
    /// stored). Nil when everything written is there, and when no cache is configured.
    func storageFailure(since mark: Int) -> (failure: CacheFailure, failedWrites: Int?)? {
        guard let path else { return nil }
        switch state {
        case .open(let cache):
            guard cache.isStillAtItsPath else {
                let gone = FileManager.default.fileExists(atPath: path) ? "replaced" : "deleted"
                return (CacheFailure(.unwritable, path: path, detail:
                    "the cache file was \(gone) while reader wrote to it: what was stored went with the old file"), nil)
            }
        case .none:
            return (lastFailure ?? CacheFailure(.unavailable, path: path, detail: "the cache could not be opened"), nil)
        case .unopened:
            break
        }
        if failedWrites > mark, let lastWriteFailure { return (lastWriteFailure, failedWrites - mark) }
        return nil
    }

    /// Cache trouble never fails a command: it is noted once and the command carries on. A file
    /// found damaged after it opened (a page that does not read) is replaced as at opening, once.
    /// - Parameter generation: the file the failed operation began on, when it began on one; a
    ///   file replaced since then is no longer in use, and its failure is not reported.
    private func handle(_ failure: CacheFailure, from generation: Int? = nil) async {
        if let generation, generation != self.generation {
            logger.debug("cache failure on a file since replaced", metadata: ["cache.detail": "\(failure.detail)"])
            return
        }
        lastFailure = failure
        if failure.reason == .corrupt, let damaged = current, !replacedDamagedCache {
            replacedDamagedCache = true
            state = .none
            self.generation += 1
            damaged.close()
            state = await recover(from: failure, path: damaged.path, identity: damaged.identity).map { .open($0) } ?? .none
            return
        }
        let error = ReaderError.cache(failure)
        let decision = handler.decide(error, in: ErrorContext())
        logger.debug("cache failure", metadata: ["error.code": "\(error.code)", "decision": "\(decision)",
                                                 "cache.detail": "\(failure.detail)"])
        let message: String
        switch failure.reason {
        case .unwritable where failure.isBusy:
            message = "the cache is busy: another process holds its write lock (\(TerminalText.sanitise(failure.path))); what was to be stored then is not"
        case .unwritable: message = "the cache cannot be written (\(TerminalText.sanitise(failure.path))); carrying on without storing"
        case .corrupt: message = "the cache file is damaged and could not be replaced; carrying on without it"
        case .unavailable, .notCached, .tooOld, .damagedEntry: message = "the cache cannot be opened (\(TerminalText.sanitise(failure.path))); carrying on without it"
        }
        await notices.post(Notice(kind: .cache, code: error.code, message: message))
    }
}
