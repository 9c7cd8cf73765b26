#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// What gives the terminal back however the process ends, kept where a signal handler can reach
/// it: the original attributes and the bytes that leave the alternate screen, set before any
/// handler is installed, and read by the handlers with async-signal-safe calls only (`write`,
/// `tcsetattr`, `sigaction`, `raise`).
///
/// - Ending signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT): the terminal is restored, the signal's
///   previous action put back, and the signal raised again, so that the process ends by it as
///   it would have (a shell shows 130, 143, 129), and a shell script around it stops as it should.
/// - Faults (a Swift trap is SIGILL or SIGTRAP; SIGSEGV, SIGBUS, SIGFPE, SIGABRT): the terminal is
///   restored and the previous action (the runtime's backtracer) put back before the fault
///   happens again, so that its report lands on the main screen.
/// - `exit()` from anywhere: an `atexit` handler.
/// - SIGWINCH writes one byte to the wake pipe the input reader polls.
enum TerminalRestorer {
    static let endingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
    static let faultSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// The bytes that leave what ``TerminalSession`` entered: the default style, automatic wrap
    /// on, the cursor shown, the main screen.
    static let leaveSequence: [UInt8] = Array("\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l".utf8)

    // The handlers' state: raw storage, allocated once, before a handler can run.
    nonisolated(unsafe) private static let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) private static let previousActions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) private static var inputDescriptor: Int32 = -1
    nonisolated(unsafe) private static var outputDescriptor: Int32 = -1
    nonisolated(unsafe) private static var wakeDescriptor: Int32 = -1
    private static let borrowed = Atomic<Bool>(false)
    private static let exitHandlerRegistered = Atomic<Bool>(false)
    nonisolated(unsafe) private static var installedSignals: [Int32] = []

    /// Which borrowing is armed: a session given back late (its deinit) never disarms a later one.
    nonisolated(unsafe) private static var generation = 0

    /// Remembers `attributes` as the ones to restore on `input`, and the screen on `output`, and
    /// installs the handlers. Called once the terminal is entered; what was armed before is disarmed.
    /// - Parameter wake: the write end of the pipe a SIGWINCH is signalled on.
    /// - Returns: the number to disarm it with.
    static func arm(attributes: termios, input: Int32, output: Int32, wake: Int32) -> Int {
        disarm(generation)
        generation += 1
        saved.pointee = attributes
        inputDescriptor = input
        outputDescriptor = output
        wakeDescriptor = wake
        _ = leaveSequence.count
        borrowed.store(true, ordering: .sequentiallyConsistent)
        if !exitHandlerRegistered.exchange(true, ordering: .sequentiallyConsistent) {
            atexit { TerminalRestorer.giveBack(drain: true) }
        }
        installedSignals = []
        for signal in endingSignals + faultSignals + [SIGWINCH] {
            var previous = sigaction()
            guard sigaction(signal, nil, &previous) == 0 else { continue }
            // A signal that came ignored (`nohup`) stays ignored.
            if endingSignals.contains(signal), isIgnored(previous) { continue }
            previousActions[Int(signal)] = previous
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.sa_flags = signal == SIGWINCH ? SA_RESTART : 0
            #if canImport(Glibc)
            if signal == SIGWINCH { action.__sigaction_handler.sa_handler = windowChanged } else { action.__sigaction_handler.sa_handler = ending }
            #else
            if signal == SIGWINCH { action.__sigaction_u.__sa_handler = windowChanged } else { action.__sigaction_u.__sa_handler = ending }
            #endif
            if sigaction(signal, &action, nil) == 0 { installedSignals.append(signal) }
        }
        return generation
    }

    /// Restores the terminal if it is still borrowed under `armed`, and puts the signals'
    /// previous actions back.
    static func disarm(_ armed: Int) {
        guard armed == generation else { return }
        giveBack(drain: true)
        for signal in installedSignals { sigaction(signal, &previousActions[Int(signal)], nil) }
        installedSignals = []
        wakeDescriptor = -1
    }

    /// Writes the leave sequence and sets the saved attributes, once.
    /// - Parameter drain: wait for the output to be written first (not in a signal handler).
    static func giveBack(drain: Bool) {
        guard borrowed.exchange(false, ordering: .sequentiallyConsistent) else { return }
        leaveSequence.withUnsafeBytes { writeWhole($0, to: outputDescriptor) }
        _ = tcsetattr(inputDescriptor, drain ? TCSADRAIN : TCSANOW, saved)
    }

    private static func isIgnored(_ action: sigaction) -> Bool {
        #if canImport(Glibc)
        let handler = action.__sigaction_handler.sa_handler
        #else
        let handler = action.__sigaction_u.__sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}

/// The handler of the ending and fault signals (``TerminalRestorer``).
private func ending(_ signal: Int32) {
    TerminalRestorer.giveBack(drain: false)
    TerminalRestorer.putBackPreviousAction(of: signal)
    // A fault happens again when the handler returns, now to the previous action; an ending
    // signal, blocked while its handler runs, is delivered then.
    if !TerminalRestorer.faultSignals.contains(signal) { raise(signal) }
}

/// The handler of SIGWINCH: one byte on the wake pipe; the input reader reads the new size.
private func windowChanged(_ signal: Int32) {
    TerminalRestorer.wake(with: UInt8(ascii: "w"))
}

extension TerminalRestorer {
    /// Puts back the action `signal` had before ``arm(attributes:input:output:wake:)``.
    static func putBackPreviousAction(of signal: Int32) {
        guard signal > 0, signal < 65 else { return }
        sigaction(signal, &previousActions[Int(signal)], nil)
    }

    /// Writes `byte` to the wake pipe, if there is one.
    static func wake(with byte: UInt8) {
        let descriptor = wakeDescriptor
        guard descriptor >= 0 else { return }
        var byte = byte
        let savedErrno = errno
        _ = write(descriptor, &byte, 1)
        errno = savedErrno
    }
}

/// Writes all of `bytes` to `descriptor`, going on after a signal or a full buffer; stops at
/// another error (a terminal gone). Async-signal-safe.
func writeWhole(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, base + offset, bytes.count - offset)
        if written > 0 {
            offset += written
        } else if written < 0, errno == EINTR || errno == EAGAIN {
            continue
        } else {
            return
        }
    }
}
