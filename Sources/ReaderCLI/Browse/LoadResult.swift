import ReaderKit

/// The payload of ``ScreenAnswer/of(_:)``.
enum LoadResult<Value: Sendable>: Sendable {
    case loaded(Value, LoadMetadata)
    case failed(BrowseFailure)
}
