/// The payload of the answer of a background load dropped before it started (``ScreenEffect/dropQueued(id:)``).
public struct NotStarted: Sendable {
    public init() {}
}
