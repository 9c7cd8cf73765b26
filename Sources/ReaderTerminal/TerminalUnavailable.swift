/// Why the terminal could not be borrowed: a full-screen program needs one on both sides.
public enum TerminalUnavailable: Error, Hashable, Sendable {
    /// The input is not a terminal (a pipe, a file, /dev/null).
    case inputIsNotATerminal
    /// The output is not a terminal (a pipe, a file).
    case outputIsNotATerminal
    /// `TERM` is `dumb`: the terminal says it cannot place the cursor.
    case dumbTerminal
    /// The terminal's attributes could not be read or set (`errno`).
    case attributes(errno: Int32)
}
