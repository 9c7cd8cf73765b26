import ReaderKit

/// What a screen's work answers with: what only the screen reads, and how its load went, which
/// the browser reads (offline, a banner, background failures counted).
public struct ScreenAnswer: Sendable {
    /// What the screen reads: a ``LoadResult`` for ``of(_:)``, or anything the work gives.
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
}
