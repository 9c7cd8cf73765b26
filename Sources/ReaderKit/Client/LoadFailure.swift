import Foundation

/// A load that failed: the classified error, what the ErrorHandler decided about it, and the
/// situation it was decided in.
public struct LoadFailure: Error, Sendable {
    public var error: ReaderError
    public var decision: Decision
    /// What the client knew about the request (its cached copy, the credential it carried, the
    /// pages a list has), so that the hint shown is one that holds.
    public var context: ErrorContext

    public init(error: ReaderError, decision: Decision, context: ErrorContext = ErrorContext()) {
        self.error = error
        self.decision = decision
        self.context = context
    }

    /// What can be done next, in this situation (``ReaderError/hints(in:)``).
    public var hints: [Hint] { error.hints(in: context) }
}
