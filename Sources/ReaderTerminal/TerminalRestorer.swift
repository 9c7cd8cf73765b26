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
/// - Ending signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT, and the others whose default ends the
///   process: SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGRTMIN…SIGRTMAX): the terminal is
///   restored, the signal's previous action put back, and the signal raised again, so that the
///   process ends by it as it would have (a shell shows 130, 143, 129), and a shell script around
///   it stops as it should.
/// - SIGTSTP (`Ctrl-z`, or `kill -TSTP`): the terminal is given back, the process stops; when it
///   is continued (`fg`) the terminal is borrowed again and a byte `c` on the wake pipe asks for
///   the whole screen to be drawn again.
/// - Faults (a Swift trap is SIGILL or SIGTRAP; SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGSYS): the
///   terminal is restored and the previous action (the runtime's backtracer) put back before the
///   fault happens again, so that its report lands on the main screen; one sent by `kill` ends
///   the process as the default action does.
/// - `exit()` from anywhere: an `atexit` handler.
/// - SIGWINCH writes one byte to the wake pipe the input reader polls.
enum TerminalRestorer {
    static let endingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                                         SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT] + realTimeSignals

    /// SIGRTMIN…SIGRTMAX, whose default action ends the process too (none on Darwin). The C
    /// library keeps the first few for itself: SIGRTMIN is asked for, not written down.
    static var realTimeSignals: [Int32] {
        #if canImport(Glibc)
        let (first, last) = (__libc_current_sigrtmin(), __libc_current_sigrtmax())
        // Within the actions kept (``previousActions``: signals 1…64).
        guard first > 0, first <= last, last < 65 else { return [] }
        return Array(first...last)
        #else
        return []
        #endif
    }
    static let faultSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGSYS]

    /// The bytes that leave what ``TerminalSession`` entered: the default style, automatic wrap
    /// on, the cursor shown, the main screen.
    static let leaveSequence: [UInt8] = Array("\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l".utf8)
    /// The bytes that enter it: the alternate screen, the cursor hidden, automatic wrap off, the
    /// default style, the screen cleared.
    static let enterSequence: [UInt8] = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?7l\u{1B}[0m\u{1B}[2J".utf8)

    // The handlers' state: raw storage, allocated once, before a handler can run.
    nonisolated(unsafe) private static let saved = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) private static let raw = UnsafeMutablePointer<termios>.allocate(capacity: 1)
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
    static func arm(attributes: termios, raw rawAttributes: termios, input: Int32, output: Int32, wake: Int32) -> Int {
        disarm(generation)
        generation += 1
        saved.pointee = attributes
        raw.pointee = rawAttributes
        inputDescriptor = input
        outputDescriptor = output
        wakeDescriptor = wake
        _ = leaveSequence.count
        _ = enterSequence.count
        borrowed.store(true, ordering: .sequentiallyConsistent)
        if !exitHandlerRegistered.exchange(true, ordering: .sequentiallyConsistent) {
            atexit { TerminalRestorer.giveBack(drain: true) }
        }
        installedSignals = []
        for signal in endingSignals + faultSignals + [SIGWINCH, SIGTSTP] {
            var previous = sigaction()
            guard sigaction(signal, nil, &previous) == 0 else { continue }
            // A signal that came ignored (`nohup`, a shell without job control) stays ignored.
            if endingSignals.contains(signal) || signal == SIGTSTP, isIgnored(previous) { continue }
            previousActions[Int(signal)] = previous
            if faultSignals.contains(signal) {
                if installFault(for: signal) { installedSignals.append(signal) }
                continue
            }
            let handler: @convention(c) (Int32) -> Void = switch signal {
            case SIGWINCH: windowChanged
            case SIGTSTP: suspend
            default: ending
            }
            if install(handler, for: signal) { installedSignals.append(signal) }
        }
        return generation
    }

    /// Sets `handler` as the action of `signal` (restarting interrupted calls for SIGWINCH and
    /// SIGTSTP, which go on afterwards); whether it was set.
    static func install(_ handler: @convention(c) (Int32) -> Void, for signal: Int32) -> Bool {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = signal == SIGWINCH || signal == SIGTSTP ? SA_RESTART : 0
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = handler
        #else
        action.__sigaction_u.__sa_handler = handler
        #endif
        return sigaction(signal, &action, nil) == 0
    }

    /// Sets ``fault(_:_:_:)`` as the action of `signal`, told who sent it; whether it was set.
    static func installFault(for signal: Int32) -> Bool {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_SIGINFO
        #if canImport(Glibc)
        action.__sigaction_handler.sa_sigaction = fault
        #else
        action.__sigaction_u.__sa_sigaction = fault
        #endif
        return sigaction(signal, &action, nil) == 0
    }

    /// Sets the default action of `signal` (the process ends by it).
    static func setDefaultAction(of signal: Int32) {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        #if canImport(Glibc)
        action.__sigaction_handler.sa_handler = SIG_DFL
        #else
        action.__sigaction_u.__sa_handler = SIG_DFL
        #endif
        sigaction(signal, &action, nil)
    }

    /// Borrows the terminal again after a stop: the raw attributes, the enter sequence, and a
    /// byte `c` asking for the whole screen. Async-signal-safe.
    static func takeBack() {
        guard !borrowed.exchange(true, ordering: .sequentiallyConsistent) else { return }
        _ = tcsetattr(inputDescriptor, TCSANOW, raw)
        enterSequence.withUnsafeBytes { writeWhole($0, to: outputDescriptor) }
        wake(with: UInt8(ascii: "c"))
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

/// The handler of the ending signals (``TerminalRestorer``).
private func ending(_ signal: Int32) {
    TerminalRestorer.giveBack(drain: false)
    TerminalRestorer.putBackPreviousAction(of: signal)
    // Blocked while its handler runs, the signal raised again is delivered when it returns, now
    // to the previous action: the process ends by it.
    raise(signal)
}

/// The handler of the fault signals (``TerminalRestorer``). A real fault happens again when the
/// handler returns, now to the previous action (the runtime's backtracer, which reports it and
/// ends the process). One sent by a process (`kill`, `raise`: no fault to report, and a
/// backtracer may then let the process go on) ends it as the default action does.
private func fault(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    TerminalRestorer.giveBack(drain: false)
    if let info, info.pointee.si_code <= 0 {
        TerminalRestorer.setDefaultAction(of: signal)
        raise(signal)
    } else {
        TerminalRestorer.putBackPreviousAction(of: signal)
    }
}

/// The handler of SIGTSTP: gives the terminal back and stops as the signal's default would;
/// continued, takes the terminal back and asks for the whole screen.
private func suspend(_ signal: Int32) {
    let savedErrno = errno
    TerminalRestorer.giveBack(drain: false)
    // Stop by the default action: it is put in place, the signal (blocked while its handler
    // runs) unblocked and raised; the process stops inside `raise` until SIGCONT.
    TerminalRestorer.setDefaultAction(of: SIGTSTP)
    var stop = sigset_t()
    sigemptyset(&stop)
    sigaddset(&stop, SIGTSTP)
    pthread_sigmask(SIG_UNBLOCK, &stop, nil)
    raise(SIGTSTP)
    // Continued (or never stopped: an orphaned process group discards the stop).
    _ = TerminalRestorer.install(suspend, for: SIGTSTP)
    TerminalRestorer.takeBack()
    errno = savedErrno
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
