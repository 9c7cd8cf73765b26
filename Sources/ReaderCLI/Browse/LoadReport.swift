import ReaderKit

/// How a load went, for the browser.
public enum LoadReport: Sendable {
    /// Loaded: its metadata, and the error a stale copy was served in place of, if one was
    /// (``Loaded/servedInsteadOf``, whose code is the metadata's `errorCode`).
    case loaded(LoadMetadata, servedInsteadOf: ReaderError? = nil)
    /// Failed: what the screen shows of it.
    case failed(BrowseFailure)
}
