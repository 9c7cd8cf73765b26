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

    /// What can be done next, in this situation, in ReaderKit's words (``ReaderError/suggestion(in:)``).
    public var suggestion: String { error.suggestion(in: context) }

    /// What can be done next, in this situation, as values a front end words its own way
    /// (``ReaderError/advice(in:)``).
    public var advice: [Advice] { error.advice(in: context) }
}
