import ReaderKit

/// How `reader` words what ReaderKit says. ReaderKit words its messages and advice for a program
/// that uses it, naming its API (`page`, `LoadOptions.CacheMode.offline`,
/// `FreshnessPolicy.maximumStale`); `reader`'s user reads its flags, its environment variables and
/// its commands instead. Only here are they named for ReaderKit's messages and advice.
package enum CLIWording {
    /// reader's flag for each parameter or setting ReaderKit names in a message (``Wording``).
    static let flags: [String: String] = [
        "page": "--page", "search": "--search",
        "sort": "--sort", "time": "--time", "limit": "--limit", "after": "--after", "depth": "--depth",
        "explicitPath": "--cache-path",
        "LoadOptions.waitForConnectivity": "--wait", "LoadOptions.deadline": "--timeout",
        "FreshnessPolicy.maximumStale": "--max-stale",
    ]

    /// The flag for `name`; a name reader has no flag for is shown as ReaderKit spells it.
    static func flag(for name: String) -> String { flags[name] ?? name }

    /// The error's message, naming reader's flags.
    package static func message(of error: ReaderError) -> String {
        error.wording.worded(naming: flag(for:))
    }

    /// What a sync's failure group met, naming reader's flags.
    static func message(of group: SyncReport.FailureGroup) -> String {
        group.wording.worded(naming: flag(for:))
    }

    /// The notice's line, naming reader's flags.
    static func message(of notice: Notice) -> String {
        notice.wording.worded(naming: flag(for:))
    }

    /// A hint: the advice in reader's words, joined as ReaderKit joins it.
    /// - Parameter service: the service of the command at hand, when it has one: an address to
    ///   check is that service's, not every service's.
    package static func hint(_ advice: [Advice], service: ServiceName? = nil) -> String {
        advice.map { text(of: $0, service: service) }.joined(separator: "; ")
    }

    /// The variables that say where the services are: any of them may be the failing origin's,
    /// unless the command at hand is `service`'s.
    static func serviceAddressVariables(of service: ServiceName? = nil) -> String {
        let registry = ServiceRegistry.current
        let variables = service.flatMap { name in registry[name].map { ServiceRegistry([$0]).addressVariables } }
        return (variables.flatMap { $0.isEmpty ? nil : $0 } ?? registry.addressVariables).joined(separator: ", ")
    }

    /// One piece of advice in reader's words.
    /// - Parameter service: as for ``hint(_:service:)``.
    static func text(of advice: Advice, service: ServiceName? = nil) -> String {
        let addresses = serviceAddressVariables(of: service)
        return switch advice {
        case .plain(let text): text
        case .checkArguments: "see 'reader help' for the arguments each command takes"
        case .fixConfiguration: "fix the environment variable or config file setting named above, or remove it to use the default"
        case .notReadable: "the resource is private or forbidden: it cannot be read with the credential sent, or without one"
        case .updateTheModels: "the service changed; try updating reader, and report it if it persists"
        case .allowMoreTime: "try again, or give more time with --timeout"
        case .checkServiceAddress: "check the service address (\(addresses))"
        case .checkServiceAddressNotFound:
            "check the service address (\(addresses)): the not-found is not the service's own, so the name or id may be right"
        case .checkConnectionAndServiceAddress:
            "check your connection and the service address (\(addresses)), and try again"
        case .checkServiceAddressRedirected:
            "reader follows a redirect only to the same scheme, host and port, or from http to https on the same host; check the service address (\(addresses))"
        case .tryAgainOffline: "try again with --offline to read cached data"
        case .readCachedDataOffline: "--offline reads cached data"
        case .nothingCachedForOffline: "nothing is cached for this request yet, so --offline cannot show it either"
        case .offlineShowsCachedCopy: "--offline shows the cached copy"
        case .allowOlderCopy: "the cached copy is older than --max-stale allows (--offline refuses it too): a larger --max-stale shows it"
        case .lastPage(let pages, let items):
            pages == 1 ? "there is 1 page (\(items) in all): leave out --page"
                : "there are \(pages) pages (\(items) in all): the last is --page \(pages)"
        case .tryAgainThenOrAllowLongerWait: "try again then, or allow a longer wait with --max-wait"
        case .tryAgainThenOrAllowMoreTime: "try again then, or give more time with --timeout"
        case .tryAgainThen: "try again then"
        case .tryAgainAfterResetOrAllowLongerWait: "try again after the reset, or allow a longer wait with --max-wait"
        case .loadOnceConnected: "run the command once without --offline while connected"
        case .allowOlderDataOrConnect: "allow older data with a larger --max-stale, or connect and try again"
        case .useAnotherCacheFile(let reason):
            switch reason {
            case .unwritable: "make the file and its folder writable for this user (or free disk space), or use --cache-path for another file"
            case .unavailable:
                "the cache path must name a regular file this user can read (or a place where one can be made); use --cache-path for another file"
            default: "run with --cache-path to use another file"
            }
        case .checkCredentials(let service, let withoutSecret):
            // The service whose credentials were refused says what to check; the engine's words name none.
            service.flatMap { ServiceRegistry.current[$0]?.credential?.check(withoutSecret) } ?? "check the service's credentials"
        case .service(let service, let reason, let withCredential, let text):
            service.flatMap { ServiceRegistry.current[$0] }?.hint(reason: reason, withCredential: withCredential) ?? text
        }
    }
}
