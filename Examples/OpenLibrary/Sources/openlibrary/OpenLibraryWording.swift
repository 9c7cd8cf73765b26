import OpenLibraryKit
import ReaderKit

/// How `openlibrary` says what ReaderKit says (``Vocabulary``): its flags and its variable where
/// ReaderKit names its API, and its own sentences where it has nothing to name (it has no
/// --timeout or --max-wait) or its help to point at; the rest of each sentence is ReaderKit's.
struct OpenLibraryWording: Vocabulary {
    /// This command's flag for each parameter or setting ReaderKit or OpenLibraryKit names.
    static let names: [String: String] = [
        "limit": "--limit", "explicitPath": "--cache-path", Hint.Name.cachePath: "--cache-path",
        Hint.Name.offline: "--offline", Hint.Name.refresh: "--refresh", Hint.Name.serviceAddress: OpenLibrary.baseURLVariable,
    ]

    func name(for setting: String) -> String { Self.names[setting] ?? setting }

    func ownSentence(for hint: Hint) -> String? {
        switch hint {
        case .checkArguments: "see 'openlibrary help' for the arguments each command takes; 'openlibrary search TEXT' shows works' ids"
        case .allowMoreTime: "try again"
        case .tryAgainThenOrAllowLongerWait, .tryAgainAfterResetOrAllowLongerWait, .tryAgainThenOrAllowMoreTime: "try again later"
        default: nil
        }
    }
}
