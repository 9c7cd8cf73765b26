import Foundation

extension ReaderClient {
    /// Every page of a SWAPI collection (or of a search in it), all at once. The first page says
    /// how many there are; the rest are loaded concurrently. The `next` links are never followed
    /// as they are: only their page number is, against the configured base, so an answer cannot
    /// send reader to another host. Every page is held until the last is in: for a large
    /// collection, ``forEachPage(_:search:options:progress:_:)`` holds only a few at a time.
    /// - Throws: ``LoadFailure`` for the first page that fails.
    public func loadAllPages<Resource: SWAPIResource>(
        _ type: Resource.Type, search: String? = nil, options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil
    ) async throws(LoadFailure) -> [Loaded<SWAPIPage<Resource>>] {
        var pages: [Loaded<SWAPIPage<Resource>>] = []
        try await forEachPage(Resource.self, search: search, options: options, progress: progress) { pages.append($0) }
        return pages
    }

    /// Every page of a SWAPI collection (or of a search in it), handed to `body` one at a time,
    /// in order, as ``loadAllPages(_:search:options:progress:)`` would return them, without
    /// holding them all: the first page says how many there are, and the rest are loaded
    /// concurrently through a sliding window, at most ``Configuration/maximumConcurrentRequests``
    /// loaded (or loading) and not yet handed over. Page `k + width` starts only once page `k` has
    /// been handed over, so memory holds a few pages whatever the collection's size; a page
    /// `body` has let go of is gone.
    ///
    /// Offline, a search never made is answered from the cached collection, as one page. A
    /// collection larger than reader reads (``SWAPI/maximumPages``) is read up to the cap, with a
    /// notice (R1005). Progress counts every page loaded, the first included.
    ///
    /// A page that fails ends what `body` is given: no later page is handed over. The pages
    /// already announced are all loaded all the same (into the cache, as ``loadAllPages(_:search:options:progress:)``
    /// always did), then the failure is thrown. A failure `body` throws stops everything at once:
    /// nothing more is started and the loads in flight are cancelled.
    /// - Parameters:
    ///   - type: the resource type, such as `Person.self`.
    ///   - search: text to search the collection's names (or titles) for.
    ///   - options: how the cache and the network may be used.
    ///   - progress: called as each page is loaded.
    ///   - body: called with each page, in order, one at a time.
    /// - Throws: ``LoadFailure`` for the first page that fails, or what `body` throws.
    public func forEachPage<Resource: SWAPIResource>(
        _ type: Resource.Type, search: String? = nil, options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil,
        _ body: (Loaded<SWAPIPage<Resource>>) async throws(LoadFailure) -> Void
    ) async throws(LoadFailure) {
        guard let (rest, counted) = try await handOverFirstPage(Resource.self, search: search, options: options,
                                                                progress: progress, body) else { return }
        var failure: LoadFailure?
        await loadInOrder(rest, options: options, progress: progress, counting: counted) { outcome in
            // After a failure, the pages still announced are loaded (and cached) but not handed over.
            guard failure == nil else { return true }
            switch outcome {
            case .failure(let error):
                failure = error
                return true
            case .success(let page):
                do throws(LoadFailure) {
                    try await body(page)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        }
        if let failure { throw failure }
    }

    /// Loads the first page of a collection (or search) and hands it to `body`, then lets it go.
    /// - Returns: the endpoints of the pages it announces after itself, with the progress counted
    ///   so far; nil when there are none.
    private func handOverFirstPage<Resource: SWAPIResource>(
        _ type: Resource.Type, search: String?, options: LoadOptions, progress: ProgressHandler?,
        _ body: (Loaded<SWAPIPage<Resource>>) async throws(LoadFailure) -> Void
    ) async throws(LoadFailure) -> (rest: [Endpoint<SWAPIPage<Resource>>], counted: LoadProgress)? {
        let endpoints: (ClosedRange<Int>) throws(ReaderError) -> [Endpoint<SWAPIPage<Resource>>] = { (pages) throws(ReaderError) in
            try pages.map { (page) throws(ReaderError) in try SWAPI.list(Resource.self, page: page, search: search) }
        }
        let first: Loaded<SWAPIPage<Resource>>
        do throws(LoadFailure) {
            let endpoint: Endpoint<SWAPIPage<Resource>>
            do { endpoint = try endpoints(1...1)[0] } catch { throw LoadFailure(error: error, decision: .alert) }
            first = try await load(endpoint, options: options)
        } catch {
            progress?(LoadProgress(completed: 1, total: 1))
            // Offline, a search never made is answered from the cached collection, all at once.
            guard let local = await cachedSearchAnswer(Resource.self, after: error, search: search, options: options,
                                                       page: 1, pageSize: nil) else { throw error }
            try await body(local)
            return nil
        }
        var counted = LoadProgress(completed: 1, total: 1)
        guard SWAPI.pageCount(of: first.value) > 1, let rest = try? endpoints(2...SWAPI.pageCount(of: first.value)) else {
            progress?(counted)
            try await body(first)
            return nil
        }
        counted.total += rest.count
        progress?(counted)
        let announced = first.value.count, read = (rest.count + 1) * first.value.results.count
        if announced > read {
            // The cap keeps a lying count from costing millions of requests; a true one is said.
            await notices.post(Notice(kind: .partial, code: ErrorCode(.request, 1005), message:
                "the collection says it holds \(announced); reader reads at most \(SWAPI.maximumPages) pages, so only the first \(read) were read"))
        }
        try await body(first)
        return (rest, counted)
    }

    /// The names of linked SWAPI resources (a film's characters, a person's homeworld…), loaded
    /// concurrently through the cache as background work: a link that cannot be loaded is left
    /// out of the answer rather than failing the whole view.
    /// - Parameters:
    ///   - links: resource URLs as SWAPI gives them.
    ///   - options: how the cache and the network may be used; the loads run as background work.
    ///   - progress: called as each link is loaded.
    /// - Returns: the name for each link that loaded, and the codes of those that did not.
    public func names(of links: [String], options: LoadOptions = LoadOptions(),
                      progress: ProgressHandler? = nil) async -> LinkedNames {
        var unique: [String] = []
        var seen = Set<String>()
        for link in links where seen.insert(link).inserted { unique.append(link) }
        var endpoints: [Endpoint<SWAPINamedResource>] = []
        var linksOfEndpoints: [String] = []
        var result = LinkedNames()
        for link in unique {
            if let endpoint = SWAPI.endpoint(forLink: link) {
                endpoints.append(endpoint)
                linksOfEndpoints.append(link)
            } else {
                result.failures[link] = ReaderError.invalidArgument("not a SWAPI resource link").code
            }
        }
        var background = options
        background.mode = .background
        // Only the name of each is kept, never its body.
        await loadConcurrently(endpoints, options: background, progress: progress,
                               counting: LoadProgress(completed: 0, total: endpoints.count)) { index, outcome in
            switch outcome {
            case .success(let resource): result.names[linksOfEndpoints[index]] = resource.value.displayName
            case .failure(let failure):
                result.failures[linksOfEndpoints[index]] = failure.error.code
                if failure.error.mayBeReadLater { result.readableLater.insert(linksOfEndpoints[index]) }
            }
        }
        return result
    }
}

/// The names of linked resources, by link, and the links that could not be named.
public struct LinkedNames: Sendable, Equatable {
    public var names: [String: String] = [:]
    public var failures: [String: ErrorCode] = [:]
    /// The links among ``failures`` that another run may name: the service could not be reached
    /// or failed for a while (``ReaderError/isWorthRetryingLater``), or nothing was cached for
    /// them offline. A not-found or a refusal is not among them: a sync would not fill it either.
    public var readableLater: Set<String> = []

    public init() {}
}

extension ReaderClient {
    /// A page of a SWAPI collection or search, as ``load(_:options:)`` loads it, except that an
    /// offline search that was never cached is answered from the cached collection (after
    /// `reader sync swapi`, every page is there), matching names and titles as SWAPI does:
    /// case-insensitively, anywhere in the text.
    /// - Throws: ``LoadFailure``: the search's own failure when the collection is not cached whole.
    public func loadList<Resource: SWAPIResource>(
        _ type: Resource.Type, page: Int? = nil, search: String? = nil, options: LoadOptions = LoadOptions()
    ) async throws(LoadFailure) -> Loaded<SWAPIPage<Resource>> {
        let endpoint: Endpoint<SWAPIPage<Resource>>
        do { endpoint = try SWAPI.list(Resource.self, page: page, search: search) }
        catch { throw LoadFailure(error: error, decision: .alert) }
        do {
            return try await load(endpoint, options: options)
        } catch let failure {
            guard let local = await cachedSearchAnswer(Resource.self, after: failure, search: search, options: options,
                                                       page: page ?? 1, pageSize: 10) else {
                throw await notingPageRange(of: failure, Resource.self, page: page ?? 1, search: search, options: options)
            }
            return local
        }
    }

    /// `failure` of a page past the end of its list, with how many pages the list has, read from
    /// its first page (through the cache): the hint can then name the last page.
    private func notingPageRange<Resource: SWAPIResource>(
        of failure: LoadFailure, _ type: Resource.Type, page: Int, search: String?, options: LoadOptions
    ) async -> LoadFailure {
        guard page > 1, failure.error.isPageMissing,
              let endpoint = try? SWAPI.list(Resource.self, page: nil, search: search),
              let first = try? await load(endpoint, options: options) else { return failure }
        let pages = SWAPI.pageCount(of: first.value)
        guard page > pages else { return failure }
        var noted = failure
        noted.context.pageRange = ErrorContext.PageRange(pages: pages, items: min(max(first.value.count, 0), OutsideNumbers.count.upperBound))
        return noted
    }

    /// The answer to an offline search that was never made online, from the cached collection;
    /// nil when `failure` is anything else, or when the collection is not cached whole.
    private func cachedSearchAnswer<Resource: SWAPIResource>(
        _ type: Resource.Type, after failure: LoadFailure, search: String?, options: LoadOptions, page: Int, pageSize: Int?
    ) async -> Loaded<SWAPIPage<Resource>>? {
        guard options.cacheMode == .offline, let search, case .cache(let cacheFailure) = failure.error,
              cacheFailure.reason == .notCached,
              let url = try? SWAPI.list(Resource.self, page: page, search: search).url(in: configuration.services) else { return nil }
        return try? await searchCachedCollection(Resource.self, for: search, page: page, pageSize: pageSize, url: url)
    }

    private func searchCachedCollection<Resource: SWAPIResource>(
        _ type: Resource.Type, for search: String, page: Int, pageSize: Int?, url: URL
    ) async throws(LoadFailure) -> Loaded<SWAPIPage<Resource>> {
        let needle = search.trimmingCharacters(in: .whitespaces).lowercased()
        var matches: [(value: Resource, raw: JSONValue)] = []
        var combined: LoadMetadata?
        // Page by page: only the matches are kept, never the collection.
        try await forEachPage(Resource.self, options: LoadOptions(cacheMode: .offline)) { loaded in
            combined = LoadMetadata.combining([combined, loaded.metadata].compactMap { $0 })
            let raw = (try? JSONValue(parsing: loaded.body))?["results"]?.arrayValue ?? []
            for (value, rawItem) in zip(loaded.value.results, raw) where value.displayName.lowercased().contains(needle) {
                matches.append((value, rawItem))
            }
        }
        let size = pageSize ?? max(1, matches.count)
        let shown = Array(matches.dropFirst((page - 1) * size).prefix(size))
        let hasNext = page * size < matches.count
        let body = JSONValue.object([
            "count": .integer(Int64(matches.count)), "next": hasNext ? .string("page=\(page + 1)") : .null,
            "previous": page > 1 ? .string("page=\(page - 1)") : .null, "results": .array(shown.map(\.raw)),
        ])
        guard var metadata = combined else {
            throw LoadFailure(error: .bug("no pages for a cached search"), decision: .alert)
        }
        metadata.url = url.absoluteString
        let value = SWAPIPage(count: matches.count, next: hasNext ? "page=\(page + 1)" : nil,
                              previous: page > 1 ? "page=\(page - 1)" : nil, results: shown.map(\.value))
        return Loaded(value: value, body: Data(body.serialized()), metadata: metadata)
    }
}

extension ReaderClient {
    /// Fills the cache with all of SWAPI: every page of every collection, then every resource on
    /// its own, so that every SWAPI command works with `--offline` afterwards. Fresh copies are
    /// not asked for again; stale ones are revalidated.
    ///
    /// It runs as background work: failures are counted into the report, never thrown. Progress
    /// comes in three phases, each with a total known when it starts, so that no total grows:
    /// `swapi, first pages` (one a collection, which tell how many pages there are),
    /// `swapi, more pages`, and `swapi, resources` (every resource the pages list).
    public func syncSWAPI(options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil) async -> SyncReport {
        var report = SyncReport()
        guard let mark = await storageMark(unlessUnstorable: &report) else { return report }
        var backgroundOptions = options
        backgroundOptions.mode = .background
        backgroundOptions.refreshesStoredFailures = true
        let background = backgroundOptions
        let collections = SWAPICollection.allCases

        let firstPages = await runConcurrently(collections.map { collection in
            { @Sendable in await self.syncPage(of: collection, page: 1, options: background) }
        }, phase: "swapi, first pages", progress: progress)
        var morePages: [(collection: SWAPICollection, page: Int)] = []
        var links: [String] = []
        for (collection, first) in zip(collections, firstPages) {
            report.count(first.outcome, subject: "\(collection.rawValue) page 1")
            if case .failed(let error) = first.outcome {
                report.markNotRead(collection.rawValue, because: error)
                continue
            }
            links += first.links
            if first.pageCount > 1 { morePages += (2...first.pageCount).map { (collection, $0) } }
        }

        let pages = await runConcurrently(morePages.map { item in
            { @Sendable in await self.syncPage(of: item.collection, page: item.page, options: background) }
        }, phase: "swapi, more pages", progress: progress)
        for (item, page) in zip(morePages, pages) {
            report.count(page.outcome, subject: "\(item.collection.rawValue) page \(item.page)")
            if case .failed = page.outcome { report.markPageFailed(of: item.collection.rawValue) } else { links += page.links }
        }

        var items: [Endpoint<SWAPINamedResource>] = []
        for link in links {
            if let endpoint = SWAPI.endpoint(forLink: link) { items.append(endpoint); continue }
            // A link that is no resource of this API (another host's, an id that is no number)
            // is not followed; it is counted, so that a sync that skipped it is not "complete".
            report.count(.failed(Self.unfollowable(link, as: "a SWAPI resource")), subject: TerminalText.sanitise(link, maxLength: 60))
        }
        // Each resource comes to its outcome as it arrives; its body is let go at once. They are
        // counted in the order of the links, as the failure groups name their first subjects.
        var outcomes = [SyncReport.Outcome?](repeating: nil, count: items.count)
        await loadConcurrently(items, options: background, progress: Self.phased(progress, "swapi, resources"),
                               counting: LoadProgress(completed: 0, total: items.count)) { index, outcome in
            outcomes[index] = SyncReport.Outcome(outcome)
        }
        for (endpoint, outcome) in zip(items, outcomes) {
            report.count(outcome ?? .failed(.bug("a resource of the sync was never loaded")),
                         subject: endpoint.path.split(separator: "/").joined(separator: "/"))
        }
        await checkStorage(of: &report, since: mark)
        return report
    }

    /// One page of a SWAPI collection as a sync reads it: what it came to, the resources it
    /// lists, and (for the first page) how many pages the collection has.
    private struct SyncedPage: Sendable {
        var outcome: SyncReport.Outcome
        var links: [String] = []
        var pageCount = 0
    }

    private func syncPage(of collection: SWAPICollection, page: Int, options: LoadOptions) async -> SyncedPage {
        switch collection {
        case .films: await syncPage(Film.self, page: page, options: options)
        case .people: await syncPage(Person.self, page: page, options: options)
        case .planets: await syncPage(Planet.self, page: page, options: options)
        case .species: await syncPage(Species.self, page: page, options: options)
        case .starships: await syncPage(Starship.self, page: page, options: options)
        case .vehicles: await syncPage(Vehicle.self, page: page, options: options)
        }
    }

    private func syncPage<Resource: SWAPIResource>(_ type: Resource.Type, page: Int, options: LoadOptions) async -> SyncedPage {
        let result: Result<Loaded<SWAPIPage<Resource>>, LoadFailure>
        do throws(LoadFailure) {
            let endpoint: Endpoint<SWAPIPage<Resource>>
            do { endpoint = try SWAPI.list(Resource.self, page: page) } catch { throw LoadFailure(error: error, decision: .alert) }
            result = .success(try await load(endpoint, options: options))
        } catch {
            result = .failure(error)
        }
        guard case .success(let loaded) = result else { return SyncedPage(outcome: SyncReport.Outcome(result)) }
        return SyncedPage(outcome: SyncReport.Outcome(result), links: loaded.value.results.map(\.url),
                          pageCount: page == 1 ? SWAPI.pageCount(of: loaded.value) : 0)
    }
}

extension ReaderError {
    /// Whether a linked resource that failed with this error may be read by another run (a sync).
    fileprivate var mayBeReadLater: Bool {
        if case .cache(let failure) = self, failure.reason == .notCached { return true }
        return isWorthRetryingLater
    }
}
