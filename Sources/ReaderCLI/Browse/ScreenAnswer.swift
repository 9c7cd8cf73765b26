import ReaderKit

/// What a screen's work answers with: what only the screen reads, and how its load went, which
/// the browser reads (offline, a banner, background failures counted).
public struct ScreenAnswer: Sendable {
    /// What the screen reads: a ``LoadResult`` for ``of(_:)`` and ``load(through:options:_:adjusting:)``,
    /// or anything the work gives.
    public var payload: any Sendable
    /// How the load went, for the browser; nil for work that loads nothing the browser reads.
    public var report: LoadReport?

    public init(_ payload: any Sendable, report: LoadReport? = nil) {
        self.payload = payload
        self.report = report
    }

    /// The answer of `load`: its value and metadata on success, else its failure as the CLI
    /// words it, with the report of either.
    public static func of<Value: Sendable>(_ load: () async throws(LoadFailure) -> Loaded<Value>) async -> ScreenAnswer {
        do throws(LoadFailure) {
            let loaded = try await load()
            return ScreenAnswer(LoadResult<Value>.loaded(loaded.value, loaded.metadata), report: .loaded(loaded.metadata, servedInsteadOf: loaded.servedInsteadOf))
        } catch {
            let failure = BrowseFailure(error)
            return ScreenAnswer(LoadResult<Value>.failed(failure), report: .failed(failure))
        }
    }

    /// The answer of a screen's load of one endpoint through `client`, as ``of(_:)`` gives it:
    /// the endpoint is built, loaded with the browser's `options`, and its value (adjusted, when
    /// the screen changes it first) answered as a ``LoadResult``.
    ///
    /// A load's work (``ScreenEffect/load(id:_:_:)``) is then one line:
    ///
    /// ```swift
    /// .load(id: "work", kind) { options in
    ///     await ScreenAnswer.load(through: client, options: options) { () throws(ReaderError) in
    ///         try OpenLibrary.work(id.description)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - client: the client to load through (``BrowseContext/client``); nil in a screen's
    ///     tests, where no work is run: the answer is then a failure (``ReaderError/bug(_:)``).
    ///   - options: the options the browser gave the load.
    ///   - endpoint: builds the endpoint. An error it throws (what the service refuses, such as
    ///     an id out of range) is the answer's failure, with its code and hint as any failed
    ///     load's, and nothing is sent.
    ///   - adjust: what the screen changes in the value before it gets it (the posts a filter
    ///     hides); by default nothing.
    public static func load<Value>(
        through client: ReaderClient?, options: LoadOptions, _ endpoint: () throws(ReaderError) -> Endpoint<Value>,
        adjusting adjust: (inout Value) -> Void = { _ in }
    ) async -> ScreenAnswer {
        await of { () throws(LoadFailure) in
            let built: Endpoint<Value>
            do throws(ReaderError) { built = try endpoint() } catch {
                throw LoadFailure(error: error, decision: .alert)
            }
            guard let client else { throw LoadFailure(error: .bug("no client"), decision: .alert) }
            var loaded = try await client.load(built, options: options)
            adjust(&loaded.value)
            return loaded
        }
    }
}
