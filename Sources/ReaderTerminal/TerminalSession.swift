#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal, borrowed: raw mode, the alternate screen, the cursor hidden and automatic wrap
/// off, until ``restore()`` gives it back exactly as it was (its attributes as `tcgetattr` read
/// them, the main screen, the cursor shown, wrap on).
///
/// Given back on every way out: ``restore()``, `exit()` from anywhere, an ending signal
/// (SIGINT, SIGTERM, SIGHUP, SIGQUIT: the process then ends by that signal), or a fault such as
/// a Swift trap (``TerminalRestorer``). One session at a time.
public final class TerminalSession: @unchecked Sendable {
    /// The descriptor keys are read from, and whose attributes are changed.
    public let input: Int32
    /// The descriptor the screen is written to.
    public let output: Int32
    /// The attributes found, restored exactly at the end.
    public let originalAttributes: termios
    /// The read end of the pipe that wakes the input reader: a byte `w` for a changed window
    /// size (SIGWINCH), `s` to stop.
    let wakeInput: Int32
    let wakeOutput: Int32
    /// Which borrowing this is, to ``TerminalRestorer``.
    private var armed = 0

    /// Borrows the terminal on `input` and `output`.
    /// - Throws: ``TerminalUnavailable`` when either is not a terminal, `TERM` is `dumb`, or the
    ///   attributes cannot be set; nothing has been changed then.
    public init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO,
                environment: [String: String]) throws(TerminalUnavailable) {
        guard isatty(input) == 1 else { throw .inputIsNotATerminal }
        guard isatty(output) == 1 else { throw .outputIsNotATerminal }
        guard environment["TERM"] != "dumb" else { throw .dumbTerminal }
        var attributes = termios()
        guard tcgetattr(input, &attributes) == 0 else { throw .attributes(errno: errno) }
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw .attributes(errno: errno) }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.input = input
        self.output = output
        originalAttributes = attributes
        wakeInput = pipeEnds[0]
        wakeOutput = pipeEnds[1]

        var raw = attributes
        cfmakeraw(&raw)
        // One byte is enough for read() to return; no timer (the input reader polls).
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
        }
        armed = TerminalRestorer.arm(attributes: attributes, raw: raw, input: input, output: output, wake: wakeOutput)
        guard tcsetattr(input, TCSANOW, &raw) == 0 else {
            let failure = errno
            TerminalRestorer.disarm(armed)
            // The pipe's ends are closed by deinit, which runs for a failed initializer of a whole object.
            throw .attributes(errno: failure)
        }
        // The alternate screen, the cursor hidden, automatic wrap off: a character measured
        // narrower than the terminal draws it can never scroll the screen.
        TerminalRestorer.enterSequence.withUnsafeBytes { writeWhole($0, to: output) }
    }

    /// Stops the process as `Ctrl-z` does in a shell: the terminal is given back first, and once
    /// the process is continued it is borrowed again and the reader asks for the whole screen
    /// (``TerminalEvent/redraw``). The signal goes to the process, not this thread, which may
    /// block it (a thread of Swift's pool).
    public func suspend() {
        kill(getpid(), SIGTSTP)
    }

    deinit {
        restore()
        close(wakeInput)
        close(wakeOutput)
    }

    /// The terminal's size now, or 80×24 when it does not say.
    public var size: TerminalSize {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return TerminalSize(columns: 80, rows: 24)
        }
        return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
    }

    /// Writes `text` to the terminal, whole (a write cut short by a signal goes on).
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { writeWhole(UnsafeRawBufferPointer($0), to: output) }
    }

    /// Gives the terminal back: the main screen, the cursor, wrap, and the original attributes;
    /// the signals' previous actions. Once; later calls do nothing.
    public func restore() {
        TerminalRestorer.disarm(armed)
    }
}
