import ArgumentParser
import Foundation
import ReaderKit

/// `--offline`, for the commands that read: they can answer from the cache alone.
public enum OfflineFlag: OfflineChoice {
    public static let help = ArgumentHelp("Never touch the network; read only what is cached.")
    public static let refusal: String? = nil
}

/// No `--offline` in the help, for `reader sync`, which exists to fill the cache from the network:
/// the flag is still read, hidden, so that giving it is explained rather than "unknown".
enum NoOfflineFlag: OfflineChoice {
    static let help = ArgumentHelp.hidden
    static let refusal: String? = "sync fills the cache from the network; it cannot run with --offline"
}

/// Whether a command offers `--offline`: how the flag shows in its help, and why the command
/// refuses it, if it does; and how `--json` shows (hidden for a command that writes none). A
/// type of its own, not an option group: ArgumentParser reflects over every group type at every
/// parse (see ``FetchOptions``).
public protocol OfflineChoice: Sendable {
    static var help: ArgumentHelp { get }
    static var refusal: String? { get }
    /// `--json`'s help: by default ``OutputChoice/jsonHelp``.
    static var jsonHelp: ArgumentHelp { get }
}

extension OfflineChoice {
    public static var jsonHelp: ArgumentHelp { OutputChoice.jsonHelp }
}

/// `reader browse`'s: `--offline` as every reading command, and no `--json` in the help (it
/// draws on the terminal; the flag is still read, hidden, so that giving it is explained).
enum BrowseFlags: OfflineChoice {
    static let help = OfflineFlag.help
    static let refusal: String? = nil
    static let jsonHelp = ArgumentHelp.hidden
}
