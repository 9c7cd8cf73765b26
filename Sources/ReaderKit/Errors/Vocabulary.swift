/// How a front end says what ReaderKit says: its names for the settings and parameters that
/// ReaderKit's sentences name (``Wording``), and its own sentence for a hint where it has one.
///
/// ReaderKit words its messages, notices and hints for a program that uses it, naming its API
/// (`page`, `LoadOptions.CacheMode.offline`, `FreshnessPolicy.maximumStale`). A command-line
/// front end names its flags and variables instead, and keeps the rest of each sentence:
///
/// ```swift
/// struct CommandWording: Vocabulary {
///     func name(for setting: String) -> String {
///         [Hint.Name.offline: "--offline", Hint.Name.page: "--page"][setting] ?? setting
///     }
///     func ownSentence(for hint: Hint) -> String? {
///         hint == .checkArguments ? "see 'mytool help' for the arguments each command takes" : nil
///     }
/// }
/// ```
public protocol Vocabulary: Sendable {
    /// The front end's name for `setting`, a parameter or setting as ReaderKit's API spells it
    /// (``Hint/Name``); `setting` itself where the front end has none.
    func name(for setting: String) -> String

    /// The front end's own sentence for `hint`, where ReaderKit's would name what the front end
    /// does not have (its help, its configuration file); nil says ReaderKit's sentence with the
    /// front end's names.
    func ownSentence(for hint: Hint) -> String?
}

extension Vocabulary {
    /// No sentence of its own: every hint is ReaderKit's, with the front end's names.
    public func ownSentence(for hint: Hint) -> String? { nil }

    /// `wording` with the front end's names.
    public func say(_ wording: Wording) -> String { wording.worded(naming: name(for:)) }

    /// The error's message in the front end's words.
    public func message(of error: ReaderError) -> String { say(error.wording) }

    /// The notice's line in the front end's words.
    public func message(of notice: Notice) -> String { say(notice.wording) }

    /// What a sync's failure group met, in the front end's words.
    public func message(of group: SyncReport.FailureGroup) -> String { say(group.wording) }

    /// One hint in the front end's words.
    public func text(of hint: Hint) -> String { ownSentence(for: hint) ?? say(hint.wording) }

    /// The hints in the front end's words, in order, joined by `; ` as ReaderKit joins them.
    public func text(of hints: [Hint]) -> String { hints.map(text(of:)).joined(separator: "; ") }
}
