/// One piece of advice about a failure, as a value: ReaderKit decides which advice holds
/// (``ReaderError/advice(in:)``), and each front end words it.
///
/// ``text`` is ReaderKit's wording, for a program that uses the library: it names the library's
/// settings (``LoadOptions/CacheMode/offline``, ``FreshnessPolicy/maximumStale``,
/// ``RetryPolicy/maximumDelay``). The `reader` command words the same advice with its flags and
/// environment variables. A suggestion is a list of advice, said in order and joined by `; `
/// (``ReaderError/suggestion(in:)``).
public enum Advice: Sendable, Hashable {
    /// Advice that names nothing a front end would name its own way: said as it is.
    case plain(String)
    /// The arguments passed: the message names the one refused, and why.
    case checkArguments
    /// The configuration value the message names cannot be used.
    case fixConfiguration
    /// The resource is not readable with the credential sent (or without one).
    case notReadable
    /// The answer no longer has the shape the models read: the program (its models) needs updating.
    case updateTheModels
    /// Try again with more time (``ReaderClient/Configuration/timeout``, ``LoadOptions/deadline``).
    case allowMoreTime
    /// The service's base URL may be the wrong one.
    case checkServiceAddress
    /// A not-found that is not the service's own (no error body of its API: a web server's page):
    /// the base URL is more likely wrong than the name or id asked for.
    case checkServiceAddressNotFound
    /// The connection, and the service's base URL.
    case checkConnectionAndServiceAddress
    /// A redirect is followed only within its origin (or from http to https on the same host):
    /// the service's base URL may be the wrong one.
    case checkServiceAddressRedirected
    /// Try again in the offline cache mode, which reads what is cached.
    case tryAgainOffline
    /// The offline cache mode reads what is cached.
    case readCachedDataOffline
    /// Nothing is cached for the request yet: a load in the offline cache mode cannot show it either.
    case nothingCachedForOffline
    /// A copy is cached, and a load in the offline cache mode shows it.
    case offlineShowsCachedCopy
    /// The cached copy is older than ``FreshnessPolicy/maximumStale`` allows, offline too; a
    /// larger one shows it.
    case allowOlderCopy
    /// The page asked for is past the end of a list of `pages` pages holding `items` in all.
    case lastPage(pages: Int, items: Int)
    /// Try again when the service said, or allow a longer wait (``RetryPolicy/maximumDelay``).
    case tryAgainThenOrAllowLongerWait
    /// Try again when the service said, or give more time (``ReaderClient/Configuration/timeout``,
    /// ``LoadOptions/deadline``): its wait was longer than the time left.
    case tryAgainThenOrAllowMoreTime
    /// Try again when the service said: its wait was not taken for another reason (a status not
    /// retried, the retries spent).
    case tryAgainThen
    /// Try again after the rate limit resets, or allow a longer wait (``RetryPolicy/maximumDelay``).
    case tryAgainAfterResetOrAllowLongerWait
    /// Load the request once while connected, not in the offline cache mode.
    case loadOnceConnected
    /// Allow older data with a larger ``FreshnessPolicy/maximumStale``, or connect and try again.
    case allowOlderDataOrConnect
    /// The cache file cannot be used (as `reason` says): fix it, or use another file
    /// (``ReaderClient/Configuration/cachePath``).
    case useAnotherCacheFile(CacheFailure.Reason)
    /// The client's credentials, for `service` when known: the id of a client without a secret
    /// (an OAuth public client), or the id and secret of one client.
    case checkCredentials(ServiceName?, withoutSecret: Bool)
    /// What a service says can be done about a failure it explained (``ServiceExplanation``):
    /// its `reason`, whether the request carried the service's credential, and its words.
    case service(ServiceName?, reason: String, withCredential: Bool, text: String)

    /// The advice in ReaderKit's words, for a program that uses it.
    public var text: String {
        switch self {
        case .plain(let text): text
        case .checkArguments: "check the arguments passed: the message names the one refused"
        case .fixConfiguration: "fix the configuration value named above, or leave it out to use the default"
        case .notReadable: "the resource is private or forbidden: it cannot be read with the credential sent, or without one"
        case .updateTheModels: "the service's answers changed shape; update the models that read them, and report it if it persists"
        case .allowMoreTime: "try again, or give more time (Configuration.timeout, LoadOptions.deadline)"
        case .checkServiceAddress: "check the service's base URL"
        case .checkServiceAddressNotFound: "check the service's base URL: the not-found is not the service's own, so the name or id may be right"
        case .checkConnectionAndServiceAddress: "check your connection and the service's base URL, and try again"
        case .checkServiceAddressRedirected:
            "ReaderKit follows a redirect only to the same scheme, host and port, or from http to https on the same host; check the service's base URL"
        case .tryAgainOffline: "try again in the offline cache mode (LoadOptions.CacheMode.offline) to read cached data"
        case .readCachedDataOffline: "the offline cache mode (LoadOptions.CacheMode.offline) reads cached data"
        case .nothingCachedForOffline: "nothing is cached for this request yet, so a load in the offline cache mode cannot show it either"
        case .offlineShowsCachedCopy: "a load in the offline cache mode (LoadOptions.CacheMode.offline) shows the cached copy"
        case .allowOlderCopy:
            "the cached copy is older than FreshnessPolicy.maximumStale allows (the offline cache mode refuses it too): a larger maximumStale shows it"
        case .lastPage(let pages, let items):
            pages == 1 ? "there is 1 page (\(items) in all): ask for page 1" : "there are \(pages) pages (\(items) in all): the last is page \(pages)"
        case .tryAgainThenOrAllowLongerWait: "try again then, or allow a longer wait (RetryPolicy.maximumDelay)"
        case .tryAgainThenOrAllowMoreTime: "try again then, or give more time (Configuration.timeout, LoadOptions.deadline)"
        case .tryAgainThen: "try again then"
        case .tryAgainAfterResetOrAllowLongerWait: "try again after the reset, or allow a longer wait (RetryPolicy.maximumDelay)"
        case .loadOnceConnected: "load it once while connected, not in the offline cache mode"
        case .allowOlderDataOrConnect: "allow older data with a larger FreshnessPolicy.maximumStale, or connect and try again"
        case .useAnotherCacheFile(let reason):
            switch reason {
            case .unwritable: "make the file and its folder writable for this user (or free disk space), or configure another cachePath"
            case .unavailable:
                "the cache path must name a regular file this user can read (or a place where one can be made); configure another cachePath"
            default: "configure another cachePath to use another file"
            }
        case .checkCredentials(_, let withoutSecret):
            withoutSecret
                ? "check the client id: without a secret, it must be the id of a client registered to use none (an OAuth public client)"
                : "check the client id and secret: they must be the id and secret of one client"
        case .service(_, _, _, let text): text
        }
    }
}

extension Advice {
    /// The server answered outside the protocol: nothing the user did, nothing the user can fix.
    public static let serviceAnsweredWrongly = Advice.plain("the service answered wrongly: it is the service's to fix; try again later, or tell the service")
}

extension Array where Element == Advice {
    /// The advice in ReaderKit's words, in order, joined by `; `.
    public var text: String { map(\.text).joined(separator: "; ") }
}
