import Foundation

/// What a sync did: how many requests brought data, what failed, summed up by error, and what
/// is missing because of it.
///
/// A failed request is one count; what it hid is not. When a collection's first page (or a
/// subreddit's listing) fails, how many pages and resources the collection holds is unknown, so
/// the whole of it is reported as not read rather than as a number; a later page that fails
/// hides the resources it lists, in a number that is unknown too.
public struct SyncReport: Sendable {
    /// Something a sync could not read at all: a collection whose first page failed, or a
    /// subreddit whose listing failed.
    public struct NotRead: Sendable {
        /// The collection's or subreddit's name: `films`, `r/swift`.
        public var name: String
        /// What the first request met.
        public var error: ReaderError
    }

    /// The requests that failed with one error code and one class (``FailureClass``): a 503 of a
    /// busy server and a 503 that is a firewall's block page are two groups, told apart.
    public struct FailureGroup: Sendable {
        /// The code every error of the group has.
        public var code: ErrorCode { error.code }
        /// The code as the group is named: `H503`, or `H503 blocked` for block pages, which
        /// another group of the same code may stand beside.
        public var label: String { error.groupLabel }
        /// How many requests failed so.
        public var count: Int
        /// The first error met: its message, its exit code.
        public var error: ReaderError
        /// What the first few failed requests were for (`people/17`, `films page 1`, `post 2xmo63`,
        /// `r/swift`), in the order met; at most ``SyncReport/subjectsShown``.
        public var subjects: [String]
        /// Whether every error of the group said the same (a host that refused each time), or
        /// each its own (a 404 naming its own post).
        public var allSaidTheSame: Bool
        let order: Int

        /// What the group's requests met: the error's message when all said the same, else what
        /// the code means, so that 102 different 404s are not told as the first one's.
        public var message: String { wording.description }

        /// ``message`` with the settings it names kept as names (``ReaderError/wording``).
        public var wording: Wording {
            let many = error.messageForMany
            return allSaidTheSame || many == error.message ? error.wording : Wording(many)
        }

        /// What to do about these failures: run the sync again only where that can help
        /// (``ErrorContext/isSyncSummary``).
        public var hints: [Hint] { error.hints(in: ErrorContext(isSyncSummary: true)) }

        /// `H500 ×36: the server answered 500 Internal Server Error (starships/2, starships/3,
        /// starships/5 and 33 more)`.
        public var summary: String { summary(message: message) }

        /// ``summary`` with `message` in place of ``message``: a front end's wording of it.
        public func summary(message: String) -> String {
            guard !subjects.isEmpty else { return "\(label) ×\(count): \(message)" }
            let more = count > subjects.count ? " and \(count - subjects.count) more" : ""
            return "\(label) ×\(count): \(message) (\(subjects.joined(separator: ", "))\(more))"
        }
    }

    /// How many subjects a failure group names; the rest are counted.
    public static let subjectsShown = 3

    /// Requests answered with a new body or confirmed by a `304`.
    public var fetched = 0
    /// Requests served from copies that were still fresh: nothing to do.
    public var alreadyFresh = 0
    /// Failures grouped by error code, most frequent first.
    public var failureGroups: [FailureGroup] {
        failureCounts.values.sorted { $0.count > $1.count || ($0.count == $1.count && $0.order < $1.order) }
    }
    /// Failures, one entry per error code, most frequent first, each with an example error.
    public var failures: [(error: ReaderError, count: Int)] { failureGroups.map { ($0.error, $0.count) } }
    /// How many requests failed in all.
    public var failed: Int { failureCounts.values.reduce(0) { $0 + $1.count } }
    /// Whether everything asked for is now in the cache.
    public var isComplete: Bool { failureCounts.isEmpty && notRead.isEmpty && notStored == nil }
    /// Why what was fetched is not (all) in the cache file: a write failed or was skipped, or
    /// the file was deleted or replaced during the sync (C1003); or no cache could be opened
    /// (C1004). Nil when everything fetched was stored.
    public internal(set) var notStored: ReaderError?
    /// How many of the sync's writes to the cache failed, when only those did (another
    /// process's lock held too long, each skipped write counted): what else was fetched is
    /// stored. Nil when ``notStored`` is nil, or when nothing fetched is in the file.
    public internal(set) var failedWrites: Int?
    /// What could not be read at all, in the order met: its size is unknown.
    public private(set) var notRead: [NotRead] = []
    /// Per collection, how many pages after the first failed: the resources they list were not read.
    public private(set) var pagesFailed: [String: Int] = [:]

    /// A failure group's key: its code and its class.
    private struct GroupKey: Hashable {
        var code: ErrorCode
        var failureClass: FailureClass
        init(_ error: ReaderError) {
            code = error.code
            failureClass = error.failureClass
        }
    }

    private var failureCounts: [GroupKey: FailureGroup] = [:]

    public init() {}

    /// What one request of a sync came to, whatever it loaded.
    enum Outcome: Sendable {
        case fetched
        case alreadyFresh
        /// Failed, or answered only by a stale copy (the cache did not get newer).
        case failed(ReaderError)

        init<Value>(_ result: Result<Loaded<Value>, LoadFailure>) {
            switch result {
            case .success(let loaded):
                if let error = loaded.servedInsteadOf { self = .failed(error) }
                else { self = loaded.metadata.source == .cache ? .alreadyFresh : .fetched }
            case .failure(let failure):
                self = .failed(failure.error)
            }
        }
    }

    /// Counts one load's outcome. A stale copy served in place of an answer counts as failed:
    /// the cache did not get newer.
    /// - Parameter subject: what the request was for, as a failure group names it (`people/17`).
    package mutating func count<Value>(_ outcome: Result<Loaded<Value>, LoadFailure>, subject: String? = nil) {
        count(Outcome(outcome), subject: subject)
    }

    mutating func count(_ outcome: Outcome, subject: String?) {
        switch outcome {
        case .fetched: fetched += 1
        case .alreadyFresh: alreadyFresh += 1
        case .failed(let error): fail(error, subject: subject)
        }
    }

    /// Notes that `name` could not be read at all (its first request is counted with ``count(_:subject:)``).
    mutating func markNotRead(_ name: String, because error: ReaderError) {
        notRead.append(NotRead(name: name, error: error))
    }

    /// Notes that a page after the first of `name` failed.
    mutating func markPageFailed(of name: String) {
        pagesFailed[name, default: 0] += 1
    }

    private mutating func fail(_ error: ReaderError, subject: String?) {
        let key = GroupKey(error)
        guard var group = failureCounts[key] else {
            failureCounts[key] = FailureGroup(count: 1, error: error, subjects: subject.map { [$0] } ?? [], allSaidTheSame: true,
                                                     order: failureCounts.count)
            return
        }
        group.count += 1
        if let subject, group.subjects.count < Self.subjectsShown { group.subjects.append(subject) }
        if group.allSaidTheSame, error.message != group.error.message { group.allSaidTheSame = false }
        failureCounts[key] = group
    }

    /// One line for people: `312 fetched, 4 failed (T1004 ×4)`, then what is missing:
    /// `; films: not read (first page failed: T1004)`. ``failureLines`` tell each code's story.
    public var summary: String {
        var parts = ["\(fetched) fetched"]
        if alreadyFresh > 0 { parts.append("\(alreadyFresh) already fresh") }
        if failed > 0 {
            parts.append("\(failed) failed (\(failureGroups.map { "\($0.label) ×\($0.count)" }.joined(separator: ", ")))")
        }
        return ([parts.joined(separator: ", ")] + missing).joined(separator: "; ")
    }

    /// `not stored (C1003): the cache file was deleted while reader wrote to it: …`, or when only
    /// some writes failed, `not stored (C1003): 2 writes failed, the last: another process …`; nil
    /// when everything fetched was stored.
    public var notStoredLine: String? {
        guard let notStored, case .cache(let failure) = notStored else { return nil }
        let count = failedWrites.map { "\($0) \($0 == 1 ? "write" : "writes") failed, the last: " } ?? ""
        return "not stored (\(notStored.code)): \(count)\(TerminalText.sanitise(failure.detail, maxLength: 200))"
    }

    /// Each failure group with its hint, two lines a code, most frequent first:
    /// `T1005 ×36: the connection … (starships/2, starships/3, starships/5 and 33 more)` and
    /// `hint: run the sync again to fill these gaps`.
    public var failureLines: [String] {
        failureGroups.flatMap { [$0.summary, "hint: \($0.hints.text)"] }
    }

    /// What is missing, one phrase each: `films: not read (first page failed: T1004)`,
    /// `people: 2 pages failed (the resources they list were not read)`.
    public var missing: [String] {
        (notStoredLine.map { [$0] } ?? []) + notRead.map { "\($0.name): not read (\($0.name.hasPrefix("r/") ? "listing" : "first page") failed: \($0.error.code))" }
            + pagesFailed.sorted { $0.key < $1.key }.map { name, pages in
                "\(name): \(pages) \(pages == 1 ? "page" : "pages") failed (the resources \(pages == 1 ? "it lists" : "they list") were not read)"
            }
    }

    /// What to do about syncs that are incomplete, all codes together: "run it again" only when
    /// that can fill every gap; else which codes it may help with and which not; nil when complete.
    public static func hint(after reports: [SyncReport]) -> String? {
        let errors = reports.flatMap { ($0.notStored.map { [$0] } ?? []) + $0.notRead.map(\.error) + $0.failureGroups.map(\.error) }
        guard !errors.isEmpty else { return nil }
        /// Each code once, a block page's apart (`H503 blocked`), as the groups are named.
        func codes(_ chosen: [ReaderError]) -> String {
            var seen = Set<String>()
            return chosen.map(\.groupLabel).filter { seen.insert($0).inserted }.joined(separator: ", ")
        }
        let worthIt = errors.filter(\.isWorthRetryingLater)
        let notWorthIt = errors.filter { !$0.isWorthRetryingLater }
        if notWorthIt.isEmpty { return "run it again to fill the gaps" }
        if worthIt.isEmpty { return "running it again will not fill these gaps (\(codes(notWorthIt))): see each code's hint" }
        return "running it again may fill the gaps of \(codes(worthIt)), not those of \(codes(notWorthIt)): see each code's hint"
    }
}

extension ReaderClient {
    /// Where a sync starts, to know at its end whether what it fetched was stored; nil when
    /// nothing could be stored (no cache could be opened, or it opens only for reading), which
    /// `report` then says (``SyncReport/notStored``): a sync's point is to store, so it fetches
    /// nothing.
    func storageMark(unlessUnstorable report: inout SyncReport) async -> Int? {
        if let failure = await cache.unstorable() {
            report.notStored = .cache(failure)
            return nil
        }
        return await cache.failedWriteMark
    }

    /// Notes in `report` whether what the sync fetched since `mark` is in the cache file the
    /// path names: a sync that could not store it has not filled the cache, whatever it fetched.
    func checkStorage(of report: inout SyncReport, since mark: Int) async {
        guard let (failure, failedWrites) = await cache.storageFailure(since: mark) else { return }
        report.notStored = .cache(failure)
        report.failedWrites = failedWrites
    }

    /// Runs `jobs` with at most ``Configuration/maximumConcurrentRequests`` at once, reporting
    /// `phase` with its total from the start.
    /// - Returns: one result per job, in the order given.
    func runConcurrently<T: Sendable>(_ jobs: [@Sendable () async -> T], phase: String,
                                               progress: ProgressHandler?) async -> [T] {
        guard !jobs.isEmpty else { return [] }
        let width = configuration.maximumConcurrentRequests
        var results = [T?](repeating: nil, count: jobs.count)
        progress?(LoadProgress(completed: 0, total: jobs.count, phase: phase))
        await withTaskGroup(of: (Int, T).self) { group in
            var next = 0
            func start() {
                let index = next
                let job = jobs[index]
                next += 1
                group.addTask { (index, await job()) }
            }
            while next < min(width, jobs.count) { start() }
            var done = 0
            for await (index, result) in group {
                results[index] = result
                done += 1
                progress?(LoadProgress(completed: done, total: jobs.count, phase: phase))
                if next < jobs.count { start() }
            }
        }
        return results.map { $0! }
    }

    /// `progress`, with every report marked as of `phase`.
    static func phased(_ progress: ProgressHandler?, _ phase: String) -> ProgressHandler? {
        guard let progress else { return nil }
        return { report in
            var marked = report
            marked.phase = phase
            progress(marked)
        }
    }

    /// The failure a sync counts for a link or id an answer gave that cannot be followed.
    static func unfollowable(_ text: String, as kind: String) -> ReaderError {
        .decoding(DecodingFailure(.invalidValue, codingPath: "", detail: "\(TerminalText.sanitise(text, maxLength: 200)) is not \(kind)",
                                  url: ""))
    }
}

extension ReaderClient {
    /// Fills the cache with `endpoints`' answers, as background work: a fresh copy is not fetched
    /// again, a stale one is revalidated, and every failure is counted into the report, never
    /// thrown. A service's sync of a list of resources is this call.
    /// - Parameters:
    ///   - endpoints: what to fill the cache with, loaded at most
    ///     ``Configuration/maximumConcurrentRequests`` at once.
    ///   - phase: what progress calls the work, such as `openlibrary, works`.
    ///   - options: the deadline and cache mode; the mode is made background.
    ///   - progress: told of each request done, as of `phase`, with the total from the start.
    /// - Returns: what was fetched, already fresh or failed (named by each endpoint's path), and
    ///   whether it was stored.
    public func sync<Value>(_ endpoints: [Endpoint<Value>], phase: String, options: LoadOptions = LoadOptions(),
                            progress: ProgressHandler? = nil) async -> SyncReport {
        var report = SyncReport()
        guard let mark = await storageMark(unlessUnstorable: &report) else { return report }
        var background = options
        background.mode = .background
        background.refreshesStoredFailures = true
        var outcomes = [SyncReport.Outcome?](repeating: nil, count: endpoints.count)
        await loadConcurrently(endpoints, options: background, progress: Self.phased(progress, phase),
                               counting: LoadProgress(completed: 0, total: endpoints.count)) { index, outcome in
            outcomes[index] = SyncReport.Outcome(outcome)
        }
        for (endpoint, outcome) in zip(endpoints, outcomes) {
            report.count(outcome ?? .failed(.bug("a request of the sync was never loaded")), subject: endpoint.path)
        }
        await checkStorage(of: &report, since: mark)
        return report
    }
}

extension ReaderError {
    /// The code as a sync names its group: `H503`, or `H503 blocked` for a block page, which a
    /// group of the same code may stand beside.
    var groupLabel: String { isBlockPage ? "\(code) blocked" : code.description }
}
