/// What the terminal tells a program: a key, or a new size.
public enum TerminalEvent: Hashable, Sendable {
    case key(Key)
    /// The window changed size (SIGWINCH); the size is the one read then.
    case resize(TerminalSize)
    /// The screen must be drawn again whole: the terminal was given back and borrowed again
    /// (the process was stopped and continued), and what was on it is gone.
    case redraw
    /// The input ended (the terminal went away): nothing more will come.
    case inputClosed
}
