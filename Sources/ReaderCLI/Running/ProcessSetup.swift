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
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let standIn = open("/dev/null", descriptor == STDERR_FILENO ? O_WRONLY : O_RDONLY)
            if standIn >= 0, standIn != descriptor {
                dup2(standIn, descriptor)
                close(standIn)
            }
        }
    }

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
