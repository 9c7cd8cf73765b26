import Foundation

extension ReaderClient {
    /// Up to `pages` pages of a Reddit listing, following `after` from one page to the next and
    /// stopping early at the last page. Reddit's cursors make this sequential.
    ///
    /// A listing that repeats itself (a cursor that comes back, or a page of posts all shown
    /// already) ends the paging there, with a notice (`R1006`): its pages are not read again, and
    /// the last page read has no ``RedditListing/after``, as nothing new lies after it.
    ///
    /// Each post is returned once, on the first page that brings it: Reddit's listings shift while
    /// they are read, so a page may repeat posts of the one before it (or list one twice).
    /// - Parameters:
    ///   - pages: the most pages to load.
    ///   - options: how the cache and the network may be used, for every page.
    ///   - progress: called as each page is loaded.
    ///   - makeEndpoint: the listing's endpoint starting after a fullname (nil: the first page).
    ///   - start: the fullname the first page starts after; nil for the listing's start.
    /// - Throws: ``LoadFailure`` for the first page that fails.
    public func loadPages(_ pages: Int, options: LoadOptions = LoadOptions(), progress: ProgressHandler? = nil,
                          of makeEndpoint: (String?) throws(ReaderError) -> Endpoint<RedditListing>,
                          startingAfter start: String? = nil) async throws(LoadFailure) -> [Loaded<RedditListing>] {
        var loaded: [Loaded<RedditListing>] = []
        var after = start
        var cursorsFollowed: Set<String> = start.map { [$0] } ?? []
        var postsShown: Set<String> = []
        for page in 1...max(1, pages) {
            let endpoint: Endpoint<RedditListing>
            do { endpoint = try makeEndpoint(after) } catch { throw LoadFailure(error: error, decision: .alert) }
            let listing = try await load(endpoint, options: options)
            let names = listing.value.posts.map(\.name)
            if page > 1, !names.isEmpty, names.allSatisfy(postsShown.contains) {
                loaded[loaded.count - 1].value.after = nil
                await noticeRepeatedListing(after: after, stoppedAfter: page - 1, of: pages)
                break
            }
            var fresh = listing
            fresh.value.children.removeAll { thing in
                guard case .post(let post) = thing else { return false }
                return !postsShown.insert(post.name).inserted
            }
            loaded.append(fresh)
            progress?(LoadProgress(completed: page, total: pages))
            guard page < pages, let next = listing.value.after, Reddit.isFullname(next), !listing.value.children.isEmpty else { break }
            guard cursorsFollowed.insert(next).inserted else {
                loaded[loaded.count - 1].value.after = nil
                await noticeRepeatedListing(after: next, stoppedAfter: page, of: pages)
                break
            }
            after = next
        }
        return loaded
    }

    /// Says that a listing repeated itself after `cursor`, so that paging stopped early.
    private func noticeRepeatedListing(after cursor: String?, stoppedAfter page: Int, of pages: Int) async {
        let shown = cursor.map { " after \(TerminalText.sanitise($0, maxLength: 40))" } ?? ""
        await notices.post(Notice(kind: .partial, code: ErrorCode(.request, 1006), message:
            "the listing repeated itself\(shown): reading stopped after page \(page) of \(pages)"))
    }

    /// Fills the cache with the given subreddits' listings (as `reader posts SUBREDDIT` reads
    /// them) and each listed post's comments (as `reader comments ID` reads them).
    ///
    /// Progress comes in two phases, each with its total known when it starts:
    /// `reddit, listings` and `reddit, comments` (every post the listings hold).
    /// - Throws: ``ReaderError/invalidArgument(_:)`` for a name Reddit cannot have, before any request.
    public func syncReddit(subreddits: [String], options: LoadOptions = LoadOptions(),
                           progress: ProgressHandler? = nil) async throws(ReaderError) -> SyncReport {
        let names = try subreddits.map { (name) throws(ReaderError) in try Reddit.validatedSubreddit(name) }
        let listings = try names.map { (name) throws(ReaderError) in try Reddit.posts(subreddit: name) }
        var report = SyncReport()
        guard let mark = await storageMark(unlessUnstorable: &report) else { return report }
        var background = options
        background.mode = .background
        background.refreshesStoredFailures = true
        var threads: [Endpoint<RedditCommentPage>] = []
        progress?(LoadProgress(completed: 0, total: listings.count, phase: "reddit, listings"))
        for (index, (name, listing)) in zip(names, listings).enumerated() {
            let outcome: Result<Loaded<RedditListing>, LoadFailure>
            do throws(LoadFailure) { outcome = .success(try await load(listing, options: background)) } catch { outcome = .failure(error) }
            report.count(outcome, subject: "r/\(name)")
            progress?(LoadProgress(completed: index + 1, total: listings.count, phase: "reddit, listings"))
            switch outcome {
            case .failure(let failure): report.markNotRead("r/\(name)", because: failure.error)
            case .success(let page):
                for post in page.value.posts {
                    if let thread = try? Reddit.comments(post: post.id) { threads.append(thread); continue }
                    report.count(.failed(Self.unfollowable(post.id, as: "a post id")), subject: TerminalText.sanitise(post.id, maxLength: 60))
                }
            }
        }
        // Each thread comes to its outcome as it arrives, its body let go at once; counted in order.
        var outcomes = [SyncReport.Outcome?](repeating: nil, count: threads.count)
        await loadConcurrently(threads, options: background, progress: Self.phased(progress, "reddit, comments"),
                               counting: LoadProgress(completed: 0, total: threads.count)) { index, outcome in
            outcomes[index] = SyncReport.Outcome(outcome)
        }
        for (endpoint, outcome) in zip(threads, outcomes) {
            report.count(outcome ?? .failed(.bug("a thread of the sync was never loaded")), subject: RedditAnswer.subject(ofURL: endpoint.path))
        }
        await checkStorage(of: &report, since: mark)
        return report
    }
}
