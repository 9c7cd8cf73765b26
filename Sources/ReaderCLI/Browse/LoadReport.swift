import ReaderKit

/// How a load went, for the browser.
enum LoadReport: Sendable {
    case loaded(LoadMetadata)
    case failed(BrowseFailure)
}
