import Foundation

/// What a sync did: how many requests brought data, and what failed, summed up by error.
public struct SyncReport: Sendable {
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
    public var isComplete: Bool { failureCounts.isEmpty }

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

    private mutating func fail(_ error: ReaderError) {
        let order = failureCounts.count
        failureCounts[error.code, default: (error, 0, order)].count += 1
    }

    /// One line for people: `312 fetched, 4 failed (T1004 ×4: cannot connect to swapi.dev…)`.
    public var summary: String {
        var parts = ["\(fetched) fetched"]
        if alreadyFresh > 0 { parts.append("\(alreadyFresh) already fresh") }
        if failed > 0 {
            let reasons = failures.map { "\($0.error.code) ×\($0.count): \($0.error.message)" }.joined(separator: "; ")
            parts.append("\(failed) failed (\(reasons))")
        }
        return parts.joined(separator: ", ")
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
        for outcome in outcomes {
            report.count(outcome)
            if case .success(let page) = outcome { links += page.value.results.map(\.url) }
        }
        return links
    }

    /// Fills the cache with the given subreddits' listings (as `reader posts SUBREDDIT` reads
    /// them) and each listed post's comments (as `reader comments ID` reads them).
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a name Reddit cannot have, before any request.
    public func syncReddit(subreddits: [String], options: LoadOptions = LoadOptions(),
                           progress: ProgressHandler? = nil) async throws(ReaderError) -> SyncReport {
        let listings = try subreddits.map { (name) throws(ReaderError) in try Reddit.posts(subreddit: name) }
        var report = SyncReport()
        var background = options
        background.mode = .background
        var counted = LoadProgress(completed: 0, total: listings.count)
        for listing in listings {
            let outcome: Result<Loaded<RedditListing>, LoadFailure>
            do throws(LoadFailure) { outcome = .success(try await load(listing, options: background)) } catch { outcome = .failure(error) }
            report.count(outcome)
            counted.completed += 1
            progress?(counted)
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
