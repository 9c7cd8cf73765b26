import ReaderKit

/// The payload of ``ScreenAnswer/of(_:)`` and ``ScreenAnswer/load(through:options:_:adjusting:)``: the
/// value loaded with its metadata, or the failure.
public enum LoadResult<Value: Sendable>: Sendable {
    /// The value, and where it came from.
    case loaded(Value, LoadMetadata)
    /// The load failed: the banner when the screen has nothing else to show.
    case failed(BrowseFailure)
}
