import OpenLibraryKit
import ReaderKit

/// How `openlibrary` words what ReaderKit says. ReaderKit words its messages and advice for a
/// program that uses it (`limit`, `LoadOptions.CacheMode.offline`); this command's user reads
/// its flags and its environment variables instead, as `reader`'s reads reader's.
enum OpenLibraryWording {
    /// This command's flag for each parameter or setting ReaderKit or OpenLibraryKit names.
    static let flags: [String: String] = ["limit": "--limit", "explicitPath": "--cache-path"]

    static func flag(for name: String) -> String { flags[name] ?? name }

    /// The error's message, naming this command's flags.
    static func message(of error: ReaderError) -> String {
        error.wording.worded(naming: flag(for:))
    }

    /// The notice's line, naming this command's flags.
    static func message(of notice: Notice) -> String {
        notice.wording.worded(naming: flag(for:))
    }

    /// A hint: the advice in this command's words, joined as ReaderKit joins it.
    static func hint(_ advice: [Advice]) -> String {
        advice.map(text(of:)).joined(separator: "; ")
    }

    /// One piece of advice in this command's words; ReaderKit's where this command has nothing
    /// of its own to name (it has no --timeout, --max-stale or --max-wait).
    static func text(of advice: Advice) -> String {
        let address = OpenLibrary.baseURLVariable
        return switch advice {
        case .checkArguments: "see 'openlibrary help' for the arguments each command takes; 'openlibrary search TEXT' shows works' ids"
        case .allowMoreTime: "try again"
        case .checkServiceAddress: "check the service address (\(address))"
        case .checkConnectionAndServiceAddress: "check your connection and the service address (\(address)), and try again"
        case .checkServiceAddressRedirected:
            "openlibrary follows a redirect only to the same scheme, host and port, or from http to https on the same host; check the service address (\(address))"
        case .tryAgainOffline: "try again with --offline to read cached data"
        case .readCachedDataOffline: "--offline reads cached data"
        case .nothingCachedForOffline: "nothing is cached for this request yet, so --offline cannot show it either"
        case .offlineShowsCachedCopy: "--offline shows the cached copy"
        case .loadOnceConnected: "run the command once without --offline while connected"
        case .tryAgainThenOrAllowLongerWait, .tryAgainAfterResetOrAllowLongerWait: "try again later"
        case .useAnotherCacheFile(let reason):
            switch reason {
            case .unwritable: "make the file and its folder writable for this user (or free disk space), or use --cache-path for another file"
            case .unavailable:
                "the cache path must name a regular file this user can read (or a place where one can be made); use --cache-path for another file"
            default: "run with --cache-path to use another file"
            }
        default: advice.text
        }
    }
}
