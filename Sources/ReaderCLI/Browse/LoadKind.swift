import ReaderKit

/// How a load may use the cache and the network.
public enum LoadKind: Sendable, Equatable {
    /// From the cache at once, whatever its age; then, when the copy is stale or missing (or
    /// always, under `--refresh`), from the network (a conditional request), whose answer comes
    /// as a second one. Under `--offline`, the cache only.
    case cacheFirst
    /// As a command loads (`--refresh` asks the network even for a fresh copy): a fresh
    /// copy, else the network, else a stale copy.
    case current
    /// From the network even when the copy is fresh, a conditional request (`r`).
    case refresh
    /// Prefetching: the ErrorHandler's background mode, never the last tenth of an announced
    /// rate limit, at most four at once; failures are counted for the
    /// help screen, never shown; cancelled when the screen is covered or closed.
    case background
}
