/// A full-screen program's state, in the Elm architecture (as Bubble Tea has it): the state
/// changes only in ``update(_:)``, from an event, and asks for work by returning ``Effect``s,
/// which ``ProgramRunner`` runs and answers with events; ``view(size:)`` draws the state.
///
/// So a screen is tested without a terminal: feed it events, compare its state, its effects,
/// and its view's text.
///
/// `update` is `mutating` rather than returning a new state: it is the same pure function of the
/// state and the event (a value type's `mutating` method is one), and a long list is not
/// copied on every key.
public protocol Model: SendableMetatype {
    /// What the program's own work answers with (a page loaded, a failure).
    associatedtype Message: Sendable

    /// The work to start with, before any event (a first load); the state may note what it started.
    mutating func start() -> [Effect<Message>]

    /// The next state, from this one and `event`, and the work it asks for.
    mutating func update(_ event: ProgramEvent<Message>) -> [Effect<Message>]

    /// The screen for this state at `size`: a pure function of the two.
    func view(size: TerminalSize) -> Grid
}

extension Model {
    public mutating func start() -> [Effect<Message>] { [] }
}
