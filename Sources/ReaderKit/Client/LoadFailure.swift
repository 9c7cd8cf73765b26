import Foundation

/// A load that failed: the classified error and what the ErrorHandler decided about it.
public struct LoadFailure: Error, Sendable {
    public var error: ReaderError
    public var decision: Decision
    /// What the client knew about the request (its cached copy, the app identity), so that the
    /// hint shown is one that holds.
    public var facts: FailureFacts

    public init(error: ReaderError, decision: Decision, facts: FailureFacts = FailureFacts()) {
        self.error = error
        self.decision = decision
        self.facts = facts
    }

    /// What can be done next, in this situation, in ReaderKit's words (``ReaderError/suggestion(given:)``).
    public var suggestion: String { error.suggestion(given: facts) }

    /// What can be done next, in this situation, as values a front end words its own way
    /// (``ReaderError/advice(given:)``).
    public var advice: [Advice] { error.advice(given: facts) }
}
