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

    /// Requests answered with a new body or confirmed by a `304`.
    public var fetched = 0
    /// Requests served from copies that were still fresh: nothing to do.
    public var alreadyFresh = 0
    /// Failures, one entry per error code, most frequent first, each with an example error.
    public var failures: [(error: ReaderError, count: Int)] {
        failureCounts.sorted { $0.value.count > $1.value.count || ($0.value.count == $1.value.count && $0.value.order < $1.value.order) }
            .map { ($0.value.error, $0.value.count) }
    }
    /// How many requests failed in all.
    public var failed: Int { failureCounts.values.reduce(0) { $0 + $1.count } }
    /// Whether everything asked for is now in the cache.
    public var isComplete: Bool { failureCounts.isEmpty && notRead.isEmpty }
    /// What could not be read at all, in the order met: its size is unknown.
    public private(set) var notRead: [NotRead] = []
    /// Per collection, how many pages after the first failed: the resources they list were not read.
    public private(set) var pagesFailed: [String: Int] = [:]

    private var failureCounts: [ErrorCode: (error: ReaderError, count: Int, order: Int)] = [:]

    public init() {}

    /// Counts one load's outcome. A stale copy served in place of an answer counts as failed:
    /// the cache did not get newer.
    mutating func count<Value>(_ outcome: Result<Loaded<Value>, LoadFailure>) {
        switch outcome {
        case .success(let loaded) where loaded.servedInsteadOf != nil:
            fail(loaded.servedInsteadOf!)
        case .success(let loaded):
            if loaded.metadata.source == .cache { alreadyFresh += 1 } else { fetched += 1 }
        case .failure(let failure):
            fail(failure.error)
        }
    }

    /// Notes that `name` could not be read at all (its first request is counted with ``count(_:)``).
    mutating func markNotRead(_ name: String, because error: ReaderError) {
        notRead.append(NotRead(name: name, error: error))
    }

    /// Notes that a page after the first of `name` failed.
    mutating func markPageFailed(of name: String) {
        pagesFailed[name, default: 0] += 1
    }

    private mutating func fail(_ error: ReaderError) {
        let order = failureCounts.count
        failureCounts[error.code, default: (error, 0, order)].count += 1
    }

    /// One line for people: `312 fetched, 4 failed (T1004 ×4: cannot connect to swapi.dev…)`,
    /// then what is missing: `; films: not read (first page failed: T1004)`.
    public var summary: String {
        var parts = ["\(fetched) fetched"]
        if alreadyFresh > 0 { parts.append("\(alreadyFresh) already fresh") }
        if failed > 0 {
            let reasons = failures.map { "\($0.error.code) ×\($0.count): \($0.error.message)" }.joined(separator: "; ")
            parts.append("\(failed) failed (\(reasons))")
        }
        return ([parts.joined(separator: ", ")] + missing).joined(separator: "; ")
    }

    /// What is missing, one phrase each: `films: not read (first page failed: T1004)`,
    /// `people: 2 pages failed (the resources they list were not read)`.
    public var missing: [String] {
        notRead.map { "\($0.name): not read (\($0.name.hasPrefix("r/") ? "listing" : "first page") failed: \($0.error.code))" }
            + pagesFailed.sorted { $0.key < $1.key }.map { name, pages in
                "\(name): \(pages) \(pages == 1 ? "page" : "pages") failed (the resources \(pages == 1 ? "it lists" : "they list") were not read)"
            }
    }
}

extension ReaderClient {
    /// Fills the cache with all of SWAPI: every page of every collection, then every resource on
    /// its own, so that every SWAPI command works with `--offline` afterwards. Fresh copies are
    /// not asked for again; stale ones are revalidated.
    ///
    /// It runs as background work: failures are counted into the report, never thrown.
    public func syncSWAPI(options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil) async -> SyncReport {
        var report = SyncReport()
        var background = options
        background.mode = .background
        var counted = LoadProgress(completed: 0, total: SWAPICollection.allCases.count)
        for collection in SWAPICollection.allCases {
            let links: [String]
            switch collection {
            case .films: links = await syncPages(Film.self, into: &report, counted: &counted, options: background, progress: progress)
            case .people: links = await syncPages(Person.self, into: &report, counted: &counted, options: background, progress: progress)
            case .planets: links = await syncPages(Planet.self, into: &report, counted: &counted, options: background, progress: progress)
            case .species: links = await syncPages(Species.self, into: &report, counted: &counted, options: background, progress: progress)
            case .starships: links = await syncPages(Starship.self, into: &report, counted: &counted, options: background, progress: progress)
            case .vehicles: links = await syncPages(Vehicle.self, into: &report, counted: &counted, options: background, progress: progress)
            }
            let items = links.compactMap(SWAPI.endpoint(forLink:))
            counted.total += items.count
            for outcome in await loadConcurrently(items, options: background, progress: progress, counting: counted) {
                report.count(outcome)
            }
            counted.completed += items.count
        }
        return report
    }

    /// Loads every page of one collection into the cache; returns the links of its resources.
    private func syncPages<Resource: SWAPIResource>(_ type: Resource.Type, into report: inout SyncReport, counted: inout LoadProgress,
                                                    options: LoadOptions, progress: ProgressHandler?) async -> [String] {
        let outcomes = await loadEveryPage(Resource.self, search: nil, options: options, progress: progress, counting: counted)
        counted.completed += outcomes.count
        counted.total += outcomes.count - 1
        var links: [String] = []
        for (index, outcome) in outcomes.enumerated() {
            report.count(outcome)
            switch outcome {
            case .success(let page): links += page.value.results.map(\.url)
            case .failure(let failure) where index == 0: report.markNotRead(Resource.collection.rawValue, because: failure.error)
            case .failure: report.markPageFailed(of: Resource.collection.rawValue)
            }
        }
        return links
    }

    /// Fills the cache with the given subreddits' listings (as `reader posts SUBREDDIT` reads
    /// them) and each listed post's comments (as `reader comments ID` reads them).
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a name Reddit cannot have, before any request.
    public func syncReddit(subreddits: [String], options: LoadOptions = LoadOptions(),
                           progress: ProgressHandler? = nil) async throws(ReaderError) -> SyncReport {
        let names = try subreddits.map { (name) throws(ReaderError) in try Reddit.validatedSubreddit(name) }
        let listings = try names.map { (name) throws(ReaderError) in try Reddit.posts(subreddit: name) }
        var report = SyncReport()
        var background = options
        background.mode = .background
        var counted = LoadProgress(completed: 0, total: listings.count)
        for (name, listing) in zip(names, listings) {
            let outcome: Result<Loaded<RedditListing>, LoadFailure>
            do throws(LoadFailure) { outcome = .success(try await load(listing, options: background)) } catch { outcome = .failure(error) }
            report.count(outcome)
            counted.completed += 1
            progress?(counted)
            if case .failure(let failure) = outcome { report.markNotRead("r/\(name)", because: failure.error) }
            guard case .success(let page) = outcome else { continue }
            let threads = page.value.posts.compactMap { try? Reddit.comments(post: $0.id) }
            counted.total += threads.count
            for result in await loadConcurrently(threads, options: background, progress: progress, counting: counted) {
                report.count(result)
            }
            counted.completed += threads.count
        }
        return report
    }
}
