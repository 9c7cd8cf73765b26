import ReaderKit
import ReaderTerminal

/// What reaches a screen.
public enum ScreenEvent: Sendable {
    /// A key the browser does not own.
    case key(Key)
    /// The answer to one of the screen's ``ScreenEffect/load(id:_:_:)`` or ``ScreenEffect/run(id:_:)``.
    case answer(id: String, ScreenAnswer)
    /// `r`, or the network coming back: load what is shown again, as a conditional request.
    case refresh
    /// The text typed after `/`, at each key; empty when the filter is cleared.
    case filter(String)
    /// The terminal's size changed (the layout carries the new one).
    case resized
    /// The screen is on top again, a screen over it having been closed: what it started in the
    /// background was cancelled when it was covered.
    case appeared
    /// Time passed (the layout carries the time).
    case tick
}
