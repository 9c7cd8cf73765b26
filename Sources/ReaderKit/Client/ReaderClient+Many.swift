import Foundation

/// How far work of many requests has got, for a progress display.
public struct LoadProgress: Sendable, Equatable {
    /// Requests finished, whatever their outcome.
    public var completed: Int
    /// Requests known so far; it may grow as pages reveal more.
    public var total: Int
    /// For work done in phases, each with a total known when it starts (a sync): the service
    /// and the phase, such as `swapi, resources`. Nil for work of one phase.
    public var phase: String?

    public init(completed: Int, total: Int, phase: String? = nil) {
        self.completed = completed
        self.total = total
        self.phase = phase
    }
}

/// Called as work of many requests advances; it may be called from any task.
public typealias ProgressHandler = @Sendable (LoadProgress) -> Void

extension LoadMetadata {
    /// One metadata for data loaded in several requests: from the network only when every part
    /// was, stale when any part is, as old as the oldest part, with the first error code.
    public static func combining(_ parts: [LoadMetadata]) -> LoadMetadata? {
        guard var combined = parts.first else { return nil }
        for part in parts.dropFirst() {
            if part.source == .cache || (part.source == .revalidated && combined.source == .network) { combined.source = part.source }
            combined.stale = combined.stale || part.stale
            combined.fetchedAt = min(combined.fetchedAt, part.fetchedAt)
            combined.ageSeconds = max(combined.ageSeconds, part.ageSeconds)
            combined.errorCode = combined.errorCode ?? part.errorCode
        }
        return combined
    }
}

extension ReaderClient {
    /// Loads `endpoints` with at most ``Configuration/maximumConcurrentRequests`` in flight,
    /// each through the cache like ``load(_:options:)``.
    /// - Returns: one result per endpoint, in the order given.
    public func loadConcurrently<Value>(_ endpoints: [Endpoint<Value>], options: LoadOptions = LoadOptions(),
                                        progress: ProgressHandler? = nil) async -> [Result<Loaded<Value>, LoadFailure>] {
        await loadConcurrently(endpoints, options: options, progress: progress, counting: LoadProgress(completed: 0, total: endpoints.count))
    }

    /// As ``loadConcurrently(_:options:progress:)``, reporting progress on top of `base`, so that
    /// several batches count up as one piece of work.
    func loadConcurrently<Value>(_ endpoints: [Endpoint<Value>], options: LoadOptions, progress: ProgressHandler?,
                                 counting base: LoadProgress) async -> [Result<Loaded<Value>, LoadFailure>] {
        let width = configuration.maximumConcurrentRequests
        var results = [Result<Loaded<Value>, LoadFailure>?](repeating: nil, count: endpoints.count)
        await withTaskGroup(of: (Int, Result<Loaded<Value>, LoadFailure>).self) { group in
            var next = 0
            func start() {
                let index = next
                let endpoint = endpoints[index]
                next += 1
                group.addTask {
                    do throws(LoadFailure) { return (index, .success(try await self.load(endpoint, options: options))) }
                    catch { return (index, .failure(error)) }
                }
            }
            while next < min(width, endpoints.count) { start() }
            var done = 0
            for await (index, result) in group {
                results[index] = result
                done += 1
                progress?(LoadProgress(completed: base.completed + done, total: base.total))
                if next < endpoints.count { start() }
            }
        }
        return results.map { $0! }
    }

    /// Every page of a SWAPI collection (or of a search in it). The first page says how many
    /// there are; the rest are loaded concurrently. The `next` links are never followed as they
    /// are: only their page number is, against the configured base, so an answer cannot send
    /// reader to another host.
    /// - Throws: ``LoadFailure`` for the first page that fails.
    public func loadAllPages<Resource: SWAPIResource>(
        _ type: Resource.Type, search: String? = nil, options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil
    ) async throws(LoadFailure) -> [Loaded<SWAPIPage<Resource>>] {
        let outcomes = await loadEveryPage(Resource.self, search: search, options: options, progress: progress,
                                           counting: LoadProgress(completed: 0, total: 1))
        // Offline, a search never made is answered from the cached collection, all at once.
        if case .failure(let failure)? = outcomes.first,
           let local = await cachedSearchAnswer(Resource.self, after: failure, search: search, options: options, page: 1, pageSize: nil) {
            return [local]
        }
        var pages: [Loaded<SWAPIPage<Resource>>] = []
        for outcome in outcomes { pages.append(try outcome.get()) }
        return pages
    }

    /// Every page of a collection (or search), each with its own outcome: the first page, then,
    /// when it loaded, the others it announces, loaded concurrently. Progress counts on top of
    /// `base`, which includes the first page.
    func loadEveryPage<Resource: SWAPIResource>(
        _ type: Resource.Type, search: String?, options: LoadOptions, progress: ProgressHandler?, counting base: LoadProgress
    ) async -> [Result<Loaded<SWAPIPage<Resource>>, LoadFailure>] {
        let endpoints: (ClosedRange<Int>) throws(ReaderError) -> [Endpoint<SWAPIPage<Resource>>] = { (pages) throws(ReaderError) in
            try pages.map { (page) throws(ReaderError) in try SWAPI.list(Resource.self, page: page, search: search) }
        }
        let first: Result<Loaded<SWAPIPage<Resource>>, LoadFailure>
        do throws(LoadFailure) {
            let endpoint: Endpoint<SWAPIPage<Resource>>
            do { endpoint = try endpoints(1...1)[0] } catch { throw LoadFailure(error: error, decision: .alert) }
            first = .success(try await load(endpoint, options: options))
        } catch {
            first = .failure(error)
        }
        var counted = LoadProgress(completed: base.completed + 1, total: base.total)
        guard case .success(let firstPage) = first, SWAPI.pageCount(of: firstPage.value) > 1,
              let rest = try? endpoints(2...SWAPI.pageCount(of: firstPage.value)) else {
            progress?(counted)
            return [first]
        }
        counted.total += rest.count
        progress?(counted)
        let announced = firstPage.value.count, read = (rest.count + 1) * firstPage.value.results.count
        if announced > read {
            // The cap keeps a lying count from costing millions of requests; a true one is said.
            await notices.post(Notice(kind: .partial, code: ErrorCode(.request, 1005), message:
                "the collection says it holds \(announced); reader reads at most \(SWAPI.maximumPages) pages, so only the first \(read) were read"))
        }
        return [first] + (await loadConcurrently(rest, options: options, progress: progress, counting: counted))
    }

    /// Up to `pages` pages of a Reddit listing, following `after` from one page to the next and
    /// stopping early at the last page. Reddit's cursors make this sequential.
    /// - Parameter makeEndpoint: the listing's endpoint starting after a fullname (nil: the first page).
    /// - Throws: ``LoadFailure`` for the first page that fails.
    public func loadPages(_ pages: Int, options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil,
                          of makeEndpoint: (String?) throws(ReaderError) -> Endpoint<RedditListing>,
                          startingAfter start: String? = nil) async throws(LoadFailure) -> [Loaded<RedditListing>] {
        var loaded: [Loaded<RedditListing>] = []
        var after = start
        for page in 1...max(1, pages) {
            let endpoint: Endpoint<RedditListing>
            do { endpoint = try makeEndpoint(after) } catch { throw LoadFailure(error: error, decision: .alert) }
            let listing = try await load(endpoint, options: options)
            loaded.append(listing)
            progress?(LoadProgress(completed: page, total: pages))
            guard let next = listing.value.after, Reddit.isFullname(next), !listing.value.children.isEmpty else { break }
            after = next
        }
        return loaded
    }

    /// The names of linked SWAPI resources (a film's characters, a person's homeworld…), loaded
    /// concurrently through the cache as background work: a link that cannot be loaded is left
    /// out of the answer rather than failing the whole view.
    /// - Parameter links: resource URLs as SWAPI gives them.
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
        let loaded = await loadConcurrently(endpoints, options: background, progress: progress)
        for (link, outcome) in zip(linksOfEndpoints, loaded) {
            switch outcome {
            case .success(let resource): result.names[link] = resource.value.displayName
            case .failure(let failure): result.failures[link] = failure.error.code
            }
        }
        return result
    }
}

/// The names of linked resources, by link, and the links that could not be named.
public struct LinkedNames: Sendable, Equatable {
    public var names: [String: String] = [:]
    public var failures: [String: ErrorCode] = [:]

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
        noted.facts.pageRange = FailureFacts.PageRange(pages: pages, items: min(max(first.value.count, 0), OutsideNumbers.count.upperBound))
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
        let pages = try await loadAllPages(Resource.self, options: LoadOptions(cacheMode: .offline))
        let needle = search.trimmingCharacters(in: .whitespaces).lowercased()
        var matches: [(value: Resource, raw: JSONValue)] = []
        for loaded in pages {
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
        guard var metadata = LoadMetadata.combining(pages.map(\.metadata)) else {
            throw LoadFailure(error: .bug("no pages for a cached search"), decision: .alert)
        }
        metadata.url = url.absoluteString
        let value = SWAPIPage(count: matches.count, next: hasNext ? "page=\(page + 1)" : nil,
                              previous: page > 1 ? "page=\(page - 1)" : nil, results: shown.map(\.value))
        return Loaded(value: value, body: Data(body.serialized()), metadata: metadata)
    }
}
