/// What the ``ErrorHandler`` decided about a failed attempt of a load, with what must be told
/// about it (``ErrorHandler/verdict(on:in:)``): the client carries it out as it is, and derives
/// no policy of its own.
public struct Verdict: Sendable, Equatable {
    /// Something to tell besides the decision itself.
    public enum Announcement: Sendable, Equatable {
        /// The retry waits for the service to become reachable (``ErrorContext/waitsForConnectivity``):
        /// told on the first wait of a load, while the waiting goes on.
        case waitingForConnectivity
        /// A cached copy would have been served in place of the error, but it is older than the
        /// staleness limit allows (``ErrorContext/cachedCopyIsServable`` is false): it was not shown.
        case copyTooOldToServe
    }

    /// What to do.
    public var decision: Decision
    /// What to tell, if anything.
    public var announcement: Announcement?

    public init(decision: Decision, announcement: Announcement? = nil) {
        self.decision = decision
        self.announcement = announcement
    }
}
