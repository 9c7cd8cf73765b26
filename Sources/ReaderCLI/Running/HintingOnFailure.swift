import ReaderKit

/// A command that knows what its request was better than ReaderKit can: the hint shown for its
/// failure is its own, where ReaderKit's would not hold (``Reader/run(_:)`` asks it).
protocol HintingOnFailure {
    /// What can be done next about `failure`: its hints, with what no longer holds for this
    /// command line replaced.
    func hints(for failure: LoadFailure) -> [Hint]
}
