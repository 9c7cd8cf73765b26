import Foundation

/// What a ``Model`` is updated with.
public enum ProgramEvent<Message: Sendable>: Sendable {
    /// A key pressed.
    case key(Key)
    /// The terminal's new size (the view is drawn at it next).
    case resize(TerminalSize)
    /// Time passed: the runner's regular tick, with the time now (ages on screen grow old).
    case tick(Date)
    /// The answer of an ``Effect``.
    case message(Message)
}
