import Logging

/// reader's logging: `--verbose` writes the client's debug lines to stderr, otherwise only what
/// is critical.
///
/// swift-log's global system may be bootstrapped once per process (a second call traps), and a
/// process may run more than one command (the tests do): the global bootstrap is guarded to run
/// once, and each command's logger carries its own handler at its own level, so that a quiet
/// command after a verbose one is quiet, and the reverse.
enum CommandLogging {
    /// Bootstraps the global system once: a logger a dependency makes without a handler of its own
    /// writes only critical messages, to stderr (never stdout, which is the data).
    private static let bootstrapped: Void = {
        LoggingSystem.bootstrap { label in handler(label: label, level: .critical) }
    }()

    /// The logger of one command: debug lines with `--verbose`, else only critical ones.
    static func logger(verbose: Bool) -> Logger {
        _ = bootstrapped
        return Logger(label: "reader") { label in handler(label: label, level: verbose ? .debug : .critical) }
    }

    private static func handler(label: String, level: Logger.Level) -> StreamLogHandler {
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = level
        return handler
    }
}
