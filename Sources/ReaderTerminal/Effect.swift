/// Work a ``Model`` asks for; ``ProgramRunner`` runs it, and answers with a
/// ``ProgramEvent/message(_:)``.
public enum Effect<Message: Sendable>: Sendable {
    /// Runs `operation` in a task of its own; what it returns comes back as a message. A task
    /// with an `id` replaces (cancels) one still running under the same id, and ``cancel(id:)``
    /// cancels it: a cancelled task's answer is dropped.
    case task(id: String? = nil, @Sendable () async -> Message)
    /// Cancels the task running under `id`, if any (the screen it worked for was left).
    case cancel(id: String)
    /// `message` comes back after `delay` (a probe's backoff, a note that fades).
    case after(Duration, Message)
    /// Stops the process as `Ctrl-z` does in a shell, the terminal given back; continued, the
    /// screen is drawn again whole.
    case suspend
    /// Ends the program; the runner returns `end`.
    case quit(ProgramEnd)
}
