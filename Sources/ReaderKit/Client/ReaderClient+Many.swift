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
            // One copy's judgement says nothing of several pages.
            if combined.servedAs != part.servedAs { combined.servedAs = nil }
            combined.httpCache = nil
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
        var results = [Result<Loaded<Value>, LoadFailure>?](repeating: nil, count: endpoints.count)
        await loadConcurrently(endpoints, options: options, progress: progress, counting: base) { index, result in results[index] = result }
        return results.map { $0! }
    }

    /// Loads `endpoints` as ``loadConcurrently(_:options:progress:)`` does, handing each result to
    /// `body` as it finishes (in the order they finish, with its index) and keeping none: work of
    /// many requests that needs only a little of each (a sync counts outcomes) holds no body.
    func loadConcurrently<Value>(_ endpoints: [Endpoint<Value>], options: LoadOptions, progress: ProgressHandler?,
                                 counting base: LoadProgress,
                                 each body: (_ index: Int, _ result: Result<Loaded<Value>, LoadFailure>) -> Void) async {
        let width = configuration.maximumConcurrentRequests
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
                body(index, result)
                done += 1
                progress?(LoadProgress(completed: base.completed + done, total: base.total))
                if next < endpoints.count { start() }
            }
        }
    }

    /// Loads `endpoints` concurrently and hands each result to `body` in the order given, one at
    /// a time, through a sliding window (``OrderedWindow``): at most
    /// ``Configuration/maximumConcurrentRequests`` are started and not yet handed over, so that
    /// endpoint `k + width` starts only once endpoint `k`'s result has been handed over. Loads in
    /// flight and finished ones waiting for their turn are never more than the window, whatever
    /// the number of endpoints: memory holds a few bodies, not all of them. Progress counts loads
    /// as they finish, on top of `base`.
    /// - Parameter body: returns false to stop: nothing more is started, and the loads in flight
    ///   are cancelled and their results dropped.
    func loadInOrder<Value>(_ endpoints: [Endpoint<Value>], options: LoadOptions, progress: ProgressHandler?,
                            counting base: LoadProgress,
                            _ body: (Result<Loaded<Value>, LoadFailure>) async -> Bool) async {
        var window = OrderedWindow<Result<Loaded<Value>, LoadFailure>>(count: endpoints.count, width: configuration.maximumConcurrentRequests)
        await withTaskGroup(of: (Int, Result<Loaded<Value>, LoadFailure>).self) { group in
            func startWhatFits() {
                while let index = window.nextToStart() {
                    let endpoint = endpoints[index]
                    group.addTask {
                        do throws(LoadFailure) { return (index, .success(try await self.load(endpoint, options: options))) }
                        catch { return (index, .failure(error)) }
                    }
                }
            }
            startWhatFits()
            var done = 0
            for await (index, result) in group {
                done += 1
                progress?(LoadProgress(completed: base.completed + done, total: base.total))
                window.finish(index, with: result)
                while let ready = window.nextToHandOver() {
                    guard await body(ready) else {
                        group.cancelAll()
                        return
                    }
                    startWhatFits()
                }
            }
        }
    }
}
