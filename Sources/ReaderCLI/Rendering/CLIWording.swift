import ReaderKit

/// How `reader` says what ReaderKit says (``Vocabulary``): its flags, its environment variables
/// and its commands where ReaderKit names its API (`page`, `LoadOptions.CacheMode.offline`,
/// `FreshnessPolicy.maximumStale`), and its own sentences for the hints about its help, its
/// configuration and its services. Only here are they named for ReaderKit's words.
package struct CLIWording: Vocabulary {
    /// The services the hints may name: where each service's address is set, and what each
    /// service says about its credentials and its failures.
    let registry: ServiceRegistry
    /// The service of the command at hand, when it has one: an address to check is that
    /// service's, not every service's.
    var service: ServiceName?

    package init(registry: ServiceRegistry, service: ServiceName? = nil) {
        self.registry = registry
        self.service = service
    }

    /// The wording of messages, which name flags and never a service's setting: no services needed.
    package static let messages = CLIWording(registry: ServiceRegistry([]))

    /// reader's flag for each parameter or setting ReaderKit names.
    static let flags: [String: String] = [
        Hint.Name.page: "--page", "search": "--search",
        "sort": "--sort", "time": "--time", "limit": "--limit", "after": "--after", "depth": "--depth",
        "explicitPath": "--cache-path", Hint.Name.cachePath: "--cache-path",
        Hint.Name.offline: "--offline", Hint.Name.refresh: "--refresh", Hint.Name.maximumStale: "--max-stale", Hint.Name.maximumDelay: "--max-wait",
        "LoadOptions.waitForConnectivity": "--wait", "LoadOptions.deadline": "--timeout", Hint.Name.timeout: "--timeout",
    ]

    package func name(for setting: String) -> String {
        setting == Hint.Name.serviceAddress ? serviceAddressVariables : Self.flags[setting] ?? setting
    }

    package func ownSentence(for hint: Hint) -> String? {
        switch hint {
        case .checkArguments: "see 'reader help' for the arguments each command takes"
        case .fixConfiguration: "fix the environment variable or config file setting named above, or remove it to use the default"
        case .updateTheModels: "the service changed; try updating reader, and report it if it persists"
        case .loadOnceConnected: "run the command once without --offline while connected"
        case .lastPage(pages: 1, let items): "there is 1 page (\(items) in all): leave out --page"
        case .checkCredentials(let service, let withoutSecret):
            // The service whose credentials were refused says what to check; the engine's words name none.
            service.flatMap { registry[$0]?.credential?.check(withoutSecret) } ?? "check the service's credentials"
        case .service(let service, let reason, let withCredential, let text):
            service.flatMap { registry[$0] }?.hint(reason: reason, withCredential: withCredential) ?? text
        default: nil
        }
    }

    /// The variables that say where the services are: any of them may be the failing origin's,
    /// unless the command at hand is ``service``'s.
    var serviceAddressVariables: String {
        let variables = service.flatMap { name in registry[name].map { ServiceRegistry([$0]).addressVariables } }
        return (variables.flatMap { $0.isEmpty ? nil : $0 } ?? registry.addressVariables).joined(separator: ", ")
    }

    /// The error's message, naming reader's flags.
    package static func message(of error: ReaderError) -> String { messages.message(of: error) }

    /// What a sync's failure group met, naming reader's flags.
    static func message(of group: SyncReport.FailureGroup) -> String { messages.message(of: group) }

    /// The notice's line, naming reader's flags.
    static func message(of notice: Notice) -> String { messages.message(of: notice) }
}
