import ReaderKit

/// What a service's screens load with.
public struct BrowseContext: Sendable {
    /// The client the screens load through (the cache, `--offline` and the settings apply:
    /// the ``Browser`` gives each load its options).
    public var client: ReaderClient

    public init(client: ReaderClient) {
        self.client = client
    }
}
