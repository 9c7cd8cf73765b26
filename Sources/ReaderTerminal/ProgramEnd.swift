/// How a program ended: what the command does after giving the terminal back.
public enum ProgramEnd: Hashable, Sendable {
    /// The program quit (`q`).
    case finished
    /// The user interrupted it (Ctrl-c, a byte in raw mode rather than a signal): the command
    /// ends as SIGINT would have ended it.
    case interrupted
    /// The terminal's input ended (it was closed).
    case inputClosed
}
