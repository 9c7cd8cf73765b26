import Foundation

/// What the process sets up before anything else, and how it ends when its reader has gone.
enum ProcessSetup {
    /// Run first in `main`:
    /// - Ctrl-\\ (SIGQUIT) ends reader by the signal, without the crash report the Swift runtime's
    ///   backtracer prints for it (unless SIGQUIT came ignored, which is then kept).
    /// - SIGPIPE is ignored, so that a closed pipe is an error of the write (`EPIPE`) whatever has
    ///   run before (SwiftNIO ignores it too, once the network is used); ``endByClosedPipe()``
    ///   then ends the process by SIGPIPE, the same whether the data came from the cache or not.
    /// - A standard descriptor that came closed is filled with /dev/null, so that no file reader
    ///   opens (the cache) takes its number and receives its output. stdout's stand-in is opened
    ///   read-only: writing to it fails with `EBADF`, and the output is reported as unwritable.
    static func prepareSignalsAndDescriptors() {
        var current = sigaction()
        if sigaction(SIGQUIT, nil, &current) == 0,
           unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) != unsafeBitCast(SIG_IGN, to: Int.self) {
            signal(SIGQUIT, SIG_DFL)
        }
        signal(SIGPIPE, SIG_IGN)
        endFaultsSentByKill()
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let standIn = open("/dev/null", descriptor == STDERR_FILENO ? O_WRONLY : O_RDONLY)
            if standIn >= 0, standIn != descriptor {
                dup2(standIn, descriptor)
                close(standIn)
            }
        }
    }

    /// The signals of a fault, which the Swift runtime's backtracer takes: reported as a crash,
    /// after which it may let the process go on when no fault happened.
    static let faultSignals: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT, SIGSYS]

    /// A fault signal sent by a process (`kill -ABRT`, `timeout -s SEGV`, a watchdog) ends reader
    /// as the signal's default action does, so that a hung reader can be stopped; a real fault
    /// still goes to the action before (the backtracer, which reports it). Browse's own handlers
    /// (TerminalRestorer) do the same after giving the terminal back, and pass real faults on here.
    private static func endFaultsSentByKill() {
        for signal in faultSignals {
            var previous = sigaction()
            guard sigaction(signal, nil, &previous) == 0 else { continue }
            previousFaultActions[Int(signal)] = previous
            var action = sigaction()
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_SIGINFO
            action.__sigaction_handler.sa_sigaction = faultSentOrReal
            sigaction(signal, &action, nil)
        }
    }

    /// The fault signals' actions before ``endFaultsSentByKill()``, by signal number: set once,
    /// before any handler runs, and only read afterwards (memory a handler reads without Swift's
    /// exclusivity checks, as TerminalRestorer keeps its own).
    nonisolated(unsafe) static let previousFaultActions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)

    /// Ends the process by SIGPIPE, as `cat` and `grep` end when the reader of their pipe has gone:
    /// quietly, with the status a shell shows as 141.
    static func endByClosedPipe() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        sigprocmask(SIG_UNBLOCK, &pipeOnly, nil)
        raise(SIGPIPE)
        // Only if the signal could not end the process.
        Foundation.exit(128 + SIGPIPE)
    }
}

/// The handler of the fault signals (``ProcessSetup``). One sent by a process (`si_code` ≤ 0:
/// `kill`, `raise`, `sigqueue`) ends the process by the signal's default action; a real fault
/// happens again when the handler returns, now to the action before (the backtracer).
private func faultSentOrReal(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    if let info, info.pointee.si_code <= 0 {
        var action = sigaction()
        sigemptyset(&action.sa_mask)
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigaction(signal, &action, nil)
        // Blocked while its handler runs, the signal raised again is delivered when it returns.
        raise(signal)
    } else {
        sigaction(signal, &ProcessSetup.previousFaultActions[Int(signal)], nil)
    }
}
